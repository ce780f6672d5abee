// PostingList's raw form: its arrays as they lie in memory, so that a live database opens by reading
// lists in place (or copying them) instead of rebuilding them posting by posting. Host byte order
// (the checkpoint records it); the ids at offset 16, 4-byte aligned where the form starts so:
//
//   u32 form (0 sparse, 1 dense), u32 postings, u32 n (sparse: ids; dense: the span of ids),
//   u32 L (entries of the large-count side list), then
//   sparse: n u32 ids, n u8 counts;   dense: n u8 counts;   (a count of 255 marks a large one)
//   zero bytes up to a multiple of 4, then L times u32 image, i32 count.
#include "index/posting_list.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace bovw::index_detail {

namespace {

constexpr std::uint32_t kSparse = 0, kDense = 1;
constexpr std::size_t kRawHeader = 16;

std::size_t padded(std::size_t bytes) { return (bytes + 3) / 4 * 4; }

template <typename T>
void put(unsigned char*& out, const T* values, std::size_t n) {
  if (n == 0) return;  // an empty vector's data() may be null, which memcpy must not be given
  std::memcpy(out, values, n * sizeof(T));
  out += n * sizeof(T);
}

template <typename T>
void take(const unsigned char*& in, std::vector<T>& values, std::size_t n) {
  values.resize(n);
  if (n == 0) return;
  std::memcpy(values.data(), in, n * sizeof(T));
  in += n * sizeof(T);
}

// `n` values at `in` into `values`: read in place (borrowed) or copied, with room for `room` more.
template <typename T>
void take(const unsigned char*& in, ListArray<T>& values, std::size_t n, bool in_place, std::size_t room = 0) {
  if (!in_place) {
    values.reserve(n + room);
    values.resizeForOverwrite(n);
    if (n > 0) std::memcpy(values.writable(), in, n * sizeof(T));
    in += n * sizeof(T);
    return;
  }
  values.borrow(reinterpret_cast<const T*>(in), n);
  in += n * sizeof(T);
}

[[noreturn]] void refuse(const std::string& problem) { throw InvalidInput("posting list: " + problem); }

}  // namespace

std::uint64_t LiveIds::count() const {
  std::uint64_t live = 0;
  for (std::uint64_t word : bits_) live += static_cast<std::uint64_t>(__builtin_popcountll(word));
  return live;
}

std::size_t PostingList::rawSize() const {
  const std::size_t arrays = dense_ ? dense_->counts.size() : ids_.size() * (sizeof(ImageId) + 1);
  return kRawHeader + padded(arrays) + (large_ ? large_->size() * sizeof(Large) : 0);
}

std::size_t PostingList::rawSizeBound(const unsigned char* raw, std::size_t size, std::size_t added,
                                      std::size_t added_large, std::size_t ids) {
  if (size < kRawHeader) return 0;
  std::uint32_t header[4];
  std::memcpy(header, raw, sizeof header);
  const auto [form, postings, n, large_entries] = header;
  const std::size_t arrays = form == kDense ? std::size_t{n} : std::size_t{n} * (sizeof(ImageId) + 1);
  if ((form != kSparse && form != kDense) || postings > n ||
      size != kRawHeader + padded(arrays) + std::size_t{large_entries} * sizeof(Large))
    return 0;
  // P postings at most. The sparse form takes 5 P bytes; the dense form a byte an id, at most `ids`.
  // A sparse list turns dense only where 5 P reaches `ids` (adapt), so 5 P bounds it either way.
  const std::size_t most = std::size_t{postings} + added;
  const std::size_t bytes = form == kDense ? std::max(5 * most, ids) : 5 * most;
  return kRawHeader + padded(bytes) + (std::size_t{large_entries} + added_large) * sizeof(Large);
}

void PostingList::writeRaw(unsigned char* out) const {
  const std::uint32_t header[4] = {dense_ ? kDense : kSparse, static_cast<std::uint32_t>(size()),
                                   static_cast<std::uint32_t>(dense_ ? dense_->counts.size() : ids_.size()),
                                   static_cast<std::uint32_t>(large_ ? large_->size() : 0)};
  unsigned char* const start = out;
  put(out, header, 4);
  if (dense_) {
    put(out, dense_->counts.data(), dense_->counts.size());
  } else {
    put(out, ids_.data(), ids_.size());
    put(out, counts_.data(), counts_.size());
  }
  while ((out - start) % 4 != 0) *out++ = 0;
  if (large_) put(out, large_->data(), large_->size());
}

