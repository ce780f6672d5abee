// PostingList: appending, removing, looking up, the two forms and the side list of large counts.
#include "index/posting_list.hpp"

#include <algorithm>
#include <new>

namespace bovw::index_detail {

// Dense from a fifth of the ids (at most 5 bytes a posting), sparse again below a sixth (6 bytes).
constexpr std::size_t PostingList::kDenseFrom;
constexpr std::size_t PostingList::kSparseBelow;

ImageId PostingList::lastImage() const {
  if (!dense_) return ids_.back();
  std::size_t id = dense_->counts.size();
  while (dense_->counts[id - 1] == 0) --id;  // a removal leaves its byte 0 at the end
  return static_cast<ImageId>(id - 1);
}

std::int32_t PostingList::countOf(ImageId image, std::size_t& cursor) const {
  if (dense_) return image < dense_->counts.size() ? count(image, dense_->counts[image]) : 0;
  const std::size_t n = ids_.size();
  std::size_t from = cursor;
  if (from < n && ids_[from] < image) {
    // ids_[from] < image: double the step until an id >= image (or the end) is passed.
    std::size_t low = from, step = 1, high = from + 1;
    while (high < n && ids_[high] < image) {
      low = high;
      step *= 2;
      high = low + step;
    }
    if (high > n) high = n;
    // ids_[low] < image <= ids_[high] (or high == n).
    from = static_cast<std::size_t>(std::lower_bound(ids_.data() + low + 1, ids_.data() + high, image) - ids_.data());
  }
  cursor = from;
  return from < n && ids_[from] == image ? count(image, counts_[from]) : 0;
}

void PostingList::pushBackSlow(ImageId image, std::int32_t count) {
  const bool large = count >= kLargeMark;
  // Room first, so that a failed allocation leaves the list as it was. Growth by half (not the
  // library's doubling) keeps a list grown by appends within 1.5x its size.
  if (large && !large_) large_ = std::make_unique<std::vector<Large>>();
  if (large) large_->reserve(large_->size() + 1);
  if (dense_) {
    ListArray<std::uint8_t>& counts = dense_->counts;
    if (image >= counts.size() + counts.spare())
      counts.reserve(std::max<std::size_t>(std::size_t{image} + 1, counts.size() * 3 / 2));
    counts.resize(std::max<std::size_t>(counts.size(), std::size_t{image} + 1), 0);
    counts.writable()[image] = large ? kLargeMark : static_cast<std::uint8_t>(count);
    ++dense_->size;
  } else {
    if (ids_.spare() == 0 || counts_.spare() == 0) {  // both arrays grow together (a borrowed one is copied)
      const std::size_t capacity = ids_.size() + ids_.size() / 2 + 1;
      ids_.reserve(capacity);
      counts_.reserve(capacity);
    }
    ids_.push_back(image);
    counts_.push_back(large ? kLargeMark : static_cast<std::uint8_t>(count));
  }
  if (large) large_->push_back({image, count});
}

void PostingList::append(const PostingList& later, ImageId offset) {
  if (later.empty()) return;
  if (dense_.operator bool() != later.dense_.operator bool()) {  // one at a time, each form as it takes it
    later.forEach([&](ImageId image, std::int32_t count) { push_back(offset + image, count); });
    return;
  }
  if (later.large_) {
    if (!large_) large_ = std::make_unique<std::vector<Large>>();
    large_->reserve(large_->size() + later.large_->size());
  }
  if (dense_) {
    const ListArray<std::uint8_t>& from = later.dense_->counts;
    ListArray<std::uint8_t>& counts = dense_->counts;
    counts.reserve(std::size_t{offset} + from.size());
    counts.resize(offset, 0);  // the ids up to `offset` that this list does not reach
    counts.append(from.begin(), from.end());
    dense_->size += later.dense_->size;
  } else {
    ids_.reserve(ids_.size() + later.ids_.size());
    counts_.reserve(counts_.size() + later.counts_.size());
    for (ImageId image : later.ids_) ids_.push_back(offset + image);
    counts_.append(later.counts_.begin(), later.counts_.end());
  }
  if (later.large_)
    for (const Large& l : *later.large_) large_->push_back({offset + l.image, l.count});
}

void PostingList::pop_back() { remove(lastImage()); }

void PostingList::remove(ImageId image) {
  std::uint32_t stored;
  if (dense_) {
    std::uint8_t* counts = dense_->counts.writable();
    stored = counts[image];
    counts[image] = 0;
    --dense_->size;
  } else {
    const auto at = static_cast<std::size_t>(std::lower_bound(ids_.begin(), ids_.end(), image) - ids_.begin());
    stored = counts_[at];
    ids_.erase(at);
    counts_.erase(at);
  }
  if (stored == kLargeMark) eraseLarge(image);
}

bool PostingList::adapt(std::size_t ids) noexcept {
  // The form is only a matter of speed and size: without the memory to change it, the list stays as it is.
  try {
    const std::size_t n = size();
    if (!dense_ && n > 0 && kDenseFrom * n >= ids) {
      toDense();
      return true;
    }
    if (dense_ && kSparseBelow * n < ids) {
      toSparse();
      return true;
    }
  } catch (const std::bad_alloc&) {
  }
  return false;
}

// Both forms store the same count bytes and share the side list of large counts: a change of form
// only moves the bytes.
void PostingList::toDense() {
  // The new array is made whole before anything changes: a failed allocation leaves the list as it was.
  auto dense = std::make_unique<Dense>();
  dense->counts.assign(std::size_t{ids_.back()} + 1, 0);
  std::uint8_t* counts = dense->counts.writable();
  for (std::size_t i = 0; i < ids_.size(); ++i) counts[ids_[i]] = counts_[i];
  dense->size = ids_.size();
  dense_.swap(dense);
  ids_ = ListArray<ImageId>();
  counts_ = ListArray<std::uint8_t>();
}

void PostingList::toSparse() {
  ListArray<ImageId> ids;
  ListArray<std::uint8_t> counts;
  ids.reserve(dense_->size);
  counts.reserve(dense_->size);
  const ListArray<std::uint8_t>& stored = dense_->counts;
  for (std::size_t id = 0; id < stored.size(); ++id) {
    if (stored[id] == 0) continue;
    ids.push_back(static_cast<ImageId>(id));
    counts.push_back(stored[id]);
  }
  ids_ = std::move(ids);
  counts_ = std::move(counts);
  dense_.reset();
}

void PostingList::eraseLarge(ImageId image) {
  large_->erase(std::lower_bound(large_->begin(), large_->end(), image,
                                 [](const Large& l, ImageId id) { return l.image < id; }));
  if (large_->empty()) large_.reset();
}

std::int32_t PostingList::largeCount(ImageId image) const {
  const auto it = std::lower_bound(large_->begin(), large_->end(), image,
                                   [](const Large& l, ImageId id) { return l.image < id; });
  return it->count;
}

}  // namespace bovw::index_detail
