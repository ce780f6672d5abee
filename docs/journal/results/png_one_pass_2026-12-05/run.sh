#!/usr/bin/env bash
# PNGs checked and decoded in one libpng pass (issue 25), the 2-core VM, 2026-12-05 late.
# Usage: run.sh BEFORE_BUILD AFTER_BUILD WORK   (builds of e6bd2cb and of the change; WORK: a scratch folder)
# The set: the quick start's 91 images as PNGs (opencv-doc's 59 JPEGs re-encoded by OpenCV, its 32 PNGs).
set -euo pipefail
before=$(realpath "$1"); after=$(realpath "$2"); work=$(realpath -m "$3")
data=/usr/share/doc/opencv-doc/examples/data
mkdir -p "$work/png"
/usr/bin/python3 -c "
import cv2, glob, os, shutil
for p in glob.glob('$data/*.jpg'):
    cv2.imwrite('$work/png/' + os.path.basename(p)[:-4] + '.png', cv2.imread(p, cv2.IMREAD_UNCHANGED))
for p in glob.glob('$data/*.png'):
    shutil.copy(p, '$work/png/doc_' + os.path.basename(p))
"
echo "== decode-only, bovw_decode_bench --rounds 5, alternating"
for round in 1 2; do
  for side in before after; do
    build=$([[ $side == before ]] && echo "$before" || echo "$after")
    echo "$side: $("$build/bench/surf/bovw_decode_bench" --rounds 5 "$work/png" 2>&1 | tail -1)"
  done
done
echo "== one-shot search of graf1.png (the quick start's vocabulary and index), the query's decode"
"$after/bovw" train "$data" --words 500 --max-descriptors 100000 --seed 1 --output "$work/vocabulary.bovw" --quiet
"$after/bovw" index "$data" --vocabulary "$work/vocabulary.bovw" --keypoints --output "$work/index.bovwdb" --quiet
for round in 1 2 3; do
  for side in before after; do
    build=$([[ $side == before ]] && echo "$before" || echo "$after")
    echo "$side: $("$build/bovw" search --index "$work/index.bovwdb" --top 5 "$data/graf1.png" --profile 2>&1 | grep -o 'workers (1) decoded [0-9.]* s')"
  done
done
echo "== files to histograms on the 91 PNGs, default flags (this VM: the CPU path)"
for round in 1 2; do
  for side in before after; do
    build=$([[ $side == before ]] && echo "$before" || echo "$after")
    start=$(date +%s.%N)
    "$build/bovw" histogram --images "$work/png" --vocabulary "$work/vocabulary.bovw" --output "$work/h_$side.npy" --quiet > /dev/null
    echo "$side: $(python3 -c "print(round(91 / ($(date +%s.%N) - $start), 2))") images/s"
  done
done
cmp "$work/h_before.npy" "$work/h_after.npy" && echo "histograms identical"
