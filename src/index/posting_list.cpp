// PostingList: appending, removing, looking up, the two forms and the side list of large counts.
#include "index/posting_list.hpp"

#include <algorithm>
#include <new>

namespace bovw::index_detail {

namespace {

// Dense from a fifth of the ids (at most 5 bytes a posting), sparse again below a sixth (6 bytes).
constexpr std::size_t kDenseFrom = 5;
constexpr std::size_t kSparseBelow = 6;

}  // namespace

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
    const std::size_t span = dense_->counts.size();  // room for growth by half, should this copy
    std::vector<std::uint8_t>& counts = dense_->counts.own(image >= span ? std::max<std::size_t>(image + 1, span * 3 / 2) - span : 0);
    if (image >= counts.capacity())
      counts.reserve(std::max<std::size_t>(std::size_t{image} + 1, counts.size() * 3 / 2));
    counts.resize(std::size_t{image} + 1, 0);
    counts[image] = large ? kLargeMark : static_cast<std::uint8_t>(count);
    ++dense_->size;
  } else {
    std::vector<ImageId>& ids = ids_.own(ids_.size() / 2 + 1);  // room as below, should this copy
    std::vector<std::uint8_t>& counts = counts_.own(counts_.size() / 2 + 1);
    if (ids.size() == ids.capacity() || counts.size() == counts.capacity()) {
      const std::size_t capacity = ids.size() + ids.size() / 2 + 1;
      ids.reserve(capacity);
      counts.reserve(capacity);
    }
    ids.push_back(image);
    counts.push_back(large ? kLargeMark : static_cast<std::uint8_t>(count));
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
    std::vector<std::uint8_t>& counts = dense_->counts.own();
    counts.reserve(std::size_t{offset} + from.size());
    counts.resize(offset, 0);  // the ids up to `offset` that this list does not reach
    counts.insert(counts.end(), from.begin(), from.end());
    dense_->size += later.dense_->size;
  } else {
    std::vector<ImageId>& ids = ids_.own(later.ids_.size());
    std::vector<std::uint8_t>& counts = counts_.own(later.counts_.size());
    ids.reserve(ids.size() + later.ids_.size());
    counts.reserve(counts.size() + later.counts_.size());
    for (ImageId image : later.ids_) ids.push_back(offset + image);
    counts.insert(counts.end(), later.counts_.begin(), later.counts_.end());
  }
  if (later.large_)
    for (const Large& l : *later.large_) large_->push_back({offset + l.image, l.count});
}

void PostingList::pop_back() {
  ImageId last;
  if (dense_) {
    std::size_t id = dense_->counts.size();
    while (dense_->counts[id - 1] == 0) --id;
    last = static_cast<ImageId>(id - 1);
  } else {
    last = ids_.back();
  }
  remove(last);
}

void PostingList::remove(ImageId image) {
  std::uint32_t stored;
  if (dense_) {
    std::vector<std::uint8_t>& counts = dense_->counts.own();
    stored = counts[image];
    counts[image] = 0;
    --dense_->size;
  } else {
    std::vector<ImageId>& ids = ids_.own();
    std::vector<std::uint8_t>& counts = counts_.own();
    const auto at = std::lower_bound(ids.begin(), ids.end(), image) - ids.begin();
    stored = counts[static_cast<std::size_t>(at)];
    ids.erase(ids.begin() + at);
    counts.erase(counts.begin() + at);
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
  std::vector<std::uint8_t>& counts = dense->counts.own();
  counts.assign(std::size_t{ids_.back()} + 1, 0);
  for (std::size_t i = 0; i < ids_.size(); ++i) counts[ids_[i]] = counts_[i];
  dense->size = ids_.size();
  dense_.swap(dense);
  ids_ = ListArray<ImageId>();
  counts_ = ListArray<std::uint8_t>();
}

void PostingList::toSparse() {
  std::vector<ImageId> ids;
  std::vector<std::uint8_t> counts;
  ids.reserve(dense_->size);
  counts.reserve(dense_->size);
  const ListArray<std::uint8_t>& stored = dense_->counts;
  for (std::size_t id = 0; id < stored.size(); ++id) {
    if (stored[id] == 0) continue;
    ids.push_back(static_cast<ImageId>(id));
    counts.push_back(stored[id]);
  }
  ids_ = ListArray<ImageId>(std::move(ids));
  counts_ = ListArray<std::uint8_t>(std::move(counts));
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
