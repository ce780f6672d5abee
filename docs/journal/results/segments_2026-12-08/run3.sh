#!/bin/bash
# Part three: the writer's checkpoint of db1m_after (1,120,000 images, 120,000 of them in the second
# segment once opened), before (1be0f2b), after (589168e: each word's lists merged into a copy, then
# written) and merged/ (7e035c7: written as one raw form straight into the store's pages), each built
# by build.sh; a fresh copy of the database for each (the checkpoint changes it). Two rounds of wall
# time, then two with the process's CPU seconds (the open included).
for r in 1 2; do for v in before after merged; do
  rm -rf ck && cp -r db1m_after/ ck && cat ck/data.mdb > /dev/null
  echo "$v checkpoint: $(./$v/od2 checkpoint ck 0 | tail -1)"
done; done
for r in 1 2; do for v in before after merged; do
  rm -rf ck && cp -r db1m_after/ ck && cat ck/data.mdb > /dev/null
  echo "$v: $( { /usr/bin/time -f 'cpu user %U s sys %S s' ./$v/od2 checkpoint ck 0 | tail -1; } 2>&1 | tr '\n' ' ')"
done; done
rm -rf ck
