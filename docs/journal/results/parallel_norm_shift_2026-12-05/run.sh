#!/bin/sh
# Issue 21: after()'s norm shift in ranges of image ids over the threads. before: acb34b7's library,
# after: the change; batches_driver.cpp built against each (as ../kept_norms_2026-12-05/build.sh
# builds its drivers). db_ck: a million images plus 120,000 written after the checkpoint, then a fresh
# checkpoint (open_driver's `checkpoint`); each run adds 3 batches of 1,000 more.
cat db_ck/data.mdb > /dev/null
for r in 1 2 3; do
  echo "before: $(before2/bds db_ck 1000 3)"
  echo "after:  $(./bds db_ck 1000 3)"
done
