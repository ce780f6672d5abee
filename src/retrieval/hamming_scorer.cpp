// HammingScorer: one merge of the query's features and an image's stored keypoints, both in word order;
// with weak geometric consistency the matched pairs also fill two histograms of their geometry.
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

// The largest sum of three neighbouring bins (circular: the first and last bins are neighbours).
double bestWindow(const std::vector<double>& bins, bool circular) {
  const std::size_t n = bins.size();
  double best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double window = bins[i];
    if (i > 0 || circular) window += bins[(i + n - 1) % n];
    if (i + 1 < n || circular) window += bins[(i + 1) % n];
    best = std::max(best, window);
  }
  return best;
}

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

// The pairs' terms by orientation difference and by log-scale difference, reused between images of
// a thread.
struct HammingScorer::Histograms {
  std::vector<double> angle, log_scale;
};

HammingScorer::HammingScorer(const ImageWords& query, const TfIdfModel& model, const ScoringOptions& options)
    : term_(options.term), threshold_(options.hamming_threshold), weak_geometry_(options.weak_geometry) {
  checkScoringOptions(options);
  for (std::size_t c = 1; c < kTabled; ++c) {
    weight_of_count_[c] = weightOfCount(term_, c);
    factor_of_count_[c] = weight_of_count_[c] / std::sqrt(static_cast<double>(c));
  }
  if (query.signatures.size() != query.words.size())
    throw InvalidInput("Hamming-embedding scoring needs the query's word signatures: it has " +
                       std::to_string(query.signatures.size()) + " for " + std::to_string(query.words.size()) +
                       " words");
  if (weak_geometry_ && (query.sizes.size() != query.words.size() || query.angles.size() != query.words.size()))
    throw InvalidInput("weak geometric consistency needs the query's keypoint sizes and angles: it has " +
                       std::to_string(query.sizes.size()) + " sizes and " + std::to_string(query.angles.size()) +
                       " angles for " + std::to_string(query.words.size()) + " words");
  const int words = model.words();
  idf_.resize(static_cast<std::size_t>(words));
  for (int w = 0; w < words; ++w) idf_[static_cast<std::size_t>(w)] = model.idf(static_cast<std::size_t>(w));
  query_.reserve(query.words.size());
  for (std::size_t i = 0; i < query.words.size(); ++i) {
    const std::int32_t w = query.words[i];
    if (w < 0 || w >= words)
      throw InvalidInput("the query's word " + std::to_string(w) + " is outside the vocabulary of " +
                         std::to_string(words) + " words");
    KeypointStore::ScaleAngle scale_angle{0, 0};
    if (weak_geometry_)
      scale_angle = {KeypointStore::quantiseLogScale(query.sizes[i]), KeypointStore::quantiseAngle(query.angles[i])};
    query_.push_back({static_cast<std::uint32_t>(w), query.signatures[i], scale_angle});
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

double HammingScorer::pairSum(std::size_t query_begin, std::size_t query_end, const KeypointStore::Keypoint* image,
                              std::size_t image_count, const KeypointStore::ScaleAngle* scale_angles, double factor,
                              Histograms* histograms) const {
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
      if (h > threshold_) continue;
      const double term = weight_[h] / std::sqrt(static_cast<double>(s.per_query[a]) * s.per_image[b]);
      sum += term;
      if (histograms == nullptr) continue;
      const KeypointStore::ScaleAngle q = query_[query_begin + a].scale_angle, d = scale_angles[b];
      // Differences of the image's keypoint from the query's: the angle mod 256 (a byte's wrap-around),
      // the log-scale from -255 to 255, shifted to 1 to 511.
      const auto angle = static_cast<std::uint8_t>(d.angle - q.angle);
      const int log_scale = int{d.log_scale} - int{q.log_scale} + 256;
      histograms->angle[angle * histograms->angle.size() / 256] += factor * term;
      histograms->log_scale[static_cast<std::size_t>(log_scale) * histograms->log_scale.size() / 512] += factor * term;
    }
  return sum;
}

double HammingScorer::score(const KeypointStore::StoredImage& image) const {
  const std::vector<KeypointStore::Keypoint>& keys = image.keypoints;
  thread_local Histograms t_histograms;
  Histograms* histograms = nullptr;
  if (weak_geometry_) {
    if (!image.hasScaleAngles())
      throw InvalidInput("an image's keypoints have no scale and angle, so weak geometric consistency cannot score "
                         "it (index the images again)");
    histograms = &t_histograms;
    histograms->angle.assign(kAngleBins, 0.0);
    histograms->log_scale.assign(kLogScaleBins, 0.0);
  }
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
    if (q_end > q) {
      const double factor = idf * idf * termFactor(q_end - q) * termFactor(end - i);
      matched += factor * pairSum(q, q_end, &keys[i], end - i, histograms ? &image.scale_angles[i] : nullptr, factor,
                                  histograms);
    }
    i = end;
  }
  if (matched == 0) return 0;
  if (histograms)
    matched = std::min(bestWindow(histograms->angle, true), bestWindow(histograms->log_scale, false));
  return matched / (query_norm_ * std::sqrt(image_norm));
}

}  // namespace bovw::retrieval_detail
