#!/bin/sh
# Issue 21, the first write after an open at a million images: every list it changes is copied out of
# the memory it was read in (LMDB's map or the open's huge pages) into malloc's, which the VM faults
# in 4 KiB at a time. glibc 2.36's tunable glibc.malloc.hugetlb=1 makes malloc ask for transparent
# huge pages (madvise) on the memory it maps and grows: the same library, the same process, with and
# without it, alternating, three rounds. Driver: ../parallel_norm_shift_2026-12-05/batches_driver.cpp
# (an open as `bovw add` opens, then 3 durable writes of 1,000 synthetic images each, new names each
# run), built against HEAD's libbovw.a as that folder's run.sh says. db: a copy of `od make db1m
# 1000000` (a million synthetic images, a checkpoint at the end); each run adds 3,000 more.
# The 2-core VM, warm page cache. Usage: run.sh (in the folder with bds and db).
cat db/data.mdb > /dev/null
for r in 1 2 3; do
  echo "malloc as is:   $(/usr/bin/time -f 'peak RSS %M KiB' ./bds db 1000 3 2>&1 | tr '\n' ' ')"
  echo "hugetlb=1:      $(GLIBC_TUNABLES=glibc.malloc.hugetlb=1 /usr/bin/time -f 'peak RSS %M KiB' ./bds db 1000 3 2>&1 | tr '\n' ' ')"
done
# The same for 200 single-image writes after the open (a server's PUTs): their total, two rounds.
total() { tr ';' '\n' | awk '/batch/ {s += $3; n++} /open/ {o = $2} END {printf "open %.2f s; %d writes in %.2f s, %.1f images/s", o, n, s, n / s}'; }
for r in 1 2; do
  echo "single, malloc as is: $(./bds db 1 200 | total)"
  echo "single, hugetlb=1:    $(GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ./bds db 1 200 | total)"
done
