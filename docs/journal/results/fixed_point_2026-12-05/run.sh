#!/bin/sh
# Issue 21, fixed-point scores and a block's dense words in one pass: the library before (d962866)
# and after, alternating, three rounds; each process opens the database (PostingMemory::Copied),
# waits for the copy, then times 200 queries after 3 warm-up ones (query_driver.cpp; qd_before and
# qd_after built by build.sh against each side's library) on one thread and on both, and writes the
# answers, which compare_names.py compares. Databases: ../kept_norms_2026-12-05/run.sh's db100k and
# db1m (synthetic images, K = 65,536, a checkpoint at the end). The 2-core VM, warm page cache.
for db in db100k db1m; do
  cat $db/data.mdb > /dev/null
  for threads in 1 2; do
    for r in 1 2 3; do
      echo "== $db, $threads thread(s), round $r"
      echo "before: $(OMP_NUM_THREADS=$threads ./qd_before $db 200 before_${db}_$threads.txt)"
      echo "after:  $(OMP_NUM_THREADS=$threads ./qd_after $db 200 after_${db}_$threads.txt)"
    done
    python3 "$(dirname "$0")/compare_names.py" before_${db}_$threads.txt after_${db}_$threads.txt 2>/dev/null ||
      python3 compare_names.py before_${db}_$threads.txt after_${db}_$threads.txt
  done
done
