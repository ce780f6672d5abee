#!/bin/bash
# Weak geometric consistency after the merge with main's Hamming scoring from the signatures' inverted
# file (WGC now a second phase over the candidates in decreasing Hamming score): the same evaluations
# as ../run.sh on the databases of ../prepare.sh, and the Hamming-cost bench at 10,000 images,
# K = 65,536, main's build (git archive main, built apart) and this one's in turns.
set -e
B=${B:-/work/h44/build/bovw}
W=${W:-/tmp/h44m}
R=${R:-/work/h44/docs/journal/results/wgc_2026-11-27/after_merge}
cd $W
for x in "K-7.bovwdb ukb-7/GROUPS.csv ukb7" "K-11.bovwdb ukb-11/GROUPS.csv ukb11" "K-13.bovwdb ukb-13/GROUPS.csv ukb13" \
         "CK-5.bovwdb clutter5/GROUPS.csv clutter5" "CK-6.bovwdb clutter6/GROUPS.csv clutter6" \
         "CK-7.bovwdb clutter7/GROUPS.csv clutter7"; do
  set -- $x
  $B evaluate --index $1 --groups $2 --verify 50 --quiet --scoring hamming20+log,hamming20+log+wgc \
    --json $R/wgc-$3.json > $R/wgc-$3.txt
done
MAIN=${MAIN:-/work/h44/build/main-src/build/bench/retrieval/bovw_hamming_scoring_bench}
MINE=${MINE:-/work/h44/build/bench/retrieval/bovw_hamming_scoring_bench}
for r in 1 2 3 4; do
  for b in $MAIN $MINE; do echo "== $b round $r"; $b --images 10000 --words 65536 --queries 100; done
done > $R/hamming_scoring_bench.txt
