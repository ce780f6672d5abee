#!/bin/bash
# Issue 21: the moments' pass from every posting (IncrementalNorms) by larger blocks of images, with
# dense lists read without a test per id and lists with nothing in a block passed over unread.
# before: f4dabbc, after: a92573f; both sides' drivers built by ../kept_norms_2026-12-05/build.sh
# (before/ holds the earlier build). db1m: `od make db1m 1000000` (a checkpoint at the end);
# db1m_after: a copy of it with `od add db1m_after 120000` (written after the checkpoint);
# db100k: `od make db100k 100000`. Warm page cache, the 2-core VM alone.
# Block sizes (32,768 / 65,536 / 131,072 / 262,144 at a million) were tried by editing the constant
# and running `./nt db1m` after each build; their figures are in output.txt.
for db in db1m db100k; do
  cat $db/data.mdb > /dev/null
  for r in 1 2; do for b in before/nt ./nt; do echo "$db $b: $($b $db | grep fresh | awk '{print $3}' | tr '\n' ' ')"; done; done
done
cat db1m_after/data.mdb > /dev/null
for r in 1 2 3; do for b in before/od ./od; do echo "db1m_after $b Mapped: $(MAPPED=1 $b open db1m_after 0 2>&1 | head -1 | cut -d, -f1)"; done; done
for b in ./od before/od; do
  MAPPED=1 perf record -o o.perf $b open db1m_after 0 > o.txt 2>&1
  echo "perf of $b: $(head -1 o.txt | cut -d, -f1)"; perf report -i o.perf --no-children --sort sym 2>/dev/null | grep -E "addPostings|clear_page|Samples" | head -3
done
# The writer's shift: batches_driver.cpp built as above against each side.
cat db1m_w/data.mdb > /dev/null
for r in 1 2 3; do echo "before: $(before/bds db1m_w 1000 3 | tr '\n' ' ')"; echo "after:  $(./bds db1m_w 1000 3 | tr '\n' ' ')"; done
# Replacements (PUT of an existing name) at the library: ../replace_2026-12-02/replace_driver.cpp built
# against f4dabbc (before/rd) and the final code (./rd); replace_output.txt.
for k in 4096 1000; do for r in 1 2; do
  echo "== before K=$k"; before/rd 20000 300 $k | grep -E "alone|beside a"
  echo "== after K=$k"; ./rd 20000 300 $k | grep -E "alone|beside a"
done; done
