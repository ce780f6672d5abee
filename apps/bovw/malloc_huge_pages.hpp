// glibc's malloc in transparent huge pages, for a process that holds a live database for its whole
// life (`bovw serve`). A live database reads its posting lists where its open put them (LMDB's map
// or the open's own huge pages) and copies each into malloc's memory at its first change; at a
// million images the first writes after an open copy gigabytes, which the kernel faults in 4 KiB at a
// time unless malloc asks for huge pages. glibc's tunable glibc.malloc.hugetlb=1 makes it ask (on
// the 2-core VM: the first 200 single-image writes after the open of a million images 6.8-10.4 ->
// 18.3 images/s; docs/PERFORMANCE.md, "Live databases"). glibc reads its tunables only when a
// process starts, hence a restart.
#pragma once

namespace bovw::cli {

// Starts this program again (/proc/self/exe, the same arguments, the same process id) with
// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, unless GLIBC_TUNABLES names glibc.malloc.hugetlb
// already (the user's choice: `GLIBC_TUNABLES=glibc.malloc.hugetlb=0` keeps malloc as it is), this
// process was started so before, or the C library is not glibc 2.35 or later. Returns only where it
// did not restart: nothing to do, or the restart failed (the program goes on as it is).
void restartWithMallocHugePages();

}  // namespace bovw::cli
