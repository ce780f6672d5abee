#!/bin/bash
# run.sh DB: the open of a live database of 1,120,000 images whose checkpoint holds the first
# 1,000,000 (open_driver.cpp of ../list_region_2026-12-02: `make DB 1000000`, then `add DB 120000`),
# before (66f3432: the lists the writes after the checkpoint change made with malloc) and after
# (this session's HEAD: made in a ListRegion per core, in huge pages), alternating, one open per
# process, warm page cache; then 200 single-image writes after a mapped open on each side (these add
# to the database: 400 images a round, against 120,000 written after the checkpoint).
# od_before / od_after: open_driver.cpp built against each side's libbovw.a
# (../kept_norms_2026-12-05/build.sh's command line).
DB=$1
for round in 1 2 3; do
  for side in before after; do
    echo "round $round $side mapped: $(MAPPED=1 ./od_$side open $DB 2>&1 | head -1)"
    echo "round $round $side copied: $(./od_$side open $DB 2>&1 | head -1)"
  done
done
for round in 1 2; do
  for side in before after; do
    echo "round $round $side writes: $(MAPPED=1 ./od_$side writes $DB 200 2>&1 | grep -E 'single writes')"
  done
done
# Then, with batch_driver.cpp built against each side's library as bd_before / bd_after (same
# command line), an open and one batch of 1,000 images, as `bovw add` of a folder does, mapped,
# alternating, two rounds (batch_output.txt):
#   for r in 1 2; do for v in before after; do echo "$v: $(MAPPED=1 ./bd_$v $DB 1000)"; done; done
