// A word's posting list in memory: the images that hold the word, ascending, with their counts, in at
// most 6 bytes a posting, in one of two forms chosen by the word's frequency.
#pragma once

#include "index/list_array.hpp"

#include <bovw/inverted_index.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bovw::index_detail {

// Sparse form (issue 21: 8 bytes and more a posting before): the image ids, ascending, and beside
// them their counts (> 0) in a byte, 5 bytes a posting. Two arrays rather than one of 5-byte
// structs: the pruned query binary-searches the ids alone.
//
// Dense form, for a word that at least a fifth of the image ids hold (the common words, whose lists
// make most of a query's postings): one count byte per image id, 0 where the image lacks the word,
// so at most 5 bytes a posting when chosen and 6 before the list goes back to the sparse form. The
// exhaustive query adds such a list to a block of images with vector instructions and no
// indirection (dense_accumulate.hpp), several times faster a posting than the sparse form's
// scattered additions.
//
// A count of 255 or more is stored as 255, the large mark, with the true count in a side list by
// id: rare (a word seen 255 times in one image), but every count stays exact. The sparse form's
// counts were 16-bit until 2026-11-28: one byte less a posting, and a query's sparse loop no longer
// tells a large count from a tabled one at every posting (about 5% of a query at a million images,
// issue 21).
// Which of an index's image ids are live, one bit each (a million ids in 125 KB, which the cache
// holds): what PostingList::fromRaw checks every posting against.
class LiveIds {
 public:
  explicit LiveIds(std::size_t ids) : bits_((ids + 63) / 64, 0), size_(ids) {}
  void set(std::size_t id) { bits_[id / 64] |= std::uint64_t{1} << (id % 64); }
  // 1 if `id` (below size()) is live, else 0.
  std::uint64_t operator[](std::size_t id) const { return bits_[id / 64] >> (id % 64) & 1; }
  std::size_t size() const { return size_; }
  std::uint64_t count() const;

 private:
  std::vector<std::uint64_t> bits_;
  std::size_t size_;
};

class PostingList {
 public:
  static constexpr std::uint8_t kLargeMark = 0xff;  // both forms' stored count of 255 and more
  static constexpr ImageId kNoImage = 0xffffffff;  // above every id (kMaxIds keeps it free)

  std::size_t size() const { return dense_ ? dense_->size : ids_.size(); }
  bool empty() const { return size() == 0; }
  bool dense() const { return dense_ != nullptr; }

  // Sparse form only: the ids, ascending, and their stored counts.
  const ImageId* ids() const { return ids_.data(); }
  const std::uint8_t* counts() const { return counts_.data(); }
  // Whether some stored count is the large mark (its true count in the side list).
  bool hasLargeCounts() const { return large_ != nullptr; }
  // Dense form only: stored counts by image id for ids below denseSpan(); the ids beyond hold nothing.
  const std::uint8_t* denseCounts() const { return dense_->counts.data(); }
  std::size_t denseSpan() const { return dense_->counts.size(); }

  // The true count of `image` given its stored value in either form (the hot loops read the arrays).
  std::int32_t count(ImageId image, std::uint32_t stored) const {
    return stored != kLargeMark ? static_cast<std::int32_t>(stored) : largeCount(image);
  }

  // Calls f(image, count) for every posting, ids ascending.
  template <typename F>
  void forEach(F&& f) const {
    forEachBelow(0, kNoImage, f);
  }
  // Calls f(image, count) for the postings from position `from` (an id in the dense form) whose image
  // is below `end`, ids ascending; returns the position after them.
  template <typename F>
  std::size_t forEachBelow(std::size_t from, ImageId end, F&& f) const {
    if (dense_) {
      const ListArray<std::uint8_t>& counts = dense_->counts;
      const std::size_t last = std::min<std::size_t>(end, counts.size());
      for (std::size_t id = from; id < last; ++id)
        if (counts[id] != 0) f(static_cast<ImageId>(id), count(static_cast<ImageId>(id), counts[id]));
      return std::max(from, last);
    }
    std::size_t i = from;
    for (; i < ids_.size() && ids_[i] < end; ++i) f(ids_[i], count(ids_[i], counts_[i]));
    return i;
  }

