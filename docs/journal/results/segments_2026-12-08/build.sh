#!/bin/bash
# build.sh ROOT OUT: the open driver (../list_region_2026-12-02/open_driver.cpp, with a wait for the
# Copied lists under WAIT=1 and the segments' lists where it reads the index's data) and the batches
# driver (../parallel_norm_shift_2026-12-05/batches_driver.cpp) against ROOT's built library, into OUT.
ROOT=$1; OUT=$2; HERE=$(cd "$(dirname "$0")" && pwd); mkdir -p $OUT
LIBS=$(sed 's/.*bovw_live_database_bench  //; s|\.\./\.\./src/libbovw.a|'$ROOT'/build/src/libbovw.a|' \
  $ROOT/build/bench/retrieval/CMakeFiles/bovw_live_database_bench.dir/link.txt)
FLAGS="-O3 -DNDEBUG -std=c++17 -I$ROOT/build/include -I$ROOT/include -I$ROOT/src -I$ROOT/bench/retrieval -isystem /usr/include/eigen3 -isystem /usr/include/opencv4"
sed 's|  const double open = since(t);|  const double open = since(t);\n  if (getenv("WAIT")) { auto w = Clock::now(); live.waitForCopiedLists(); printf("copied in %.2f s more\\n", since(w)); }|' \
  $HERE/../list_region_2026-12-02/open_driver.cpp > $OUT/od2.cpp
if grep -q "segments" $ROOT/src/index/index_data.hpp; then
  sed -i 's|for (auto& list : data.postings)|for (auto\& segment : data.segments) for (auto\& list : segment.lists)|' $OUT/od2.cpp
fi
c++ $FLAGS $OUT/od2.cpp -o $OUT/od2 $LIBS
c++ $FLAGS $HERE/../parallel_norm_shift_2026-12-05/batches_driver.cpp -o $OUT/bds $LIBS
