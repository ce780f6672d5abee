#!/bin/sh
# Issue 21, the PostingMemory::Copied open: the library before (3e10bfa: open returns once the lists
# are copied into huge pages) and after (open returns once they are searchable in LMDB's map; a
# thread copies them beside searches), alternating, one open per process, on the 2-core VM, warm
# page cache. od_before is ../list_region_2026-12-02/open_driver.cpp built against the library before
# (its `make DB N` made the databases: N synthetic images, K = 65,536, a checkpoint at the end); cd is
# copy_driver.cpp built against the library after.
for db in db100k db1m; do
  cat $db/data.mdb > /dev/null
  for r in 1 2 3; do
    echo "== $db open round $r"
    echo "before: $(./od_before open $db)"
    echo "after:  $(./cd none $db)"
    echo "mapped: $(MAPPED=1 ./cd none $db)"
  done
  for r in 1 2; do
    echo "== $db queries round $r"
    echo "before:              $(./od_before query $db 200 | tail -2 | tr '\n' ' ')"
    echo "after, once copied:  $(./cd after $db 200 | tr '\n' ' ')"
    echo "after, from the open: $(./cd early $db 200 | tr '\n' ' ')"
  done
done
