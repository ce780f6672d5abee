#!/bin/bash
# Issue 26, weak geometric consistency against plain Hamming embedding (after prepare.sh).
# 1. The bins: a sweep of the angle bins (WGC_A) and the log-scale bin width (WGC_S, in 1/16 octave)
#    through a temporary override of HammingScorer's constants by those variables, in a build made
#    for this sweep only (not committed); the defaults, 16 bins and 8/16 octave, are the committed
#    constants. 2. Both scorings, plain and with the top 50 verified, on every set with the committed
#    build. 3. box.png's rank for box_in_scene.png on the quick start's database.
set -e
B=${B:-/work/h44/build/bovw}
W=${W:-/tmp/h44m}
R=${R:-/work/h44/docs/journal/results/wgc_2026-11-27}
cd $W
sets() { for S in 7 11 13; do echo "K-$S.bovwdb ukb-$S/GROUPS.csv ukb$S"; done
         for S in 5 6 7; do echo "CK-$S.bovwdb clutter$S/GROUPS.csv clutter$S"; done; }
if [ "$1" = sweep ]; then
  for AS in "8 16" "32 8" "16 16"; do
    set -- $AS
    sets | while read DB G NAME; do
      WGC_A=$1 WGC_S=$2 $B evaluate --index $DB --groups $G --quiet --scoring hamming20+log+wgc \
        --json $R/sweep-a$1-s$2-$NAME.json > $R/sweep-a$1-s$2-$NAME.txt
    done
  done
  exit 0
fi
sets | while read DB G NAME; do
  $B evaluate --index $DB --groups $G --verify 50 --quiet --scoring hamming20+log,hamming20+log+wgc \
    --json $R/wgc-$NAME.json > $R/wgc-$NAME.txt
done
I=/usr/share/doc/opencv-doc/examples/data
for s in hamming20+log hamming20+log+wgc; do
  $B search --index quickstart/index.bovwdb --top 91 --scoring $s --output r.csv $I/box_in_scene.png --quiet
  echo "$s: box.png rank $(awk -F, '$3 ~ /\/box.png$/ {print $2}' r.csv)"
done > $R/quickstart.txt
