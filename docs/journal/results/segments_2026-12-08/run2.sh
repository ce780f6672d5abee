#!/bin/bash
# Part two, after run.sh, the same drivers and databases (before/ and after/ also hold
# ../background_copy_2026-12-02/copy_driver.cpp built against each side, as `cd`, by
# ../kept_norms_2026-12-05/build.sh): the first answers after a Copied open with an eighth written after
# the checkpoint (`cd early DB 200`: open, then 200 queries beside the copy), and the writer's
# checkpoint of such a database (`od2 checkpoint`, on a fresh copy of it each time: the checkpoint
# changes it), whose lists are now merged from two segments as they are written.
cat db1m_after/data.mdb > /dev/null
for r in 1 2; do for v in before after; do echo "$v early: $(./$v/cd early db1m_after 200 | tr '\n' ' ')"; done; done
for r in 1 2; do for v in before after; do
  rm -rf ck && cp -r db1m_after/ ck && cat ck/data.mdb > /dev/null
  echo "$v checkpoint: $(./$v/od2 checkpoint ck 0 | tail -1)"
done; done
rm -rf ck