PostingList::MergedShape PostingList::mergedShape(const std::vector<const PostingList*>& parts, std::size_t ids) {
  MergedShape shape;
  ImageId last = 0;
  for (const PostingList* part : parts) {
    shape.postings += part->size();
    shape.large += part->large_ ? part->large_->size() : 0;
    if (!part->empty()) last = part->lastImage();
  }
  shape.dense = shape.postings > 0 && kDenseFrom * shape.postings >= ids;
  shape.n = shape.dense ? std::size_t{last} + 1 : shape.postings;
  return shape;
}

std::size_t PostingList::mergedRawSize(const std::vector<const PostingList*>& parts, std::size_t ids) {
  const MergedShape shape = mergedShape(parts, ids);
  const std::size_t arrays = shape.dense ? shape.n : shape.n * (sizeof(ImageId) + 1);
  return kRawHeader + padded(arrays) + shape.large * sizeof(Large);
}

void PostingList::writeMergedRaw(const std::vector<const PostingList*>& parts, std::size_t ids, unsigned char* out) {
  const auto [postings, large, n, dense] = mergedShape(parts, ids);
  const std::uint32_t header[4] = {dense ? kDense : kSparse, static_cast<std::uint32_t>(postings),
                                   static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(large)};
  unsigned char* const start = out;
  put(out, header, 4);
  if (dense) {
    // Each part's count bytes where their ids are; the parts' ids are disjoint.
    std::uint8_t* counts = out;
    std::memset(counts, 0, n);
    for (const PostingList* part : parts) {
      if (part->dense_) {
        const std::uint8_t* from = part->dense_->counts.data();
        const std::size_t span = std::min(n, part->dense_->counts.size());
        for (std::size_t id = 0; id < span; ++id) counts[id] |= from[id];
      } else {
        for (std::size_t i = 0; i < part->ids_.size(); ++i) counts[part->ids_[i]] = part->counts_[i];
      }
    }
    out += n;
  } else {
    unsigned char* ids_out = out;  // byte by byte: a value in an LMDB leaf page may lie unaligned
    std::uint8_t* counts_out = out + postings * sizeof(ImageId);
    for (const PostingList* part : parts) {
      if (part->dense_) {
        const std::uint8_t* from = part->dense_->counts.data();
        for (std::size_t id = 0; id < part->dense_->counts.size(); ++id)
          if (from[id] != 0) {
            const auto image = static_cast<ImageId>(id);
            put(ids_out, &image, 1);
            *counts_out++ = from[id];
          }
      } else {
        put(ids_out, part->ids_.data(), part->ids_.size());
        put(counts_out, part->counts_.data(), part->counts_.size());
      }
    }
    out += postings * (sizeof(ImageId) + 1);
  }
  while ((out - start) % 4 != 0) *out++ = 0;
  for (const PostingList* part : parts)
    if (part->large_) put(out, part->large_->data(), part->large_->size());
}

void PostingList::moveToRaw(unsigned char* out) {
  writeRaw(out);
  const unsigned char* in = out + kRawHeader;
  if (dense_) {
    take(in, dense_->counts, dense_->counts.size(), true);
  } else {
    const std::size_t n = ids_.size();
    take(in, ids_, n, true);
    take(in, counts_, n, true);
  }
}

PostingList PostingList::fromRaw(const unsigned char* bytes, std::size_t size, const LiveIds& live, std::size_t room) {
  return fromRaw(bytes, size, live, room, false);
}

PostingList PostingList::readInPlace(const unsigned char* bytes, std::size_t size, const LiveIds& live) {
  return fromRaw(bytes, size, live, 0, true);
}

