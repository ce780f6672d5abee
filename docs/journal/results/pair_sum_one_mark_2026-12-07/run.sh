#!/bin/sh
# Issue 22: HammingScorer::pairSum's path for a visit with one marked feature. dd_before: 62b95f0,
# dd_after: the change; both ../resident_signatures_2026-12-07/device_driver.cpp linked against each
# side's libbovw.a (the recipe in that file's header). The VM's serving database of 100,000 images
# (bench/serve/bovw_serving_database --keypoints, K = 16,384 trained on the 59 JPEGs), one thread,
# the scan on the host, 59 queries x 2 at verify 0 and 50, three rounds alternating; then the
# results of the two sides compared byte for byte.
for r in 1 2 3; do for s in before after; do
  echo "$s: $(OMP_NUM_THREADS=1 ./dd_$s db-100000.bovwlive jpegs 2 host r_$s.txt 2>&1 | tail -2 | tr '\n' ' ')"
done; done
cmp r_before.txt r_after.txt && echo identical
