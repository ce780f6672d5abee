#!/bin/sh
# Issue 21, a block's dense words in one pass (double precision, summation order): the library before
# (1fa5df6) and after (3018c31; in output_final.txt 7fbf2ce, whose ranges start on whole groups),
# alternating, three rounds; each process opens the database
# (PostingMemory::Copied), waits for the copy, then times Q queries after 3 warm-up ones
# (../fixed_point_2026-12-05/query_driver.cpp, built by its build.sh against each side's library as
# qd_before and qd_after) on one thread and on both, and writes the answers, which compare_names.py
# compares. The databases: `od make db1m 1000000`, `od make db100k 100000` and `od make db10k 10000`
# (../list_region_2026-12-02/open_driver.cpp). The 2-core VM, warm page cache. Output: output.txt (a
# million images, then spin3), output_100k.txt, output_final.txt (all three databases, 300 queries). spin3.cpp: random reads over 4 GB, nothing of bovw's,
# to show the VM's periodic stalls of such a process.
H=$(cd "$(dirname "$0")" && pwd)
alternate() {  # DB QUERIES
  cat $1/data.mdb > /dev/null
  for threads in 1 2; do
    for r in 1 2 3; do
      echo "== $1, $threads thread(s), round $r"
      echo "before: $(OMP_NUM_THREADS=$threads ./qd_before $1 $2 before_$1_$threads.txt)"
      echo "after:  $(OMP_NUM_THREADS=$threads ./qd_after $1 $2 after_$1_$threads.txt)"
    done
    python3 $H/../fixed_point_2026-12-05/compare_names.py before_$1_$threads.txt after_$1_$threads.txt
  done
}
alternate db1m 200
g++ -O2 $H/spin3.cpp -o spin3 && ./spin3 > spin3.txt
sort -k2 -n spin3.txt | awk 'NR==200{print "spin3 p50",$2} NR==396{print "spin3 p99",$2} END{print "spin3 max",$2}'
awk '{c+=$2; if ($2>2*m && m>0) printf "%d:%.1f ms at %.0f ms; ", $1, $2, c; if (NR==20) m=$2} END{print ""}' spin3.txt
alternate db100k 300
[ -d db10k ] && alternate db10k 300