  // The position of the first posting whose image is `first` or above: an index into ids() in the
  // sparse form, the id itself in the dense one (where forEachBelow and the query loops start).
  std::size_t positionOf(ImageId first) const {
    return dense_ ? first : static_cast<std::size_t>(std::lower_bound(ids_.begin(), ids_.end(), first) - ids_.begin());
  }
  // The count of `image`, 0 if the list does not hold it. For a run of look-ups with ascending ids
  // pass the same `cursor` (0 at first): the sparse form then searches forwards from the last one
  // found, exponentially then binary, about log of each gap.
  std::int32_t countOf(ImageId image, std::size_t& cursor) const;
  std::int32_t countOf(ImageId image) const {
    std::size_t cursor = 0;
    return countOf(image, cursor);
  }

  // `image` above every id in the list; count > 0.
  void push_back(ImageId image, std::int32_t count) {
    if (dense_ || count >= kLargeMark || ids_.spare() == 0 || counts_.spare() == 0) return pushBackSlow(image, count);
    ids_.push_back(image);
    counts_.push_back(static_cast<std::uint8_t>(count));
  }
  // Appends `later`'s postings under their ids plus `offset`, which is above every id here: in one
  // copy of each array where both lists have the same form (a dense list's count bytes shifted whole).
  void append(const PostingList& later, ImageId offset);
  // Removes the posting with the largest id.
  void pop_back();
  // Removes the posting of `image`, which the list holds.
  void remove(ImageId image);
  // Removes the postings whose image `drop` selects.
  template <typename Drop>
  void eraseIf(Drop&& drop) {
    if (dense_) {
      std::uint8_t* counts = dense_->counts.writable();
      for (std::size_t id = 0; id < dense_->counts.size(); ++id)
        if (counts[id] != 0 && drop(static_cast<ImageId>(id))) {
          counts[id] = 0;
          --dense_->size;
        }
    } else {
      ImageId* ids = ids_.writable();
      std::uint8_t* counts = counts_.writable();
      std::size_t kept = 0;
      for (std::size_t i = 0; i < ids_.size(); ++i) {
        if (drop(ids[i])) continue;
        ids[kept] = ids[i];
        counts[kept] = counts[i];
        ++kept;
      }
      ids_.resize(kept);
      counts_.resize(kept);
    }
    if (large_) {
      large_->erase(std::remove_if(large_->begin(), large_->end(), [&](const Large& l) { return drop(l.image); }),
                    large_->end());
      if (large_->empty()) large_.reset();
    }
  }
  // Room for `n` postings in the sparse form (the dense form grows with the ids instead).
  void reserve(std::size_t n) {
    if (dense_) return;
    ids_.reserve(n);
    counts_.reserve(n);
  }
  // Chooses the form for an index of `ids` image ids (removed ones included): dense from a fifth of
  // them, sparse again below a sixth (the gap keeps a word near the limit from switching at every
  // change). Returns whether the form changed; the postings are the same either way.
  bool adapt(std::size_t ids) noexcept;
  // Gives back the capacity beyond the postings (where the allocator can).
  void shrinkToFit() noexcept {
    ids_.shrinkToFit();
    counts_.shrinkToFit();
    if (dense_) dense_->counts.shrinkToFit();
  }
  // The list's arrays as they lie in memory (host byte order), for a live database's checkpoint
  // (live/checkpoint.hpp), which keeps its own checksum: rawSize() bytes, written by writeRaw() and
  // copied back by fromRaw() (posting_list_raw.cpp has the layout).
  std::size_t rawSize() const;
  void writeRaw(unsigned char* out) const;
  // The most rawSize() can be for the list whose raw form is the `size` bytes at `raw` once `added`
  // postings are appended to it, `added_large` of them with a count of 255 or more (and any removed),
  // and it is adapted to `ids` image ids (at least the list's own): what a live database's open makes
  // room for before it makes the list. 0 where the header does not match `size` (fromRaw refuses such
  // bytes).
  static std::size_t rawSizeBound(const unsigned char* raw, std::size_t size, std::size_t added, std::size_t added_large,
                                  std::size_t ids);
  // The list writeRaw() wrote, checked so that bytes from elsewhere cannot make an invalid list:
  // ids strictly increasing and live, counts positive and their large side list matching. Throws
  // InvalidInput (naming no file) for a problem. A sparse list gets room for `room` more postings
  // (those about to be appended: a list grown later is copied whole).
  static PostingList fromRaw(const unsigned char* bytes, std::size_t size, const LiveIds& live, std::size_t room = 0);
  // The same list, checked the same way, reading its arrays in place from `bytes`, which must stay
  // valid and unchanged while it does (until its first change copies them: ListArray). Where `bytes`
  // are not 4-byte aligned (the ids' alignment) the arrays are copied instead.
  static PostingList readInPlace(const unsigned char* bytes, std::size_t size, const LiveIds& live);
  // The raw form of the one list that `parts` make together (lists of disjoint id ranges, ascending:
  // one word's lists in an index's segments), in the form adapt(ids) gives that list from the sparse
  // one, and its size: what a live database's checkpoint stores of an index in segments, written
  // without making that list (written from a merged copy in fresh memory, the checkpoint of 1,120,000
  // images took 25.0-32.6 s on the 2-core VM, this way 23.1-27.9 s, alternating in one run).
  static std::size_t mergedRawSize(const std::vector<const PostingList*>& parts, std::size_t ids);
  static void writeMergedRaw(const std::vector<const PostingList*>& parts, std::size_t ids, unsigned char* out);
  // Writes the raw form at `out` (rawSize() bytes, 16-byte aligned) and reads the list's arrays there
  // from now on, as readInPlace would (without its checks: these are the list's own postings); the
  // memory they were in is given back. `out` must outlive the list's reading of it, as there.
  void moveToRaw(unsigned char* out);
  // Whether the list reads some array in place (readInPlace or moveToRaw, not changed since).
  bool readsInPlace() const { return ids_.borrowed() || counts_.borrowed() || (dense_ && dense_->counts.borrowed()); }

