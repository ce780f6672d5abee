// Anonymous memory asked for in transparent huge pages, for what a live database's open writes
// hundreds of megabytes to gigabytes into once: the lists it copies or changes (ListRegion) and the
// postings of the writes after its checkpoint, sorted by word (WritesAfter). Fresh memory is faulted
// in and cleared by the kernel page by page; on the 2-core VM 2.5 GB took 8.7-10.1 s in 4 KiB pages
// and 2.5-2.7 s in 2 MiB pages (2026-12-05; on 2026-12-02 2.75 GB took 6.8-13.5 s against
// 0.65-0.77 s).
//
// The mapping reserves no memory and no swap (MAP_NORESERVE): only the pages written are taken, so
// a caller may size it for a bound. Huge pages are asked for (madvise MADV_HUGEPAGE), not required:
// where the kernel does not give them (transparent_hugepage "never") the pages are small.
#pragma once

#include <cstddef>

namespace bovw::live_detail {

class HugePages {
 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePages() noexcept = default;
  // At least `bytes` (rounded up to whole huge pages, 2 MiB aligned), zero until written. Throws
  // std::bad_alloc where the address space cannot be mapped.
  explicit HugePages(std::size_t bytes);
  ~HugePages();
  HugePages(HugePages&& other) noexcept;
  HugePages& operator=(HugePages&& other) noexcept;
  HugePages(const HugePages&) = delete;
  HugePages& operator=(const HugePages&) = delete;

  unsigned char* data() const { return base_; }
  // The bytes mapped: the size asked for rounded up to huge pages.
  std::size_t size() const { return size_; }

 private:
  unsigned char* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace bovw::live_detail
