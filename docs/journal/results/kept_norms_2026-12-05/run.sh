#!/bin/sh
# Issue 21: the default scoring's norms kept in the checkpoint, on the 2-core VM, warm page cache,
# one open per process. The same library on both sides: `*_nonorms` is a copy of the database whose
# checkpoint lost its "norms" entry (strip_norms), which opens as every open did before (no kept
# norms: the Copied open's thread computes them from every posting before it copies, and a query that
# comes first waits for them; a Mapped open's first query computes them). Binaries: build.sh.
set -e
[ -d db100k ] || ./od make db100k 100000
[ -d db1m ] || ./od make db1m 1000000
# An eighth of a million written after the checkpoint, in writes of 1,000 (below the writers' rule:
# no checkpoint of their own): the open then moves the kept norms by nearly every list.
[ -d db1m_after ] || { cp -r db1m db1m_after; ./od add db1m_after 120000; }
for db in db100k db1m db1m_after; do
  [ -d ${db}_nonorms ] || { cp -r $db ${db}_nonorms; ./strip ${db}_nonorms; }
done
for db in db100k db1m db1m_after; do
  cat $db/data.mdb ${db}_nonorms/data.mdb > /dev/null
  for r in 1 2 3; do
    echo "== $db round $r (Copied: the open, then the first query and 200 more beside the copy)"
    echo "kept:     $(./cd early $db 200 | tr '\n' ' ')"
    echo "not kept: $(./cd early ${db}_nonorms 200 | tr '\n' ' ')"
    echo "== $db round $r (Mapped, as bovw search opens: the open, the first query and 20 more)"
    echo "kept:     $(MAPPED=1 ./cd early $db 20 | tr '\n' ' ')"
    echo "not kept: $(MAPPED=1 ./cd early ${db}_nonorms 20 | tr '\n' ' ')"
  done
done
