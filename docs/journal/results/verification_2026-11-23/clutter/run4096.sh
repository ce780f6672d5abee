#!/bin/bash
cd /work/main
for S in 5 6 7; do
  nice /usr/bin/python3 bench/retrieval/quality_sweep.py /tmp/clutter$S --bovw build/bovw --words 4096 --seeds 1 \
    --index-args=--keypoints "--evaluate-args=--scoring intersection --verify 50" "--train-args=--backend openmp-tiled" \
    --csv /tmp/clutter-measure/sweep4096-$S.csv --markdown /tmp/clutter-measure/sweep4096-$S.md --log /tmp/clutter-measure/sweep4096-$S.log \
    --work /tmp/clutter-measure/work4096-$S
done
