#!/bin/bash
# build.sh ROOT: open_driver (../list_region_2026-12-02/open_driver.cpp, copied beside it: `make DB N`, `add DB M`) and
# add_driver against ROOT's built library (bovw_live_database_bench's link line).
ROOT=$1; HERE=$(cd "$(dirname "$0")" && pwd)
LIBS=$(sed 's/.*bovw_live_database_bench  //; s|\.\./\.\./src/libbovw.a|'$ROOT'/build/src/libbovw.a|' \
  $ROOT/build/bench/retrieval/CMakeFiles/bovw_live_database_bench.dir/link.txt)
FLAGS="-O3 -DNDEBUG -std=c++17 -I$ROOT/build/include -I$ROOT/include -I$ROOT/src -I$ROOT/bench/retrieval -isystem /usr/include/eigen3 -isystem /usr/include/opencv4"
c++ $FLAGS $HERE/../list_region_2026-12-02/open_driver.cpp -o od $LIBS
c++ $FLAGS $HERE/add_driver.cpp -o ad $LIBS
