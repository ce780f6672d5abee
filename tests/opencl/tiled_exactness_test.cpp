// The Tiled kernel is exact: its assignments equal the golden OpenMP path's, word for word, not
// just up to near-ties (the other variants' standard, opencl_variants_test.cpp). Checked on fresh
// random data of odd shapes and several tile sizes, on real SURF descriptors (OpenCV's reference
// output for graf1, tests/data/descriptors), on exact ties that float32 rounds differently, on
// near-ties that the expanded form ||c||^2 - 2 x.c alone gets wrong (shown in the same test, with
// an independent float computation and with the kernel's re-check switched off), and near overflow.
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/npy.hpp>

#include <limits>

namespace bovw::test {
namespace {

HistogrammerConfig tiledConfig(TileSizes tiles = {}, std::string build_options = "") {
  HistogrammerConfig config = openclConfig(KernelVariant::Tiled);
  config.tiles = tiles;
  config.build_options = std::move(build_options);
  return config;
}

// Exact agreement with the golden path, and histograms that count the assignments.
void expectExact(Histogrammer& histogrammer, const Descriptors& x, const Vocabulary& vocabulary,
                 const std::vector<std::int64_t>& offsets) {
  SCOPED_TRACE(histogrammer.description());
  std::vector<std::int32_t> words;
  const Histograms h = histogrammer.compute(DescriptorBatch(x, offsets), vocabulary, &words);
  EXPECT_TRUE(assignmentsEqual(openmpAssign(x, vocabulary), words));
  EXPECT_TRUE(histogramsConsistent(offsets, vocabulary.size(), words, h));
}

class TiledExact : public testing::Test {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
};

// Odd N, K and D (partial tiles everywhere, D not a multiple of 4 or of the chunk depth), with the
// device's default tiles and with small and lopsided ones.
TEST_F(TiledExact, RandomShapesEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  const std::vector<TileSizes> tilings = {{}, {4, 4, 4, 4, 4}, {8, 4, 4, 8, 8}};
  const std::vector<Shape> shapes = {{1, 1, 64, 1},     {2, 3, 1, 1},       {129, 17, 3, 2},
                                     {257, 130, 61, 5}, {1000, 257, 64, 7}, {777, 64, 128, 3},
                                     {3001, 1000, 64, 20}};
  for (const TileSizes& tiles : tilings) {
    auto h = makeHistogrammer(tiledConfig(tiles));
    for (const Shape& s : shapes) {
      SCOPED_TRACE(shapeName(s));
      const Descriptors x = randomMatrix(rng, s.n, s.d);
      const Vocabulary vocabulary(randomMatrix(rng, s.k, s.d));
      expectExact(*h, x, vocabulary, randomOffsets(rng, s.n, s.images));
    }
  }
}

// Real SURF descriptors (unit length, clustered): a vocabulary trained on them by k-means, and one
// whose words are descriptors themselves (distance 0 for those rows, close runners-up).
TEST_F(TiledExact, RealSurfDescriptorsEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  for (const char* file : {"graf1_surf64_first3000.npy", "graf1_surf128_first1500.npy"}) {
    SCOPED_TRACE(file);
    const Descriptors x = npy::readFloat32Matrix(std::string(BOVW_TEST_DATA) + "/descriptors/" + file);
    ASSERT_GT(x.rows(), 1000);
    KMeansOptions options;
    options.words = 200;
    options.max_iterations = 5;
    options.seed = rng();
    const Vocabulary trained = trainVocabulary(x, options);
    Descriptors rows(301, x.cols());
    std::uniform_int_distribution<Eigen::Index> pick(0, x.rows() - 1);
    for (Eigen::Index j = 0; j < rows.rows(); ++j) rows.row(j) = x.row(pick(rng));
    auto h = makeHistogrammer(tiledConfig());
    expectExact(*h, x, trained, randomOffsets(rng, x.rows(), 9));
    expectExact(*h, x, Vocabulary(rows), randomOffsets(rng, x.rows(), 4));
  }
}

// Exactly equidistant pairs that float32 rounds differently in different summation orders: the
// chapter variants may pick either word of a pair; Tiled must pick the golden path's.
TEST_F(TiledExact, PermutedTwinsEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  auto h = makeHistogrammer(tiledConfig());
  for (int d : {64, 128}) {
    SCOPED_TRACE("D = " + std::to_string(d));
    const TwinData data = permutedTwins(rng, 20, d, 4000);
    expectExact(*h, data.x, Vocabulary(data.centroids), randomOffsets(rng, 4000, 3));
  }
}

// Descriptors and words far from the origin (100 + noise below 0.01 per feature): ||c||^2 and
// 2 x.c are ~6.4e5 while the distances are ~1e-3, so the expanded form's rounding decides the
// argmin (RAFT issue #1036). Shown three ways on the same data: an independent float expanded form
// disagrees with the golden path; so does the kernel with its margin set to 0 (re-checking exact
// ties only); the kernel as shipped agrees on every row.
TEST_F(TiledExact, FarFromTheOriginTheRecheckRestoresTheGoldenAnswer) {
  BOVW_SEEDED_RNG(rng);
  const std::int64_t n = 1500;
  const int d = 64, k = 60;
  Descriptors c = randomMatrix(rng, k, d, 0.0f, 0.01f).array() + 100.0f;
  Descriptors x = randomMatrix(rng, n, d, 0.0f, 0.01f).array() + 100.0f;
  const Vocabulary vocabulary(c);
  const auto golden = openmpAssign(x, vocabulary);

  const int expanded_wrong = differences(golden, expandedFormArgmin(x, c));
  EXPECT_GT(expanded_wrong, n / 4) << "the data should defeat the plain expanded form";

  auto unchecked = makeHistogrammer(tiledConfig({}, "-DBOVW_MARGIN_SCALE=0.0f"));
  const int kernel_wrong = differences(golden, unchecked->assign(x, vocabulary));
  EXPECT_GT(kernel_wrong, n / 4) << "without its margin the kernel's expanded form should miss too";

  auto checked = makeHistogrammer(tiledConfig());
  expectExact(*checked, x, vocabulary, randomOffsets(rng, n, 6));
  RecordProperty("expanded_form_wrong", expanded_wrong);
  RecordProperty("kernel_without_margin_wrong", kernel_wrong);
}

// Values near 1e18: squared norms overflow float, the expanded form gives inf or NaN, and some
// golden distances overflow to +inf too. The kernel must notice and defer to the direct sum.
TEST_F(TiledExact, HugeValuesEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 300, 64, -1e18f, 1e18f);
  const Descriptors c = randomMatrix(rng, 40, 64, -1e18f, 1e18f);
  auto h = makeHistogrammer(tiledConfig());
  expectExact(*h, x, Vocabulary(c), {0, 100, 300});
  // Mixed scales: small descriptors against words of which one is huge.
  Descriptors mixed = randomMatrix(rng, 40, 64);
  mixed.row(7).setConstant(3e19f);
  const Descriptors small = randomMatrix(rng, 300, 64);
  expectExact(*h, small, Vocabulary(mixed), {0, 300});
}

// One histogrammer, several vocabularies and widths in turn: the resident words are replaced.
TEST_F(TiledExact, VocabulariesAndWidthsInTurn) {
  BOVW_SEEDED_RNG(rng);
  auto h = makeHistogrammer(tiledConfig());
  for (int round = 0; round < 2; ++round)
    for (int d : {64, 128, 64}) {
      const Descriptors x = randomMatrix(rng, 500, d);
      expectExact(*h, x, Vocabulary(randomMatrix(rng, 100 + round, d)), {0, 250, 500});
    }
}

TEST_F(TiledExact, TileSizesAreValidated) {
  EXPECT_THROW(makeHistogrammer(tiledConfig({6, 8, 16, 16, 16})), InvalidInput);   // not a multiple of 4
  EXPECT_THROW(makeHistogrammer(tiledConfig({8, 8, 16, 16, 18})), InvalidInput);   // depth
  EXPECT_THROW(makeHistogrammer(tiledConfig({4, 4, 4096, 4096, 4})), CapacityError);  // work-items
}

}  // namespace
}  // namespace bovw::test
