#!/usr/bin/env bash
# The README's main job: train a visual vocabulary on the sample images of Debian's opencv-doc
# package, index them, and search with a few images that have a partner in the set (box / box in a
# scene, graffiti from two viewpoints, ...). Results: OUT/results.csv and OUT/results.html.
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
"$bovw" index "$images" --vocabulary "$out/vocabulary.bovw" --output "$out/index.bovwdb"
queries=()
for q in box_in_scene.png graf3.png leuvenB.jpg aero3.jpg basketball2.png rubberwhale2.png; do
  [ -f "$images/$q" ] && queries+=("$images/$q")
done
"$bovw" search --index "$out/index.bovwdb" --top 5 --format csv --output "$out/results.csv" "${queries[@]}"
"$bovw" search --index "$out/index.bovwdb" --top 5 --format html --output "$out/results.html" "${queries[@]}"

echo
echo "Top matches (rank 1 is the query itself: it is in the indexed folder too):"
# awk (in every Debian) rather than column(1), which a minimal install lacks.
awk -F, '{ printf "%-22s %-5s %-24s %s\n", $1, $2, $3, $4 }' "$out/results.csv" | head -40
echo
echo "Results: $out/results.csv, and $out/results.html (open it in a browser: thumbnails with scores)."
echo "Vocabulary: $out/vocabulary.bovw; searchable index: $out/index.bovwdb"
