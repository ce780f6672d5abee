// wordSignature against its definition, computed here bit by bit: bit j is whether the descriptor's
// dimension j * d / bits (bits = min(d, 64)) exceeds its word's. Every dimension count from 1 to 130
// (64 and 128 take the vector path), fresh random values, and the cases where a vector compare and
// the scalar one could part: equal values, -0 against +0, and NaNs and infinities in descriptors.
#include "support/test_support.hpp"

#include <bovw/image_words.hpp>

#include <cmath>
#include <limits>

namespace bovw::test {
namespace {

std::uint64_t definedSignature(const float* descriptor, const float* centroid, int d) {
  const int bits = std::min(d, 64);
  std::uint64_t signature = 0;
  for (int j = 0; j < bits; ++j) {
    const int dimension = static_cast<int>(static_cast<std::int64_t>(j) * d / bits);
    if (descriptor[dimension] > centroid[dimension]) signature |= std::uint64_t{1} << j;
  }
  return signature;
}

// A value from a small set, so that equal values are frequent, or one of the awkward floats (only
// finite ones for a word: a vocabulary refuses NaN and infinity).
float drawnValue(std::mt19937_64& rng, bool finite) {
  static const float awkward[] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::denorm_min(), -1.5f, 0.25f};
  const std::uint64_t r = rng();
  if (r % 4 == 0) {
    const float v = awkward[(r >> 8) % 8];
    return finite && !std::isfinite(v) ? 1.0f : v;
  }
  if (r % 4 == 1) return static_cast<float>((r >> 8) % 5) * 0.5f;
  return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
}

TEST(WordSignature, IsTheDefinitionForEveryDimensionCount) {
  BOVW_SEEDED_RNG(rng);
  for (int d = 1; d <= 130; ++d) {
    const int k = 1 + static_cast<int>(rng() % 17);
    Descriptors centroids(k, d);
    for (Eigen::Index i = 0; i < centroids.size(); ++i) centroids.data()[i] = drawnValue(rng, true);
    const Vocabulary vocabulary(centroids);
    std::vector<float> descriptor(static_cast<std::size_t>(d));
    for (int trial = 0; trial < 200; ++trial) {
      for (float& v : descriptor) v = drawnValue(rng, false);
      const std::int32_t word = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(k));
      ASSERT_EQ(wordSignature(descriptor.data(), vocabulary, word),
                definedSignature(descriptor.data(), vocabulary.centroids().row(word).data(), d))
          << "d = " << d << ", trial " << trial;
    }
  }
}

// A descriptor equal to its word signs 0, and one above it in every dimension signs every bit.
TEST(WordSignature, AWordItselfSignsNothingAndOneAboveItSignsEveryBit) {
  BOVW_SEEDED_RNG(rng);
  for (const int d : {32, 64, 100, 128}) {
    const Vocabulary vocabulary(randomMatrix(rng, 5, d));
    const int bits = std::min(d, 64);
    for (std::int32_t word = 0; word < 5; ++word) {
      std::vector<float> descriptor(vocabulary.centroids().row(word).data(),
                                    vocabulary.centroids().row(word).data() + d);
      EXPECT_EQ(wordSignature(descriptor.data(), vocabulary, word), 0u) << "d = " << d;
      for (float& v : descriptor) v = std::nextafter(v, 2.0f);
      EXPECT_EQ(wordSignature(descriptor.data(), vocabulary, word),
                bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1)
          << "d = " << d;
    }
  }
}

}  // namespace
}  // namespace bovw::test
