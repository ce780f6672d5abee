#!/bin/sh
# Issue 21: the postings of the writes after the checkpoint (WritesAfter, 480 MB here) in huge pages.
# before: HEAD's library (58a1616), after: the change; both built by
# ../kept_norms_2026-12-05/build.sh (open_driver.cpp: one open per process, warm page cache).
# db1m_after: a million images, a checkpoint, then 120,000 added after it in writes of 1,000
# (`od make db1m 1000000; cp -r db1m db1m_after; od add db1m_after 120000`).
for db in db1m_after db1m; do
  cat $db/data.mdb > /dev/null
  for r in 1 2 3; do
    for side in before after; do
      b=./od; [ $side = before ] && b=before/od
      echo "$db Mapped $side: $(MAPPED=1 $b open $db 0 2>&1 | head -1 | cut -d, -f1)"
      echo "$db Copied $side: $($b open $db 0 2>&1 | head -1 | cut -d, -f1)"
    done
  done
done
