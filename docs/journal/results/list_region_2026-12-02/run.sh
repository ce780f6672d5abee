#!/bin/sh
# Issue 21, the open of a live database with its lists copied (the default): the library before
# (99c965c, od_before: one malloc per list) and after (od: one region of transparent huge pages, the
# lists read in place there), alternating, one open per process, on the 2-core VM; MAPPED=1 reads
# LMDB's map (the same code on both sides). The databases: `od make DB N` (N synthetic images,
# K = 65,536, a checkpoint at the end). od is open_driver.cpp built against each side's libbovw.a.
for db in db100k db1m; do
  cat $db/data.mdb > /dev/null  # a warm page cache
  for r in 1 2 3; do
    echo "== $db round $r"
    echo "before: $(./od_before open $db)"
    echo "after:  $(./od open $db)"
    echo "mapped: $(MAPPED=1 ./od open $db)"
  done
  for r in 1 2; do
    echo "== $db queries round $r"
    echo "before: $(./od_before query $db 200 | tail -2 | tr '\n' ' ')"
    echo "after:  $(./od query $db 200 | tail -2 | tr '\n' ' ')"
  done
done
# Single-image writes after the open: their rate, and the process's own memory after them (the
# region's pages given back as the writes copy lists out).
for r in 1 2; do
  echo "== db1m writes round $r"
  echo "before: $(./od_before writes db1m 1000 | tr '\n' ' ')"
  echo "after:  $(./od writes db1m 1000 | tr '\n' ' ')"
done
