// PostingList: appending, removing, seeking, and the side list of counts beyond 16 bits.
#include "index/posting_list.hpp"

namespace bovw::index_detail {

void PostingList::pushBackSlow(ImageId image, std::int32_t count) {
  const bool large = count >= kLargeCount;
  // Room first, so that a failed allocation leaves the list as it was.
  if (large && !large_) large_ = std::make_unique<std::vector<Large>>();
  if (large) large_->reserve(large_->size() + 1);
  if (ids_.size() == ids_.capacity() || counts_.size() == counts_.capacity()) {
    // Growth by half (not the library's doubling) keeps a list grown by appends within 1.5x its size.
    const std::size_t capacity = ids_.size() + ids_.size() / 2 + 1;
    ids_.reserve(capacity);
    counts_.reserve(capacity);
  }
  ids_.push_back(image);
  counts_.push_back(large ? kLargeCount : static_cast<std::uint16_t>(count));
  if (large) large_->push_back({image, count});
}

void PostingList::pop_back() {
  if (counts_.back() == kLargeCount) {
    large_->pop_back();
    if (large_->empty()) large_.reset();
  }
  ids_.pop_back();
  counts_.pop_back();
}

void PostingList::erase(std::size_t i) {
  if (counts_[i] == kLargeCount) {
    const ImageId image = ids_[i];
    eraseIf([image](ImageId id) { return id == image; });
    return;
  }
  ids_.erase(ids_.begin() + static_cast<std::ptrdiff_t>(i));
  counts_.erase(counts_.begin() + static_cast<std::ptrdiff_t>(i));
}

std::int32_t PostingList::largeCount(ImageId image) const {
  const auto it = std::lower_bound(large_->begin(), large_->end(), image,
                                   [](const Large& l, ImageId id) { return l.image < id; });
  return it->count;
}

}  // namespace bovw::index_detail
