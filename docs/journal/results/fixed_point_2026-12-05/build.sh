#!/bin/bash
# build.sh ROOT OUT: query_driver.cpp against ROOT's built library (bovw_live_database_bench's link line).
ROOT=$1; OUT=$2; HERE=$(cd "$(dirname "$0")" && pwd)
LIBS=$(sed 's/.*bovw_live_database_bench  //; s|\.\./\.\./src/libbovw.a|'$ROOT'/build/src/libbovw.a|' \
  $ROOT/build/bench/retrieval/CMakeFiles/bovw_live_database_bench.dir/link.txt)
c++ -O3 -DNDEBUG -std=c++17 -I$ROOT/build/include -I$ROOT/include -I$ROOT/bench/retrieval -isystem /usr/include/eigen3 \
  -isystem /usr/include/opencv4 $HERE/query_driver.cpp -o $OUT $LIBS
