#!/bin/bash
# build.sh ROOT OUT: the query driver against ROOT's built library.
ROOT=$1; OUT=$2
LIBS=$(cat $ROOT/build/bench/retrieval/CMakeFiles/bovw_live_database_bench.dir/link.txt | sed 's/.*bovw_live_database_bench  //; s|\.\./\.\./src/libbovw.a|'$ROOT'/build/src/libbovw.a|')
c++ -O3 -DNDEBUG -std=c++17 -I$ROOT/build/include -I$ROOT/include -I$ROOT/bench/retrieval -isystem /usr/include/eigen3 /tmp/qd/qd2.cpp -o $OUT $LIBS
