// glibc's malloc in transparent huge pages, for a process that writes a large live database: `bovw
// serve`, which holds one for its whole life, and `bovw add` or `bovw remove` where their write is due
// to write the checkpoint (LiveDatabase::checkpointDue). The checkpoint goes through LMDB's dirty
// pages, which LMDB takes from malloc: gigabytes at a million images, which the kernel faults in 4 KiB
// at a time unless malloc asks for huge pages (on the 2-core VM the checkpoint of 1,120,000 images took
// 23.4-25.4 s in small pages, 11.4-11.9 s in huge ones); a server's added images' lists and the lists
// its removals copy are in malloc's memory too. glibc's tunable glibc.malloc.hugetlb=1 makes it ask;
// glibc reads its tunables only when a process starts, hence a restart.
#pragma once

namespace bovw::cli {

// Starts this program again (/proc/self/exe, the same arguments, the same process id) with
// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, unless GLIBC_TUNABLES names glibc.malloc.hugetlb
// already (the user's choice: `GLIBC_TUNABLES=glibc.malloc.hugetlb=0` keeps malloc as it is), this
// process was started so before, or the C library is not glibc 2.35 or later. Returns only where it
// did not restart: nothing to do, or the restart failed (the program goes on as it is).
void restartWithMallocHugePages();

}  // namespace bovw::cli
