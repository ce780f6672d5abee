// Synthetic images shaped like real ones for the retrieval benchmarks (issue 21): each image has 500
// distinct words drawn with popularity 1/rank^0.8 over K words, counts 1 + geometric(0.6); a query is
// an indexed image with 30% of its words dropped.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

class SyntheticImages {
 public:
  using Row = Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>;
  static constexpr int kWordsPerImage = 500;

  SyntheticImages(int words, std::uint64_t seed) : words_(words), rng_(seed) {
    std::vector<double> popularity(static_cast<std::size_t>(words));
    for (int r = 0; r < words; ++r) popularity[static_cast<std::size_t>(r)] = std::pow(r + 1.0, -0.8);
    word_ = std::discrete_distribution<int>(popularity.begin(), popularity.end());
    // Which word has which popularity rank: a fixed shuffle, so popular words are spread over K.
    rank_to_word_.resize(static_cast<std::size_t>(words));
    for (int w = 0; w < words; ++w) rank_to_word_[static_cast<std::size_t>(w)] = w;
    std::shuffle(rank_to_word_.begin(), rank_to_word_.end(), rng_);
  }

  // (word, count) pairs, words distinct; fewer than 500 when K is smaller.
  std::vector<std::pair<int, int>> next() {
    std::vector<char> taken(static_cast<std::size_t>(words_), 0);
    std::vector<std::pair<int, int>> image;
    std::geometric_distribution<int> extra(0.6);
    const std::size_t distinct = static_cast<std::size_t>(std::min(kWordsPerImage, words_ / 2));
    while (image.size() < distinct) {
      const int w = rank_to_word_[static_cast<std::size_t>(word_(rng_))];
      if (taken[static_cast<std::size_t>(w)]) continue;
      taken[static_cast<std::size_t>(w)] = 1;
      image.emplace_back(w, 1 + extra(rng_));
    }
    return image;
  }

  // The image with 30% of its words dropped, as a dense query row.
  Row query(const std::vector<std::pair<int, int>>& image) {
    Row row = Row::Zero(words_);
    std::bernoulli_distribution keep(0.7);
    for (const auto& [w, c] : image)
      if (keep(rng_)) row[w] = c;
    return row;
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  int words_;
  std::mt19937_64 rng_;
  std::discrete_distribution<int> word_;
  std::vector<int> rank_to_word_;
};
