// Helpers for the index tests: random word-count histograms and the reference TF-IDF ranking,
// computed densely in double straight from the definitions (tf = count / total, smoothed idf,
// normalise, compare), independent of the index's inverted lists and cancellations.
#pragma once

#include "support/test_support.hpp"

#include <bovw/inverted_index.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace bovw::test {

using Counts = std::vector<std::int32_t>;

inline HistogramRef view(const Counts& counts) {
  return Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>>(counts.data(),
                                                                          static_cast<Eigen::Index>(counts.size()));
}

// `descriptors` draws over K words with Zipf-like weights 1 / (w + 1), as visual words are: a few
// words in most images (low idf), many rare ones (high idf).
inline Counts randomCounts(std::mt19937_64& rng, int words, int descriptors) {
  std::vector<double> weights(static_cast<std::size_t>(words));
  for (int w = 0; w < words; ++w) weights[static_cast<std::size_t>(w)] = 1.0 / (w + 1.0);
  std::discrete_distribution<int> word(weights.begin(), weights.end());
  Counts counts(static_cast<std::size_t>(words), 0);
  for (int i = 0; i < descriptors; ++i) ++counts[static_cast<std::size_t>(word(rng))];
  return counts;
}

struct Expected {
  ImageId id;
  double score;
};

// The documented idf of every word, recomputed from the live images: ln((1 + N) / (1 + n_w)) + 1.
inline std::vector<double> smoothedIdf(const std::map<ImageId, Counts>& images, std::size_t words) {
  const double n = static_cast<double>(images.size());
  std::vector<double> idf(words);
  for (std::size_t w = 0; w < words; ++w) {
    double containing = 0;
    for (const auto& [id, counts] : images) containing += counts[w] > 0 ? 1 : 0;
    idf[w] = std::log((1.0 + n) / (1.0 + containing)) + 1.0;
  }
  return idf;
}

inline std::string imageName(std::size_t id) { return "img" + std::to_string(id); }

// A double's bits, for comparisons that must be exact.
inline std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Both similarities, every term weighting, three exponents alpha.
inline std::vector<ScoringOptions> everyOptionSet() {
  std::vector<ScoringOptions> sets;
  for (Scoring similarity : {Scoring::Intersection, Scoring::Cosine})
    for (TermWeighting term : {TermWeighting::Count, TermWeighting::Sqrt, TermWeighting::Log})
      for (double power : {1.0, 0.5, 0.3}) sets.push_back({similarity, term, power});
  return sets;
}

// The concurrency tests' edits: adds images [first, end) and, after each third, removes the image
// before it; yields now and then (every `yield_every`, 0: never) so that readers get in between.
inline void addAndRemove(InvertedIndex& index, const std::vector<Counts>& histograms, int first, int end,
                         int yield_every = 0) {
  for (int i = first; i < end; ++i) {
    index.add(imageName(static_cast<std::size_t>(i)), view(histograms[static_cast<std::size_t>(i)]));
    if (i % 3 == 0) index.remove(imageName(static_cast<std::size_t>(i - 1)));
    if (yield_every > 0 && i % yield_every == 0) std::this_thread::yield();
  }
}

// The ranking the index must produce: every image with a positive score, by score descending
// then id ascending. `images` holds the live images by id.
inline std::vector<Expected> bruteForce(const std::map<ImageId, Counts>& images, const Counts& query,
                                        Scoring scoring) {
  const std::size_t words = query.size();
  const std::vector<double> idf = smoothedIdf(images, words);
  auto weigh = [&](const Counts& counts) {
    double total = 0;
    for (auto c : counts) total += c;
    std::vector<double> v(words, 0.0);
    if (total == 0) return v;
    double norm = 0;
    for (std::size_t w = 0; w < words; ++w) {
      v[w] = counts[w] / total * idf[w];
      norm += scoring == Scoring::Cosine ? v[w] * v[w] : v[w];
    }
    if (scoring == Scoring::Cosine) norm = std::sqrt(norm);
    for (auto& x : v) x /= norm;
    return v;
  };
  const std::vector<double> q = weigh(query);
  std::vector<Expected> ranking;
  for (const auto& [id, counts] : images) {
    const std::vector<double> d = weigh(counts);
    double score = 0;
    for (std::size_t w = 0; w < words; ++w) score += scoring == Scoring::Cosine ? q[w] * d[w] : std::min(q[w], d[w]);
    if (score > 0) ranking.push_back({id, score});
  }
  std::sort(ranking.begin(), ranking.end(), [](const Expected& a, const Expected& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  });
  return ranking;
}

inline bool closeRelative(double a, double b, double tolerance) {
  return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

// Rank by rank: the score equals the reference's score at that rank, and the returned image's own
// reference score equals it too. So ids may differ from the reference only between images whose
// reference scores agree within the tolerance (near-ties); any other swap, a missing or an extra
// image fails. Returns the number of such near-tie swaps.
inline int expectSameRanking(const std::vector<SearchResult>& got, const std::vector<Expected>& expected,
                             std::size_t top_k, const std::map<ImageId, std::string>& names,
                             double tolerance = 1e-9) {
  std::map<ImageId, double> reference;
  for (const auto& e : expected) reference[e.id] = e.score;
  EXPECT_EQ(got.size(), std::min(top_k, expected.size()));
  int swaps = 0;
  std::vector<ImageId> seen;
  for (std::size_t r = 0; r < std::min(got.size(), expected.size()); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r + 1) + ", id " + std::to_string(got[r].id));
    EXPECT_TRUE(std::isfinite(got[r].score));
    EXPECT_TRUE(closeRelative(got[r].score, expected[r].score, tolerance))
        << got[r].score << " vs reference " << expected[r].score;
    auto it = reference.find(got[r].id);
    if (it == reference.end()) {
      ADD_FAILURE() << "returned an image whose reference score is 0 (or that is not indexed)";
      continue;
    }
    EXPECT_TRUE(closeRelative(got[r].score, it->second, tolerance)) << got[r].score << " vs its own " << it->second;
    EXPECT_EQ(got[r].name, names.at(got[r].id));
    EXPECT_EQ(std::count(seen.begin(), seen.end(), got[r].id), 0) << "returned twice";
    seen.push_back(got[r].id);
    if (got[r].id != expected[r].id) ++swaps;
  }
  return swaps;
}

}  // namespace bovw::test
