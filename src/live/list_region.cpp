#include "live/list_region.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace bovw::live_detail {
namespace {

std::size_t roundUp(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

ListRegion::ListRegion(std::size_t capacity) : memory_(capacity), capacity_(capacity) {
  on_page_.assign(memory_.size() / kPage, 0);
}

ListRegion::ListRegion(const std::vector<std::size_t>& sizes)
    : ListRegion(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0},
                                 [](std::size_t sum, std::size_t size) { return sum + roomFor(size); })) {
  offsets_.reserve(sizes.size());
  sizes_.reserve(sizes.size());
  held_.reserve(sizes.size());
  for (std::size_t size : sizes) place(size);
}

std::size_t ListRegion::place(std::size_t size) {
  const std::size_t offset = roundUp(end_, kAlignment);
  if (size > 0 && offset + size > capacity_)
    throw std::length_error("a list region of " + std::to_string(capacity_) + " bytes has no room for " +
                            std::to_string(size) + " more at " + std::to_string(offset));
  offsets_.push_back(offset);
  sizes_.push_back(size);
  held_.push_back(1);
  ++held_lists_;
  if (size > 0) {
    end_ = offset + size;
    for (std::size_t page = offset / kPage; page <= (end_ - 1) / kPage; ++page)
      if (on_page_[page]++ == 0) ++held_pages_;
  }
  return offsets_.size() - 1;
}

void ListRegion::release(std::size_t list) noexcept {
  if (!held_[list]) return;
  held_[list] = 0;
  --held_lists_;
  if (sizes_[list] == 0) return;
  // The pages only this list lay on, in runs: one call each.
  const std::size_t first = offsets_[list] / kPage, last = (offsets_[list] + sizes_[list] - 1) / kPage;
  for (std::size_t page = first; page <= last;) {
    if (--on_page_[page] != 0) {
      ++page;
      continue;
    }
    std::size_t end = page + 1;
    while (end <= last && on_page_[end] == 1) on_page_[end++] = 0;
    held_pages_ -= end - page;
    ::madvise(memory_.data() + page * kPage, (end - page) * kPage, MADV_DONTNEED);  // nothing reads these pages now
    page = end;
  }
}

}  // namespace bovw::live_detail