PostingList PostingList::fromRaw(const unsigned char* bytes, std::size_t size, const LiveIds& live, std::size_t room,
                                 bool in_place) {
  if (size < kRawHeader) refuse(std::to_string(size) + " bytes, fewer than its header's 16");
  std::uint32_t header[4];
  std::memcpy(header, bytes, sizeof header);
  const auto [form, postings, n, large_entries] = header;
  if (form != kSparse && form != kDense) refuse("unknown form " + std::to_string(form));
  const std::size_t arrays = form == kDense ? std::size_t{n} : std::size_t{n} * (sizeof(ImageId) + 1);
  if (size != kRawHeader + padded(arrays) + std::size_t{large_entries} * sizeof(Large))
    refuse(std::to_string(size) + " bytes where its header declares " + std::to_string(n) + " entries and " +
           std::to_string(large_entries) + " large counts");
  if (form == kSparse && postings != n) refuse(std::to_string(postings) + " postings in " + std::to_string(n) + " ids");
  if (form == kDense && n > live.size()) refuse("dense counts for " + std::to_string(n) + " ids of " + std::to_string(live.size()));

  // The checks run over every posting of a million images at each open: they accumulate flags
  // without branches, and only a list that fails one is searched again for the message.
  PostingList list;
  const unsigned char* in = bytes + kRawHeader;
  std::size_t marked = 0;  // postings whose count is in the side list
  if (form == kDense) {
    list.dense_ = std::make_unique<Dense>();
    take(in, list.dense_->counts, n, in_place);
    const std::uint8_t* counts = list.dense_->counts.data();
    std::size_t held = 0;
    std::uint64_t removed = 0;
    for (std::size_t id = 0; id < n; ++id) {
      const unsigned present = counts[id] != 0;
      held += present;
      removed |= present & (live[id] ^ 1);
      marked += counts[id] == kLargeMark;
    }
    if (removed)
      for (std::size_t id = 0; id < n; ++id)
        if (counts[id] != 0 && !live[id]) refuse("image id " + std::to_string(id) + " is not a live image");
    if (held != postings) refuse(std::to_string(postings) + " postings declared, " + std::to_string(held) + " held");
    list.dense_->size = held;
  } else {
    // In place only where the ids lie aligned (the raw form's header keeps them so from an aligned start).
    const bool aligned = reinterpret_cast<std::uintptr_t>(in) % alignof(ImageId) == 0;
    take(in, list.ids_, n, in_place && aligned, room);
    take(in, list.counts_, n, in_place && aligned, room);
    const ImageId* ids = list.ids_.data();
    const std::uint8_t* counts = list.counts_.data();
    unsigned disorder = 0, zero = 0;
    std::uint64_t removed = 0;
    for (std::size_t i = 1; i < n; ++i) disorder |= ids[i] <= ids[i - 1];
    for (std::size_t i = 0; i < n; ++i) {
      zero |= counts[i] == 0;
      marked += counts[i] == kLargeMark;
    }
    if (disorder) refuse("its image ids are not strictly increasing");
    if (n > 0 && ids[n - 1] >= live.size()) refuse("image id " + std::to_string(ids[n - 1]) + " is not a live image");
    for (std::size_t i = 0; i < n; ++i) removed |= live[ids[i]] ^ 1;
    for (std::size_t i = 0; i < n && (zero | removed); ++i) {
      if (!live[ids[i]]) refuse("image id " + std::to_string(ids[i]) + " is not a live image");
      if (counts[i] == 0) refuse("image id " + std::to_string(ids[i]) + " has count 0");
    }
  }
  std::vector<Large> large;
  in = bytes + kRawHeader + padded(arrays);
  take(in, large, large_entries);
  if (large.size() != marked)
    refuse(std::to_string(marked) + " postings mark a large count but " + std::to_string(large.size()) + " are listed");
  for (std::size_t i = 0; i < large.size(); ++i) {
    if ((i > 0 && large[i].image <= large[i - 1].image) || large[i].count < kLargeMark)
      refuse("its large counts are out of order or below 255");
    // Each entry's posting must mark a large count (marked == large.size() then covers the converse).
    bool marks;
    if (list.dense_) {
      marks = large[i].image < n && list.dense_->counts[large[i].image] == kLargeMark;
    } else {
      const auto at = std::lower_bound(list.ids_.begin(), list.ids_.end(), large[i].image);
      marks = at != list.ids_.end() && *at == large[i].image && list.counts_[at - list.ids_.begin()] == kLargeMark;
    }
    if (!marks) refuse("a large count for image id " + std::to_string(large[i].image) + ", whose posting does not mark one");
  }
  if (!large.empty()) list.large_ = std::make_unique<std::vector<Large>>(std::move(large));
  return list;
}

}  // namespace bovw::index_detail
