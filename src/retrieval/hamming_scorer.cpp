// HammingScorer: one merge of the query's features and an image's stored keypoints, both in word order.
#include "retrieval/hamming_scorer.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <cmath>

namespace bovw::retrieval_detail {

namespace {

// Bits: the width of the distance weighting. Jégou et al. (IJCV 2010) take 16 for signatures of a
// trained projection; these (the raw descriptor against its centroid) separate true pairs from chance
// ones less sharply, and 8 ranked better on the quick start's box_in_scene.png (docs/RETRIEVAL.md).
constexpr double kSigma = 8.0;

// Scratch space of one word's pairs, reused between words and images of a thread.
struct PairScratch {
  std::vector<std::uint8_t> distance;  // query feature a, image feature b: [a * image_count + b]
  std::vector<std::uint32_t> per_query, per_image;  // matches of each feature
};
thread_local PairScratch t_pairs;

// f(c) of the term weighting (inverted_index.hpp).
double weightOfCount(TermWeighting term, std::size_t count) {
  const double c = static_cast<double>(count);
  switch (term) {
    case TermWeighting::Sqrt: return std::sqrt(c);
    case TermWeighting::Log: return 1.0 + std::log(c);
    case TermWeighting::Count: break;
  }
  return c;
}

}  // namespace

HammingScorer::HammingScorer(const ImageWords& query, const TfIdfModel& model, const ScoringOptions& options)
    : term_(options.term), threshold_(options.hamming_threshold) {
  checkScoringOptions(options);
  for (std::size_t c = 1; c < kTabled; ++c) {
    weight_of_count_[c] = weightOfCount(term_, c);
    factor_of_count_[c] = weight_of_count_[c] / std::sqrt(static_cast<double>(c));
  }
  if (query.signatures.size() != query.words.size())
    throw InvalidInput("Hamming-embedding scoring needs the query's word signatures: it has " +
                       std::to_string(query.signatures.size()) + " for " + std::to_string(query.words.size()) +
                       " words");
  const int words = model.words();
  idf_.resize(static_cast<std::size_t>(words));
  for (int w = 0; w < words; ++w) idf_[static_cast<std::size_t>(w)] = model.idf(static_cast<std::size_t>(w));
  query_.reserve(query.words.size());
  for (std::size_t i = 0; i < query.words.size(); ++i) {
    const std::int32_t w = query.words[i];
    if (w < 0 || w >= words)
      throw InvalidInput("the query's word " + std::to_string(w) + " is outside the vocabulary of " +
                         std::to_string(words) + " words");
    query_.push_back({static_cast<std::uint32_t>(w), query.signatures[i]});
  }
  std::stable_sort(query_.begin(), query_.end(), [](const Feature& a, const Feature& b) { return a.word < b.word; });
  for (std::size_t i = 0; i < query_.size();) {
    std::size_t end = i;
    while (end < query_.size() && query_[end].word == query_[i].word) ++end;
    const double v = termWeight(end - i) * idf_[query_[i].word];
    query_norm_ += v * v;
    i = end;
  }
  query_norm_ = std::sqrt(query_norm_);
  for (int h = 0; h <= options.hamming_threshold; ++h)
    weight_[static_cast<std::size_t>(h)] = std::exp(-(h * h) / (kSigma * kSigma));
}

double HammingScorer::termWeight(std::size_t count) const {
  return count < kTabled ? weight_of_count_[count] : weightOfCount(term_, count);
}

double HammingScorer::termFactor(std::size_t count) const {
  return count < kTabled ? factor_of_count_[count] : termWeight(count) / std::sqrt(static_cast<double>(count));
}

double HammingScorer::pairSum(std::size_t query_begin, std::size_t query_end,
                              const KeypointStore::Keypoint* image, std::size_t image_count) const {
  const std::size_t query_count = query_end - query_begin;
  PairScratch& s = t_pairs;
  s.distance.resize(query_count * image_count);
  s.per_query.assign(query_count, 0);
  s.per_image.assign(image_count, 0);
  bool any = false;
  for (std::size_t a = 0; a < query_count; ++a)
    for (std::size_t b = 0; b < image_count; ++b) {
      const int h = signatureDistance(query_[query_begin + a].signature, image[b].signature);
      s.distance[a * image_count + b] = static_cast<std::uint8_t>(h);
      if (h > threshold_) continue;
      ++s.per_query[a];
      ++s.per_image[b];
      any = true;
    }
  if (!any) return 0;
  double sum = 0;
  for (std::size_t a = 0; a < query_count; ++a)
    for (std::size_t b = 0; b < image_count; ++b) {
      const std::uint8_t h = s.distance[a * image_count + b];
      if (h <= threshold_) sum += weight_[h] / std::sqrt(static_cast<double>(s.per_query[a]) * s.per_image[b]);
    }
  return sum;
}

double HammingScorer::score(const KeypointStore::StoredImage& image) const {
  const std::vector<KeypointStore::Keypoint>& keys = image.keypoints;
  double matched = 0, image_norm = 0;
  std::size_t q = 0;
  for (std::size_t i = 0; i < keys.size();) {
    const std::uint32_t word = keys[i].word;
    std::size_t end = i;
    while (end < keys.size() && keys[end].word == word) ++end;
    const double idf = idf_[word];
    const double v = termWeight(end - i) * idf;
    image_norm += v * v;
    while (q < query_.size() && query_[q].word < word) ++q;
    std::size_t q_end = q;
    while (q_end < query_.size() && query_[q_end].word == word) ++q_end;
    if (q_end > q) matched += idf * idf * termFactor(q_end - q) * termFactor(end - i) * pairSum(q, q_end, &keys[i], end - i);
    i = end;
  }
  if (matched == 0) return 0;
  return matched / (query_norm_ * std::sqrt(image_norm));
}

}  // namespace bovw::retrieval_detail
