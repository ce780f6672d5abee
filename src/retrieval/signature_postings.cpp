// SignaturePostings: keeping each word's features in image id order as images come and go, copying a
// list where a search still holds it.
#include "retrieval/signature_postings.hpp"

#include <algorithm>
#include <atomic>

namespace bovw::retrieval_detail {

void SignaturePostings::prepareCopies(const std::vector<std::uint32_t>& words, const std::vector<std::size_t>& room) {
  prepared_.clear();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::shared_ptr<WordFeatures>& list = lists_[words[i]];
    if (!list || list.use_count() == 1) continue;  // changed in place (or copied then, if taken meanwhile)
    auto copy = std::make_shared<WordFeatures>();
    copy->ids.reserve(list->ids.size() + room[i]);
    copy->signatures.reserve(list->signatures.size() + room[i]);
    copy->ids = list->ids;
    copy->signatures = list->signatures;
    prepared_.emplace_back(words[i], std::move(copy));  // ascending, as `words`
  }
}

SignaturePostings::WordFeatures& SignaturePostings::writable(std::uint32_t word) {
  std::shared_ptr<WordFeatures>& list = lists_[word];
  const auto copy = std::lower_bound(prepared_.begin(), prepared_.end(), word,
                                     [](const auto& entry, std::uint32_t w) { return entry.first < w; });
  if (copy != prepared_.end() && copy->first == word && copy->second) {
    list = std::move(copy->second);  // the searches that hold the old one keep it
  } else if (!list) {
    list = std::make_shared<WordFeatures>();
  } else if (list.use_count() > 1) {
    // A search holds it (and keeps what it took); no new one can take it while the caller's lock
    // keeps searches out, so a count of 1 stays 1 until the change is made.
    list = std::make_shared<WordFeatures>(*list);
  } else {
    // The last search to let go of it may have done so just now: its reads of the list happen before
    // this change (its release of the count, read above, and this fence).
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *list;
}

void SignaturePostings::insert(ImageId id, std::uint32_t word, const std::uint64_t* signatures, std::size_t count) {
  WordFeatures& list = writable(word);
  // Ids mostly come in increasing order (an index is built image after image): then the new ones go
  // at the end, without a binary search over a list that can be millions long.
  const auto at = list.ids.empty() || list.ids.back() <= id
                      ? list.ids.size()
                      : std::upper_bound(list.ids.begin(), list.ids.end(), id) - list.ids.begin();
  list.ids.insert(list.ids.begin() + at, count, id);
  list.signatures.insert(list.signatures.begin() + at, signatures, signatures + count);
}

void SignaturePostings::append(const SignaturePostings& later, ImageId offset) {
  for (std::size_t word = 0; word < later.lists_.size(); ++word) {
    if (!later.lists_[word] || later.lists_[word]->ids.empty()) continue;
    const WordFeatures& from = *later.lists_[word];
    WordFeatures& list = writable(static_cast<std::uint32_t>(word));
    list.ids.reserve(list.ids.size() + from.ids.size());
    for (ImageId id : from.ids) list.ids.push_back(offset + id);
    list.signatures.insert(list.signatures.end(), from.signatures.begin(), from.signatures.end());
  }
}

void SignaturePostings::erase(ImageId id, std::uint32_t word) {
  if (!lists_[word]) return;
  const WordFeatures& now = *lists_[word];
  const auto [first, last] = std::equal_range(now.ids.begin(), now.ids.end(), id);
  if (first == last) return;  // no copy for nothing to take out
  const auto begin = first - now.ids.begin(), end = last - now.ids.begin();
  WordFeatures& list = writable(word);
  list.ids.erase(list.ids.begin() + begin, list.ids.begin() + end);
  list.signatures.erase(list.signatures.begin() + begin, list.signatures.begin() + end);
}

}  // namespace bovw::retrieval_detail
