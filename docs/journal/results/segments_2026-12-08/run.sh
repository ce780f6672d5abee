#!/bin/bash
# Issue 21: the images added after a checkpoint in a segment of the index of their own (589168e)
# against the lists they change copied (1be0f2b). Both sides' drivers built by build.sh. db1m_after:
# 1,000,000 synthetic images with a checkpoint and 120,000 added after it (../norms_blocks_2026-12-07/);
# db1m_w: a million images and some thousands after its checkpoint, 3,000 more added by each bds run.
# Warm page cache, the 2-core VM alone. `od2 open DB 0`: the open as `bovw search` opens (Mapped);
# `WAIT=1 od2 query DB 300`: Copied, as `bovw serve` opens, waited for its copy, then 300 queries
# (intersection, top 10); `bds DB 1000 3`: a Mapped open and three writes of 1,000 images.
cat db1m_after/data.mdb > /dev/null
for r in 1 2 3; do for v in before after; do
  echo "$v open, Mapped: $(MAPPED=1 ./$v/od2 open db1m_after 0 | head -1 | cut -d';' -f1-2)"; done; done
for r in 1 2; do for v in before after; do
  echo "$v Copied, queries: $(WAIT=1 ./$v/od2 query db1m_after 300 | grep -v '^open\|first' | tr '\n' ' ')"; done; done
for r in 1 2; do for v in before after; do
  echo "$v Mapped, queries: $(MAPPED=1 ./$v/od2 query db1m_after 300 | grep -v '^open\|first' | tr '\n' ' ')"; done; done
cat db1m_w/data.mdb > /dev/null
for r in 1 2; do for v in before after; do echo "$v writes: $(./$v/bds db1m_w 1000 3 | tr '\n' ' ')"; done; done
