// The memory a live database's open puts its posting lists in when it does not read them where LMDB
// maps them: the checkpoint's lists it copies (PostingMemory::Copied, the default) and, either way,
// the lists the writes after the checkpoint change. One mapping in transparent huge pages
// (huge_pages.hpp), which the lists then read in place, as they read LMDB's map with
// PostingMemory::Mapped. Why not one malloc per list: an open of a million images copies 2.5-2.85 GB
// into fresh memory, several times faster to fault in as huge pages (docs/PERFORMANCE.md, "Live
// databases").
//
// Lists are placed one after another. The mapping is sized for a bound of their bytes (a changed
// list's size is only known once it is made); only the pages lists are written on are taken.
//
// A list's first change copies it out into memory of its own (ListArray's copy on write); the
// region keeps count of the lists on each page, and a page that none of them reads any more is
// given back to the system (madvise MADV_DONTNEED), so that a database whose writers change every
// list holds its lists once, not the open's copy beside them.
#pragma once

#include "live/huge_pages.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bovw::live_detail {

class ListRegion {
 public:
  // Room for lists of `capacity` bytes in all, each counted with its alignment (roomFor). Throws
  // std::bad_alloc where the memory cannot be mapped.
  explicit ListRegion(std::size_t capacity);
  // Room for lists of `sizes` bytes, placed in that order (list i at at(i)).
  explicit ListRegion(const std::vector<std::size_t>& sizes);
  ListRegion(const ListRegion&) = delete;
  ListRegion& operator=(const ListRegion&) = delete;

  // What a list of `size` bytes takes of the capacity: its size and the most its alignment adds.
  static std::size_t roomFor(std::size_t size) { return size + kAlignment - 1; }
  // Places a list of `size` bytes after the last one, at an address aligned to 16 bytes; returns its
  // index. Throws std::length_error where the capacity is exceeded. Not safe beside another call.
  std::size_t place(std::size_t size);

  std::size_t lists() const { return offsets_.size(); }
  unsigned char* at(std::size_t list) const { return memory_.data() + offsets_[list]; }
  std::size_t size(std::size_t list) const { return sizes_[list]; }
  // Whether list `list` is still read here (not yet released).
  bool holds(std::size_t list) const { return held_[list] != 0; }
  // Lists still held.
  std::size_t held() const { return held_lists_; }
  // Bytes of the region's pages still held (those some held list lies on).
  std::size_t heldBytes() const { return held_pages_ * kPage; }

  // List `list` is no longer read (its list was changed, and copied out): its pages that no held
  // list lies on are given back. Releasing a list twice changes nothing. Not safe beside another
  // call of release() (the caller's writer lock orders them); the memory of held lists is untouched.
  void release(std::size_t list) noexcept;

  static constexpr std::size_t kPage = 4096;  // the unit pages are given back in
  static constexpr std::size_t kAlignment = 16;

 private:
  HugePages memory_;
  std::size_t capacity_ = 0;
  std::size_t end_ = 0;            // where the next list goes
  std::vector<std::uint64_t> offsets_;
  std::vector<std::uint64_t> sizes_;
  std::vector<std::uint8_t> held_;        // by list
  std::vector<std::uint16_t> on_page_;    // held lists lying on each page (at most 4096 / 16)
  std::size_t held_lists_ = 0;
  std::size_t held_pages_ = 0;
};

}  // namespace bovw::live_detail
