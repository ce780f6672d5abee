// Random collections for the tests of Hamming-embedding scoring: images over few words, with bursts
// and with signatures near the query's, and the database that holds them with their keypoints.
#pragma once

#include "support/test_support.hpp"

#include <bovw/feature_spec.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_words.hpp>
#include <bovw/vocabulary.hpp>

#include <random>
#include <string>
#include <vector>

namespace bovw::test {

inline constexpr int kSide = 500;

struct Collection {
  Vocabulary vocabulary;
  std::vector<ImageWords> images;
  ImageWords query;
};

// Random images over few words, so that words repeat within an image (bursts) and across images;
// each image takes some of the query's features with a few signature bits flipped (0 to 40: inside
// and outside every threshold), and random ones.
inline Collection randomCollection(std::mt19937_64& rng, int words, int images) {
  Collection c{Vocabulary(randomMatrix(rng, words, 64), DescriptorType::parse("surf64")), {}, {}};
  std::uniform_int_distribution<std::int32_t> word(0, words - 1);
  std::uniform_real_distribution<float> anywhere(0.0f, kSide - 1.0f);
  const auto feature = [&](ImageWords& image, std::int32_t w, std::uint64_t signature) {
    image.points.emplace_back(anywhere(rng), anywhere(rng));
    image.words.push_back(w);
    image.signatures.push_back(signature);
  };
  c.query.image_size = {kSide, kSide};
  for (int i = 0; i < 60; ++i) feature(c.query, word(rng), rng());
  for (int n = 0; n < images; ++n) {
    ImageWords image;
    image.image_size = {kSide, kSide};
    const int shared = static_cast<int>(rng() % 40), own = 5 + static_cast<int>(rng() % 50);
    for (int i = 0; i < shared; ++i) {
      const std::size_t from = rng() % c.query.words.size();
      std::uint64_t signature = c.query.signatures[from];
      for (int flips = static_cast<int>(rng() % 41); flips > 0; --flips) signature ^= std::uint64_t{1} << (rng() % 64);
      feature(image, c.query.words[from], signature);
    }
    for (int i = 0; i < own; ++i) feature(image, word(rng), rng());
    c.images.push_back(image);
  }
  return c;
}

inline ImageDatabase databaseOf(const Collection& c) {
  ImageDatabase database(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (std::size_t n = 0; n < c.images.size(); ++n) database.add("image" + std::to_string(n), c.images[n]);
  return database;
}

}  // namespace bovw::test
