#!/bin/bash
# GV_METHOD: a scratch build's hook (not in the library) that passed the OpenCV flag to findHomography;
# the committed option makes the same call (--estimator fast: 35, magsac: 38).
# the verification's estimator: MAGSAC++ (38, today's) against USAC_FAST (35) and USAC_DEFAULT (32),
# evaluate --verify 50 on each quality set, one thread, alternating
B=/work/main/build/bovw
cd /tmp/gq
for round in 1 2; do
for set in ukb-7 ukb-11 ukb-13 clutter-5 clutter-6 clutter-7; do
  for m in 38 35 32; do
    GV_METHOD=$m $B evaluate --index $set.bovwdb --groups $set/GROUPS.csv --verify 50 --threads 1 --quiet --json eval-$set-$m-r$round.json > eval-$set-$m-r$round.txt 2>&1
  done
done
done
echo compare done
