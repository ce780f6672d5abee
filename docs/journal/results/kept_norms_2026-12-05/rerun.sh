#!/bin/sh
# The million images' fresh checkpoint again after the resume skips a checkpoint no write followed.
cat db1m/data.mdb db1m_nonorms/data.mdb > /dev/null
for r in 1 2 3; do
  echo "== db1m round $r (Copied)"
  echo "kept:     $(./cd early db1m 200 | tr '\n' ' ')"
  echo "not kept: $(./cd early db1m_nonorms 200 | tr '\n' ' ')"
  echo "== db1m round $r (Mapped)"
  echo "kept:     $(MAPPED=1 ./cd early db1m 20 | tr '\n' ' ')"
  echo "not kept: $(MAPPED=1 ./cd early db1m_nonorms 20 | tr '\n' ' ')"
done
