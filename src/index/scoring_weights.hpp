// What the index derives from its raw counts for one ScoringOptions and one TF-IDF model (its own,
// or the global one of several shards): the weight of every (count, word) pair and every image's
// normaliser, so that a query costs a table look-up and two multiplies
// per posting it visits, not a pow.
#pragma once

#include "index/incremental_norms.hpp"
#include "index/index_data.hpp"

#include <bovw/scoring.hpp>
#include <bovw/tfidf_model.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bovw::index_detail {

// The weight of count c of word w is (f(c) idf_w)^alpha = f(c)^alpha * idf_w^alpha: the factors
// are kept apart so that each is computed once (tf's 1 / total cancels in the normalisation).
class ScoringWeights {
 public:
  // O(postings). `model` gives the idf (of the same K as `data`).
  ScoringWeights(const IndexData& data, const TfIdfModel& model, const ScoringOptions& options);
  // O(K + ids): the normalisers of `ids` ids from norms kept up to date (`model` must be the one
  // the norms follow; images without words, removed ones included, get scale 0).
  ScoringWeights(std::size_t ids, const TfIdfModel& model, const IncrementalNorms& norms);

  const ScoringOptions& options() const { return options_; }
  std::uint64_t modelVersion() const { return model_version_; }

  // (f(c) idf_w)^alpha for a count c > 0 of word w.
  double weight(std::int32_t count, std::size_t word) const { return termWeight(count) * idf_power_[word]; }
  // 1 / (L2 or L1 norm of the image's weights), 0 for an image with no words or a removed id.
  double scale(ImageId image) const { return scale_[image]; }

  // The same factors as plain arrays for the query loops, which compute a posting's weight as
  // (termWeight(c) * idfPower(w)) * scale(d), the same operations in the same order as
  // weight(c, w) * scale(d), hence the same bits.
  // The table is indexed by a posting list's stored count byte: f(c)^alpha for c below 255, and 0
  // for 255, the mark of a larger count (posting_list.hpp), which adds exactly nothing there and is
  // weighed by termWeight() where the loops meet it. Entry 0 is 0 too (no count).
  static constexpr std::int32_t kTabledCounts = 255;  // larger counts are rare: computed when met
  const double* termTable() const { return term_power_.data(); }  // 256 entries
  double idfPower(std::size_t word) const { return idf_power_[word]; }
  // Whether at least a fifth of the model's images hold `word` (5 n_w >= N): the common words a
  // query sums first (QueryScorer::toSummationOrder). From the model, not the lists, so that every
  // shard scored with one global model sums an image's words in the same order.
  bool summedFirst(std::size_t word) const { return summed_first_[word] != 0; }
  const double* scales() const { return scale_.data(); }
  double termWeight(std::int32_t count) const {
    return count < kTabledCounts ? term_power_[static_cast<std::size_t>(count)] : computeTermWeight(count);
  }
  // Cosine only (0 otherwise): the largest weight(c, w) * scale(d) over word w's postings, computed
  // with the same operations, so that q * d <= q * maxDocumentWeight(w) holds for the rounded
  // values too: the bound of a word's contribution the pruned query uses.
  double maxDocumentWeight(std::size_t word) const { return max_document_weight_.empty() ? 0.0 : max_document_weight_[word]; }

 private:
  double computeTermWeight(std::int32_t count) const;
  void tabulateTermWeights();                         // term_power_
  void markCommonWords(const TfIdfModel& model);      // summed_first_

  ScoringOptions options_;
  std::uint64_t model_version_;
  std::vector<double> term_power_;  // f(c)^alpha by count c < kTabledCounts, then 0 (the large mark)
  std::vector<double> idf_power_;   // idf_w^alpha by word
  std::vector<std::uint8_t> summed_first_;  // by word: 5 n_w >= N
  std::vector<double> scale_;       // by id
  std::vector<double> max_document_weight_;  // by word, cosine only
};

}  // namespace bovw::index_detail
