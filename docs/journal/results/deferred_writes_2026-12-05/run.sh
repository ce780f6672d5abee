#!/bin/sh
# Issue 21: what `bovw add` pays past its features at a million images, before (a Mapped open, as
# bovw add opened until this change) and after (a Deferred open), the same library, alternating, one
# open and one durable write per process, warm page cache. db1m: 1,000,000 synthetic images and a
# checkpoint (open_driver `make`); db1m_after: the same with 100,000 more written after the
# checkpoint (open_driver `add`), below the writers' rule (an eighth), so no run writes a checkpoint.
for db in db1m db1m_after; do
  cat $db/data.mdb > /dev/null
  for m in 1000 1; do
    for r in 1 2 3; do
      echo "$db, round $r: $(./ad $db mapped $m)"
      echo "$db, round $r: $(./ad $db deferred $m)"
    done
  done
done
