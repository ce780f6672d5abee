// The best k of many (score, id) pairs, kept as they go by.
#pragma once

#include <bovw/inverted_index.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace bovw::index_detail {

// Best first: score descending, equal scores by id ascending (a total order).
inline bool better(const std::pair<double, ImageId>& x, const std::pair<double, ImageId>& y) {
  return x.first != y.first ? x.first > y.first : x.second < y.second;
}

// The best k of the (score, id) pairs offered, in a heap whose top is the worst of them: the same k
// as sorting all the pairs by better(), without holding them all.
class TopK {
 public:
  explicit TopK(std::size_t k) : k_(k) { heap_.reserve(k); }

  bool full() const { return heap_.size() == k_; }
  // The worst of those kept; only when some are.
  const std::pair<double, ImageId>& worst() const { return heap_.front(); }

  void offer(double score, ImageId id) {
    if (k_ == 0) return;
    const std::pair<double, ImageId> candidate(score, id);
    if (heap_.size() < k_) {
      heap_.push_back(candidate);
      std::push_heap(heap_.begin(), heap_.end(), better);
    } else if (better(candidate, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), better);
      heap_.back() = candidate;
      std::push_heap(heap_.begin(), heap_.end(), better);
    }
  }
  // Best first.
  std::vector<std::pair<double, ImageId>> ranked() {
    std::sort_heap(heap_.begin(), heap_.end(), better);
    return std::move(heap_);
  }

 private:
  std::size_t k_;
  std::vector<std::pair<double, ImageId>> heap_;
};

}  // namespace bovw::index_detail
