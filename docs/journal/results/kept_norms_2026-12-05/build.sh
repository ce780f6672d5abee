#!/bin/bash
# build.sh ROOT: the drivers against ROOT's built library (bovw_live_database_bench's link line):
# open_driver (../list_region_2026-12-02/open_driver.cpp: `make DB N`), copy_driver
# (../background_copy_2026-12-02/copy_driver.cpp: an open, then the first query and 200 more) and
# strip_norms, norms_time.
ROOT=$1; HERE=$(cd "$(dirname "$0")" && pwd)
LIBS=$(sed 's/.*bovw_live_database_bench  //; s|\.\./\.\./src/libbovw.a|'$ROOT'/build/src/libbovw.a|' \
  $ROOT/build/bench/retrieval/CMakeFiles/bovw_live_database_bench.dir/link.txt)
FLAGS="-O3 -DNDEBUG -std=c++17 -I$ROOT/build/include -I$ROOT/include -I$ROOT/src -I$ROOT/bench/retrieval -isystem /usr/include/eigen3 -isystem /usr/include/opencv4"
c++ $FLAGS $HERE/../list_region_2026-12-02/open_driver.cpp -o od $LIBS
c++ $FLAGS $HERE/../background_copy_2026-12-02/copy_driver.cpp -o cd $LIBS
c++ $FLAGS $HERE/strip_norms.cpp -o strip $LIBS
c++ $FLAGS $HERE/norms_time.cpp -o nt $LIBS
