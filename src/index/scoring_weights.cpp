// Per-option weights of an index: term weights, idf^alpha and the images' normalisers.
#include "index/scoring_weights.hpp"

#include <algorithm>
#include <cmath>

namespace bovw::index_detail {

ScoringWeights::ScoringWeights(std::size_t ids, const TfIdfModel& model, const IncrementalNorms& norms)
    : options_(norms.options()), model_version_(model.version()) {
  // The idf is the norms' own C - l_w (no log or pow per word), the same numbers the normalisers
  // were made of.
  tabulateTermWeights();
  markCommonWords(model);
  const double offset = IncrementalNorms::offset(model.images());
  idf_power_.resize(static_cast<std::size_t>(model.words()));
  for (std::size_t w = 0; w < idf_power_.size(); ++w) idf_power_[w] = norms.idf(w, offset);
  scale_.assign(ids, 0.0);
  for (std::size_t d = 0; d < scale_.size(); ++d) {
    const double norm = norms.norm(static_cast<ImageId>(d), offset);
    if (norm > 0.0) scale_[d] = 1.0 / norm;
  }
}

ScoringWeights::ScoringWeights(const IndexData& data, const TfIdfModel& model, const ScoringOptions& options)
    : options_(options), model_version_(model.version()) {
  tabulateTermWeights();
  markCommonWords(model);
  idf_power_.resize(data.words());
  for (std::size_t w = 0; w < idf_power_.size(); ++w) idf_power_[w] = std::pow(model.idf(w), options.power);

  const bool cosine = options.similarity == Scoring::Cosine;
  std::vector<double> norms(data.names.size(), 0.0);  // sum of squares (cosine) or of values (L1)
  // By image blocks: each image's sum still grows in ascending word order.
  forEachPostingByImageBlock(data, [&](std::size_t w, ImageId image, std::int32_t count) {
    const double v = weight(count, w);
    norms[image] += cosine ? v * v : v;
  });
  scale_.assign(norms.size(), 0.0);
  for (std::size_t d = 0; d < norms.size(); ++d)
    if (norms[d] > 0.0) scale_[d] = 1.0 / (cosine ? std::sqrt(norms[d]) : norms[d]);

  // Cosine's per-word bound (intersection's is the query's own weight, min(q, d) <= q): a second pass
  // over the postings, paid once per option set like the first.
  if (!cosine) return;
  max_document_weight_.assign(data.words(), 0.0);
  forEachPostingByImageBlock(data, [&](std::size_t w, ImageId image, std::int32_t count) {
    max_document_weight_[w] = std::max(max_document_weight_[w], weight(count, w) * scale_[image]);
  });
}

void ScoringWeights::tabulateTermWeights() {
  term_power_.assign(static_cast<std::size_t>(kTabledCounts) + 1, 0.0);
  for (std::int32_t c = 0; c < kTabledCounts; ++c) term_power_[static_cast<std::size_t>(c)] = computeTermWeight(c);
}

void ScoringWeights::markCommonWords(const TfIdfModel& model) {
  summed_first_.resize(static_cast<std::size_t>(model.words()));
  for (std::size_t w = 0; w < summed_first_.size(); ++w)
    summed_first_[w] = 5 * model.documentFrequency(w) >= model.images();
}

double ScoringWeights::computeTermWeight(std::int32_t count) const {
  if (count <= 0) return 0.0;  // absent words; only reached for the table's entry 0
  const double c = static_cast<double>(count);
  double f = c;
  if (options_.term == TermWeighting::Sqrt) f = std::sqrt(c);
  if (options_.term == TermWeighting::Log) f = 1.0 + std::log(c);
  return std::pow(f, options_.power);
}

}  // namespace bovw::index_detail
