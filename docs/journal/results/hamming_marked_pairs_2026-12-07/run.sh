#!/usr/bin/env bash
# Hamming ranking at 100,000 images on the 2-core VM (2026-12-07, fifth session): the library before
# (41a35a7) and after (only an image's marked features paired), each linked into query_driver.cpp
# (docs/journal/results/hamming_popcnt_2026-11-27/query_driver.cpp, as it was)
# (qd-before, qd-after); one process at a time on core 1, alternating, three rounds; 59 queries (the
# opencv-doc JPEGs) x 5 rounds each, top 10, no verification, the default scoring (hamming20+log).
# The database: bench/serve's recipe, K = 16,384 trained on the 59 JPEGs, 100,000 images with keypoints:
#   bovw train /tmp/sv/jpegs --words 16384 --seed 1 --output /tmp/sv/vocabulary.bovw
#   bovw_serving_database --vocabulary /tmp/sv/vocabulary.bovw --samples /tmp/sv/jpegs --images 100000 \
#     --output /tmp/sv/db-100000.bovwlive --keypoints
# Built as: g++ -O2 -std=c++17 -fopenmp -Iinclude -Ibuild/include $(pkg-config --cflags opencv4 eigen3) \
#   query_driver.cpp -o qd-after build/src/libbovw.a $(pkg-config --libs eigen3 OpenCL opencv4 zlib libjpeg \
#   libpng yaml-0.1 pugixml lmdb)
for r in 1 2 3; do for b in before after; do
  echo "round $r $b: $(OMP_NUM_THREADS=1 taskset -c 1 ./qd-$b /tmp/sv/db-100000.bovwlive /tmp/sv/jpegs 0 5 2>/dev/null)"
done; done
