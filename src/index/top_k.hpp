// The best k of many (score, id) pairs, kept as they go by.
#pragma once

#include <bovw/inverted_index.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace bovw::index_detail {

// Best first: score descending, equal scores by id ascending (a total order). Scores are doubles, or
// a query's fixed-point units (score_units.hpp).
template <typename Score>
bool better(const std::pair<Score, ImageId>& x, const std::pair<Score, ImageId>& y) {
  return x.first != y.first ? x.first > y.first : x.second < y.second;
}

// The best k of the (score, id) pairs offered, in a heap whose top is the worst of them: the same k
// as sorting all the pairs by better(), without holding them all.
template <typename Score>
class TopK {
 public:
  using Pair = std::pair<Score, ImageId>;

  explicit TopK(std::size_t k) : k_(k) { heap_.reserve(k); }

  bool full() const { return heap_.size() == k_; }
  // The worst of those kept; only when some are.
  const Pair& worst() const { return heap_.front(); }

  void offer(Score score, ImageId id) {
    if (k_ == 0) return;
    const Pair candidate(score, id);
    if (heap_.size() < k_) {
      heap_.push_back(candidate);
      std::push_heap(heap_.begin(), heap_.end(), better<Score>);
    } else if (better(candidate, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), better<Score>);
      heap_.back() = candidate;
      std::push_heap(heap_.begin(), heap_.end(), better<Score>);
    }
  }
  // Best first.
  std::vector<Pair> ranked() {
    std::sort_heap(heap_.begin(), heap_.end(), better<Score>);
    return std::move(heap_);
  }

 private:
  std::size_t k_;
  std::vector<Pair> heap_;
};

}  // namespace bovw::index_detail
