// SignaturePostings: keeping each word's features in image id order as images come and go, copying a
// list where a search still holds it, taking erased images out a list at a time.
#include "retrieval/signature_postings.hpp"

#include <algorithm>
#include <atomic>

namespace bovw::retrieval_detail {

std::uint64_t SignaturePostings::newLayout() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void SignaturePostings::prepareCopies(const std::vector<std::uint32_t>& words, const std::vector<std::size_t>& gained,
                                      const std::vector<std::size_t>& lost) {
  prepared_.clear();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::shared_ptr<WordFeatures>& list = lists_[words[i]];
    if (!list || list.use_count() == 1) continue;  // changed in place (or copied then, if taken meanwhile)
    if (gained[i] == 0 && !compacts(words[i], lost[i])) continue;  // an erase that leaves the list as it is
    auto copy = std::make_shared<WordFeatures>();
    copy->ids.reserve(list->ids.size() + gained[i]);
    copy->signatures.reserve(list->signatures.size() + gained[i]);
    copy->ids = list->ids;
    copy->signatures = list->signatures;
    copy->layout = list->layout;
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
  if (erased(id)) {
    // Filed again after its erasure (an add undone and its id given out again): its old features
    // must not be read as the new ones, so every list with erased features is compacted, which
    // leaves no erased feature anywhere. Rare: ids are otherwise never reused.
    for (std::uint32_t w = 0; w < lists_.size(); ++w)
      if (erased_features_[w] > 0) compact(w);
    erased_ids_.assign(erased_ids_.size(), false);
  }
  WordFeatures& list = writable(word);
  // Ids mostly come in increasing order (an index is built image after image): then the new ones go
  // at the end, without a binary search over a list that can be millions long.
  const auto at = list.ids.empty() || list.ids.back() <= id
                      ? list.ids.size()
                      : std::upper_bound(list.ids.begin(), list.ids.end(), id) - list.ids.begin();
  if (at < list.ids.size()) list.layout = newLayout();  // the features after `at` move
  list.ids.insert(list.ids.begin() + at, count, id);
  list.signatures.insert(list.signatures.begin() + at, signatures, signatures + count);
}

void SignaturePostings::append(const SignaturePostings& later, ImageId offset) {
  for (std::size_t word = 0; word < later.lists_.size(); ++word) {
    if (!later.lists_[word] || later.lists_[word]->ids.size() == later.erased_features_[word]) continue;
    const WordFeatures& from = *later.lists_[word];
    WordFeatures& list = writable(static_cast<std::uint32_t>(word));
    const std::size_t n = from.ids.size() - later.erased_features_[word];  // `later`'s erased features stay behind
    list.ids.reserve(list.ids.size() + n);
    list.signatures.reserve(list.signatures.size() + n);
    for (std::size_t i = 0; i < from.ids.size(); ++i)
      if (!later.erased(from.ids[i])) {
        list.ids.push_back(offset + from.ids[i]);
        list.signatures.push_back(from.signatures[i]);
      }
  }
}

void SignaturePostings::erase(ImageId id, const std::vector<std::uint32_t>& words) {
  if (erased(id)) return;
  bool held = false;  // features of `id` in some list
  for (const std::uint32_t word : words) {
    if (!lists_[word]) continue;
    const std::vector<ImageId>& ids = lists_[word]->ids;
    const auto [first, last] = std::equal_range(ids.begin(), ids.end(), id);
    if (first == last) continue;
    if (!held) {
      if (erased_ids_.size() <= id) erased_ids_.resize(std::size_t{id} + 1, false);
      erased_ids_[id] = true;
      held = true;
    }
    const auto n = static_cast<std::size_t>(last - first);
    const bool full = compacts(word, n);
    erased_features_[word] += n;
    if (full) compact(word);
  }
}

bool SignaturePostings::compacts(std::uint32_t word, std::size_t more) const {
  const std::size_t size = lists_[word] ? lists_[word]->ids.size() : 0;
  return more > 0 && 3 * (erased_features_[word] + more) >= size;
}

void SignaturePostings::compact(std::uint32_t word) {
  WordFeatures& list = writable(word);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < list.ids.size(); ++i) {
    if (erased(list.ids[i])) continue;
    list.ids[kept] = list.ids[i];
    list.signatures[kept] = list.signatures[i];
    ++kept;
  }
  list.ids.resize(kept);
  list.signatures.resize(kept);
  list.layout = newLayout();
  erased_features_[word] = 0;
}

}  // namespace bovw::retrieval_detail