  // Bytes the list holds on the heap (capacity, not size).
  std::size_t heapBytes() const {
    return ids_.heapBytes() + counts_.heapBytes() + (dense_ ? sizeof(*dense_) + dense_->counts.heapBytes() : 0) +
           (large_ ? sizeof(*large_) + large_->capacity() * sizeof(Large) : 0);
  }
  // Bytes the list takes in memory: its heap's and those of the arrays it reads in place.
  std::size_t bytes() const {
    return heapBytes() + ids_.borrowedBytes() + counts_.borrowedBytes() + (dense_ ? dense_->counts.borrowedBytes() : 0);
  }

 private:
  struct Large {
    ImageId image;
    std::int32_t count;
  };
  // adapt()'s rule: dense from a fifth of the ids, sparse again below a sixth.
  static constexpr std::size_t kDenseFrom = 5;
  static constexpr std::size_t kSparseBelow = 6;
  ImageId lastImage() const;  // of a non-empty list
  struct MergedShape {
    std::size_t postings = 0, large = 0, n = 0;  // n: the raw form's entries
    bool dense = false;
  };
  static MergedShape mergedShape(const std::vector<const PostingList*>& parts, std::size_t ids);
  std::int32_t largeCount(ImageId image) const;
  void pushBackSlow(ImageId image, std::int32_t count);  // the dense form, growing the arrays, or a large count
  void eraseLarge(ImageId image);
  void toDense();
  void toSparse();

  static PostingList fromRaw(const unsigned char* bytes, std::size_t size, const LiveIds& live, std::size_t room,
                             bool in_place);

  struct Dense {
    ListArray<std::uint8_t> counts;  // by id
    std::size_t size = 0;              // the postings (non-zero counts)
  };

  ListArray<ImageId> ids_;          // sparse form
  ListArray<std::uint8_t> counts_;  // sparse form
  // The dense form (null for the sparse one) and the counts beyond the form's field (ids ascending;
  // null when there is none) behind pointers: 8 bytes a word each, not 32 and 24, for the many words
  // that have neither.
  std::unique_ptr<Dense> dense_;
  std::unique_ptr<std::vector<Large>> large_;
};

// Every posting of every list, image block by image block: within a block the words ascending and each
// word's images ascending, so that every image still meets its words in ascending order, while the
// arrays by image that f updates stay in the cache. One pass over whole lists reads and writes them at
// random: the first query after loading a million images spent 9.5 s on its normalisers (24 MB of
// them), 2.5-2.9 s by blocks of 131,072 images (3 MB; smaller blocks were slower at 100,000 images).
// f(word, image, count), for lists whose images are in [first, ids).
template <typename F>
void forEachPostingByImageBlock(const std::vector<PostingList>& lists, std::size_t first, std::size_t ids, F&& f,
                                std::size_t block = 131072) {
  std::vector<std::size_t> next(lists.size(), 0);
  for (std::size_t begin = first; begin < ids; begin += block) {
    const auto end = static_cast<ImageId>(std::min(ids, begin + block));
    for (std::size_t w = 0; w < lists.size(); ++w)
      next[w] = lists[w].forEachBelow(next[w], end, [&](ImageId image, std::int32_t count) { f(w, image, count); });
  }
}

}  // namespace bovw::index_detail
