#include "live/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>
#include <utility>

namespace bovw::live_detail {

namespace {

std::size_t roundUp(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

HugePages::HugePages(std::size_t bytes) {
  if (bytes == 0) return;
  size_ = roundUp(bytes, kHugePage);
  // A huge page needs an aligned 2 MiB of the mapping: map one more, keep the aligned part.
  const std::size_t asked = size_ + kHugePage;
  void* memory = ::mmap(nullptr, asked, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  auto* start = static_cast<unsigned char*>(memory);
  base_ = reinterpret_cast<unsigned char*>(roundUp(reinterpret_cast<std::uintptr_t>(start), kHugePage));
  if (base_ > start) ::munmap(start, static_cast<std::size_t>(base_ - start));
  if (start + asked > base_ + size_) ::munmap(base_ + size_, static_cast<std::size_t>(start + asked - (base_ + size_)));
  ::madvise(base_, size_, MADV_HUGEPAGE);  // speed only: without it the pages are small
}

HugePages::~HugePages() {
  if (base_) ::munmap(base_, size_);
}

HugePages::HugePages(HugePages&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)) {}

HugePages& HugePages::operator=(HugePages&& other) noexcept {
  std::swap(base_, other.base_);
  std::swap(size_, other.size_);
  return *this;
}

}  // namespace bovw::live_detail
