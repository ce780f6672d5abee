// The two ways a query's top k are found over the posting lists (QueryStrategy, inverted_index.hpp):
// every posting of every query word, or only those that can still change the top k (MaxScore).
#pragma once

#include "index/index_data.hpp"
#include "index/scoring_weights.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace bovw::index_detail {

// A word of the query with a non-empty posting list, and its normalised weight q_w.
struct QueryWord {
  std::uint32_t word;
  double weight;
};

// (score, id), best first: score descending, equal scores by id ascending.
using Ranked = std::vector<std::pair<double, ImageId>>;

struct QueryScorer {
  const IndexData& data;
  const ScoringWeights& weights;
  bool cosine;

  // `words` ascending. An image's score is the sum of its words' contributions added in ascending word
  // order, starting from 0: q_w d_w (cosine) or min(q_w, d_w) (intersection) with
  // d_w = weight(c, w) * scale(d). The top `top_k` images with a positive score.
  Ranked exhaustive(const std::vector<QueryWord>& words, std::size_t top_k) const;
  // The same ranking and the same scores, bit for bit, from fewer postings.
  Ranked pruned(const std::vector<QueryWord>& words, std::size_t top_k) const;

  // The postings the calling thread's last query scanned plus the look-ups it made in lists it did
  // not scan (the tests check that pruning skips postings).
  static std::uint64_t lastVisited();
};

}  // namespace bovw::index_detail
