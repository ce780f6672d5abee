#!/bin/sh
# Issue 21, the exhaustive query's best k read block by block (each block's scores offered and zeroed
# while the block is in the core's cache) instead of in one pass over the range after its last block:
# the library before (2c22334's query_scorer.cpp) and after, alternating, three rounds, on one thread
# and on both. Drivers: ../fixed_point_2026-12-05/query_driver.cpp built by its build.sh against each
# side's libbovw.a (qd_before, qd_after); each opens the database (lists copied), then times 200
# queries after 3 warm-up ones and writes the answers, which compare_names.py compares. The database:
# `od make db1m 1000000` (../list_region_2026-12-02/open_driver.cpp: synthetic images, K = 65,536, a
# checkpoint at the end). The 2-core VM, warm page cache. Usage: run.sh (in the folder with the
# binaries and db1m).
cat db1m/data.mdb > /dev/null
for threads in 1 2; do
  for r in 1 2 3; do
    echo "== db1m, $threads thread(s), round $r"
    echo "before: $(OMP_NUM_THREADS=$threads ./qd_before db1m 200 before_$threads.txt)"
    echo "after:  $(OMP_NUM_THREADS=$threads ./qd_after db1m 200 after_$threads.txt)"
  done
  python3 "$(dirname "$0")/../fixed_point_2026-12-05/compare_names.py" before_$threads.txt after_$threads.txt
done
