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

  // Puts the query's `words` in summation order: an image's score is the sum of its words'
  // contributions added in this order, starting from 0. The common words (those that at least a fifth
  // of the model's images hold: ScoringWeights::summedFirst) ascending, then the others ascending: an
  // order that follows from the images alone, not from the lists' forms or the index's history, so
  // that an index grown by adds and removes gives every score the bits of one indexed afresh, and the
  // shards of one database, scored with its global model, give copies of an image the same bits; and
  // one that puts the words whose lists are dense (posting_list.hpp) side by side, where the
  // exhaustive query adds them in one pass (dense_accumulate.hpp).
  void toSummationOrder(std::vector<QueryWord>& words) const;

  // `words` in summation order. An image's score sums q_w d_w (cosine) or min(q_w, d_w)
  // (intersection) with d_w = weight(c, w) * scale(d). The top `top_k` images with a positive score.
  Ranked exhaustive(const std::vector<QueryWord>& words, std::size_t top_k) const;
  // The same ranking and the same scores, bit for bit, from fewer postings.
  Ranked pruned(const std::vector<QueryWord>& words, std::size_t top_k) const;

  // The postings the calling thread's last query scanned plus the look-ups it made in lists it did
  // not scan (the tests check that pruning skips postings).
  static std::uint64_t lastVisited();

 private:
  // The top k of the images of segment `segment` (IndexData::segments), `words` those with postings
  // there.
  using InSegment = Ranked (QueryScorer::*)(std::size_t segment, const std::vector<QueryWord>& words,
                                            std::size_t top_k) const;
  Ranked exhaustiveIn(std::size_t segment, const std::vector<QueryWord>& words, std::size_t top_k) const;
  Ranked prunedIn(std::size_t segment, const std::vector<QueryWord>& words, std::size_t top_k) const;
  // `in` over every segment, their top k merged.
  Ranked bySegment(const std::vector<QueryWord>& words, std::size_t top_k, InSegment in) const;
};

}  // namespace bovw::index_detail
