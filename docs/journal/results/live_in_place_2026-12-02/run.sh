#!/bin/sh
# Issue 21, the open of a live database: the library before (dd0f251, od_before), and after with its
# lists copied (the default) and mapped (MAPPED=1), alternating, one open per process, on the 2-core
# VM. The databases: `od make DB N` (N synthetic images, K = 65,536, a checkpoint at the end).
# od is open_driver.cpp built against each side's libbovw.a.
for db in db100k db1m; do
  cat $db/data.mdb > /dev/null  # a warm page cache
  for r in 1 2 3; do
    echo "== $db round $r"
    echo "before: $(./od_before open $db)"
    echo "copied: $(./od open $db)"
    echo "mapped: $(MAPPED=1 ./od open $db)"
  done
  for r in 1 2; do
    echo "== $db queries round $r"
    echo "before: $(./od_before query $db 200 | tail -2 | tr '\n' ' ')"
    echo "copied: $(./od query $db 200 | tail -2 | tr '\n' ' ')"
    echo "mapped: $(MAPPED=1 ./od query $db 200 | tail -2 | tr '\n' ' ')"
  done
done
