#!/usr/bin/env bash
# The README's main job: train a visual vocabulary on the sample images of Debian's opencv-doc
# package, index them with their keypoints, and search with a few images that have a partner in the
# set (box / box in a scene, graffiti from two viewpoints, ...), the top 50 of each bag-of-words
# ranking verified geometrically. Results: OUT/results.csv and OUT/results.html.
# Usage: examples/quickstart.sh [OUT_DIR] [IMAGES_DIR]      (after building into ./build)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-quickstart}
images=${2:-/usr/share/doc/opencv-doc/examples/data}
bovw=./build/bovw
[ -x "$bovw" ] || { echo "quickstart: build first (cmake -S . -B build && cmake --build build)" >&2; exit 1; }
[ -d "$images" ] || { echo "quickstart: no images at $images (apt install opencv-doc)" >&2; exit 1; }
mkdir -p "$out"

"$bovw" train "$images" --words 500 --max-descriptors 100000 --seed 1 --output "$out/vocabulary.bovw"
"$bovw" index "$images" --vocabulary "$out/vocabulary.bovw" --keypoints --output "$out/index.bovwdb"
queries=()
for q in box_in_scene.png graf3.png leuvenB.jpg aero3.jpg basketball2.png rubberwhale2.png; do
  [ -f "$images/$q" ] && queries+=("$images/$q")
done
"$bovw" search --index "$out/index.bovwdb" --top 5 --verify 50 --output "$out/results.csv" --output "$out/results.html" \
  "${queries[@]}"
echo
echo "Top matches (rank 1 is the query itself: it is in the indexed folder too; inliers: keypoints"
echo "that one homography maps onto their partners; verified: 12 or more, more than chance gives, on a plausible"
echo "change of view; results.csv says which):"
# awk (in every Debian) rather than column(1), which a minimal install lacks. File names only.
awk -F, 'NR == 1 { printf "%-20s %-5s %-22s %-9s %s\n", "query", "rank", "image", "bow score", "inliers"; next }
         { n = split($1, q, "/"); m = split($3, r, "/"); printf "%-20s %-5s %-22s %-9.3f %s\n", q[n], $2, r[m], $5, $6 }' \
  "$out/results.csv" | head -40
echo
echo "Results: $out/results.csv, and $out/results.html (open it in a browser: thumbnails with scores)."
echo "Vocabulary: $out/vocabulary.bovw; searchable index: $out/index.bovwdb"
