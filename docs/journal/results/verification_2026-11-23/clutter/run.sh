#!/bin/bash
# Clutter sets 5, 6, 7 at K = 1000: plain and verified (top 50), one training seed each; then the
# "scene finds its object" protocol with and without verification.
cd /work/main
for S in 5 6 7; do
  /usr/bin/python3 bench/retrieval/quality_sweep.py /tmp/clutter$S --bovw build/bovw --words 1000 --seeds 1 \
    --index-args=--keypoints "--evaluate-args=--scoring intersection --verify 50" \
    --csv /tmp/clutter-measure/sweep$S.csv --markdown /tmp/clutter-measure/sweep$S.md --log /tmp/clutter-measure/sweep$S.log \
    --work /tmp/clutter-measure/work$S
done
