// A word's posting list in memory: the images that hold the word, ascending, with their counts, in
// 6 bytes a posting.
#pragma once

#include <bovw/inverted_index.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bovw::index_detail {

// One word's postings, 6 bytes each (issue 21: 8 bytes and more before): the image ids, ascending,
// and beside them their counts (> 0) in 16 bits. A count that does not fit, kLargeCount (65,535) or
// more, is stored as kLargeCount with the true count in `large_`, by id: a word seen 65,535 times in
// one image is beyond any real image (it takes that many descriptors of one word), so the side list is
// empty in practice, but such counts stay exact and every file readable. Two arrays rather than one
// of 6-byte structs: the pruned query (inverted_index.cpp) binary-searches the ids alone.
class PostingList {
 public:
  static constexpr std::uint16_t kLargeCount = 0xffff;

  std::size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  const ImageId* ids() const { return ids_.data(); }
  const std::uint16_t* counts() const { return counts_.data(); }
  ImageId image(std::size_t i) const { return ids_[i]; }
  std::int32_t count(std::size_t i) const {
    return counts_[i] != kLargeCount ? counts_[i] : largeCount(ids_[i]);
  }
  // The count of `image` given its stored 16-bit value (the hot loops read counts() directly).
  std::int32_t count(ImageId image, std::uint16_t stored) const {
    return stored != kLargeCount ? stored : largeCount(image);
  }
  // The position of the first id >= `image`, from `from` on (ids ascending): an exponential then a
  // binary search, so that a run of ascending look-ups costs about log of each gap.
  std::size_t seek(ImageId image, std::size_t from = 0) const {
    const std::size_t n = ids_.size();
    if (from >= n || ids_[from] >= image) return from;
    // ids_[from] < image: double the step until an id >= image (or the end) is passed.
    std::size_t low = from, step = 1, high = from + 1;
    while (high < n && ids_[high] < image) {
      low = high;
      step *= 2;
      high = low + step;
    }
    if (high > n) high = n;
    // ids_[low] < image <= ids_[high] (or high == n).
    return static_cast<std::size_t>(
        std::lower_bound(ids_.data() + low + 1, ids_.data() + high, image) - ids_.data());
  }

  // `image` above every id in the list; count > 0.
  void push_back(ImageId image, std::int32_t count) {
    if (count >= kLargeCount || ids_.size() == ids_.capacity() || counts_.size() == counts_.capacity())
      return pushBackSlow(image, count);
    ids_.push_back(image);
    counts_.push_back(static_cast<std::uint16_t>(count));
  }
  void pop_back();
  // Removes the posting at position i.
  void erase(std::size_t i);
  // Removes the postings whose image `drop` selects; returns whether any was removed.
  template <typename Drop>
  bool eraseIf(Drop&& drop) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      if (drop(ids_[i])) continue;
      ids_[kept] = ids_[i];
      counts_[kept] = counts_[i];
      ++kept;
    }
    if (kept == ids_.size()) return false;
    ids_.resize(kept);
    counts_.resize(kept);
    if (large_) {
      large_->erase(std::remove_if(large_->begin(), large_->end(), [&](const Large& l) { return drop(l.image); }),
                    large_->end());
      if (large_->empty()) large_.reset();
    }
    return true;
  }
  void reserve(std::size_t n) {
    ids_.reserve(n);
    counts_.reserve(n);
  }
  // Bytes the list holds on the heap (capacity, not size).
  std::size_t heapBytes() const {
    return ids_.capacity() * sizeof(ImageId) + counts_.capacity() * sizeof(std::uint16_t) +
           (large_ ? sizeof(*large_) + large_->capacity() * sizeof(Large) : 0);
  }

 private:
  struct Large {
    ImageId image;
    std::int32_t count;
  };
  std::int32_t largeCount(ImageId image) const;
  void pushBackSlow(ImageId image, std::int32_t count);  // growing the arrays, or a large count

  std::vector<ImageId> ids_;
  std::vector<std::uint16_t> counts_;
  // Counts >= kLargeCount, ids ascending; null when there is none (nearly always): 8 bytes a word, not 24.
  std::unique_ptr<std::vector<Large>> large_;
};

}  // namespace bovw::index_detail
