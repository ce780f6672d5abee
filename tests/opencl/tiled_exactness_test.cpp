// The Tiled kernel and its tensor-core forms (TF32 and FP16 operands) are exact: their assignments
// equal the golden OpenMP path's, word for word, not just up to near-ties (the other variants'
// standard, opencl_variants_test.cpp). TiledTF32 and TiledFP16 run on mma.sync on NVIDIA GPUs and
// emulated elsewhere (PoCL in CI), so their certificate (kernels/tensor_certificate.h) is tested on
// every machine. Checked on fresh
// random data of odd shapes and several tile sizes, on real SURF descriptors (OpenCV's reference
// output for graf1, tests/data/descriptors), on exact ties that float32 rounds differently, on
// near-ties that the expanded form ||c||^2 - 2 x.c alone gets wrong (shown in the same test, with
// an independent float computation and with the kernel's re-check switched off), and near overflow.
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/npy.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <random>
#include <vector>

namespace bovw::test {
namespace {

HistogrammerConfig tiledConfig(KernelVariant variant, TileSizes tiles = {}, std::string build_options = "") {
  HistogrammerConfig config = openclConfig(variant);
  config.tiles = tiles;
  config.build_options = std::move(build_options);
  return config;
}

// Exact agreement with the golden path, and histograms that count the assignments; the call's
// stage times, for the tests that look at its re-checks.
StageTimes expectExact(Histogrammer& histogrammer, const Descriptors& x, const Vocabulary& vocabulary,
                       const std::vector<std::int64_t>& offsets) {
  SCOPED_TRACE(histogrammer.description());
  std::vector<std::int32_t> words;
  StageTimes times;
  const Histograms h = histogrammer.compute(DescriptorBatch(x, offsets), vocabulary, &words, &times);
  EXPECT_TRUE(assignmentsEqual(openmpAssign(x, vocabulary), words));
  EXPECT_TRUE(histogramsConsistent(offsets, vocabulary.size(), words, h));
  return times;
}

// n rows, each a copy of one of the words `targets` (picked at random; `picked` receives its index)
// moved by at most 1e-3 a feature: rows whose nearest words are ties placed at those targets.
Descriptors rowsNearWords(std::mt19937_64& rng, const Descriptors& c, std::int64_t n, const std::vector<int>& targets,
                          std::vector<int>* picked = nullptr) {
  Descriptors x(n, c.cols());
  std::uniform_int_distribution<int> target(0, static_cast<int>(targets.size()) - 1);
  std::uniform_real_distribution<float> noise(-1e-3f, 1e-3f);
  for (std::int64_t i = 0; i < n; ++i) {
    const int t = target(rng);
    if (picked != nullptr) picked->push_back(t);
    for (Eigen::Index f = 0; f < c.cols(); ++f) x(i, f) = c(targets[static_cast<std::size_t>(t)], f) + noise(rng);
  }
  return x;
}

class TiledExact : public testing::TestWithParam<KernelVariant> {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
  HistogrammerConfig config(TileSizes tiles = {}, std::string build_options = "") const {
    return tiledConfig(GetParam(), tiles, std::move(build_options));
  }
  bool onTensorCores() const {
    return GetParam() == KernelVariant::TiledTF32 || GetParam() == KernelVariant::TiledFP16;
  }
  // Small and lopsided tiles of each kernel (tensor cores: 16-row tiles, 8-word tiles, warps, -,
  // 8-word tiles staged in local memory: none, chunks of 8, and of 4 with 4 warps of 4 x 8 words).
  std::vector<TileSizes> tilings() const {
    if (onTensorCores())
      return {{}, {2, 2, 2, 1, 1}, {1, 1, 1, 1, 8}, {3, 4, 2, 1, 8}, {2, 4, 4, 1, 4}};
    return {{}, {4, 4, 4, 4, 4}, {8, 4, 4, 8, 8}};
  }
};

// Odd N, K and D (partial tiles everywhere, D not a multiple of 4 or of the chunk depth), with the
// device's default tiles and with small and lopsided ones.
TEST_P(TiledExact, RandomShapesEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  std::vector<Shape> shapes = {{1, 1, 64, 1},     {2, 3, 1, 1},       {129, 17, 3, 2},
                               {257, 130, 61, 5}, {1000, 257, 64, 7}, {777, 64, 128, 3}};
  // The tensor cores are emulated off NVIDIA GPUs (slowly): a smaller large case, and a long
  // vocabulary for more index bits per score.
  if (onTensorCores()) {
    shapes.push_back({1001, 300, 64, 20});
    shapes.push_back({65, 2000, 64, 2});
  } else {
    shapes.push_back({3001, 1000, 64, 20});
  }
  const bool tensor = onTensorCores();
  for (const TileSizes& tiles : tilings()) {
    auto h = makeHistogrammer(config(tiles));
    for (const Shape& s : shapes) {
      // Each width is a program to build, and PoCL builds the emulated tensor-core kernel slowly: its
      // other tilings run on the odd width only.
      if (tensor && tiles.group_rows != 0 && s.d != 61) continue;
      SCOPED_TRACE(shapeName(s));
      const Descriptors x = randomMatrix(rng, s.n, s.d);
      const Vocabulary vocabulary(randomMatrix(rng, s.k, s.d));
      expectExact(*h, x, vocabulary, randomOffsets(rng, s.n, s.images));
    }
  }
}

// Real SURF descriptors (unit length, clustered): a vocabulary trained on them by k-means, and one
// whose words are descriptors themselves (distance 0 for those rows, close runners-up).
TEST_P(TiledExact, RealSurfDescriptorsEqualTheGoldenPath) {
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
    auto h = makeHistogrammer(config());
    expectExact(*h, x, trained, randomOffsets(rng, x.rows(), 9));
    expectExact(*h, x, Vocabulary(rows), randomOffsets(rng, x.rows(), 4));
  }
}

// Exactly equidistant pairs that float32 rounds differently in different summation orders: the
// chapter variants may pick either word of a pair; Tiled must pick the golden path's.
TEST_P(TiledExact, PermutedTwinsEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  auto h = makeHistogrammer(config());
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
TEST_P(TiledExact, FarFromTheOriginTheRecheckRestoresTheGoldenAnswer) {
  BOVW_SEEDED_RNG(rng);
  const std::int64_t n = 1500;
  const int d = 64, k = 60;
  Descriptors c = randomMatrix(rng, k, d, 0.0f, 0.01f).array() + 100.0f;
  Descriptors x = randomMatrix(rng, n, d, 0.0f, 0.01f).array() + 100.0f;
  const Vocabulary vocabulary(c);
  const auto golden = openmpAssign(x, vocabulary);

  const int expanded_wrong = differences(golden, expandedFormArgmin(x, c));
  EXPECT_GT(expanded_wrong, n / 4) << "the data should defeat the plain expanded form";

  auto unchecked = makeHistogrammer(config({}, "-DBOVW_MARGIN_SCALE=0.0f"));
  const int kernel_wrong = differences(golden, unchecked->assign(x, vocabulary));
  EXPECT_GT(kernel_wrong, n / 4) << "without its margin the kernel's expanded form should miss too";

  auto checked = makeHistogrammer(config());
  expectExact(*checked, x, vocabulary, randomOffsets(rng, n, 6));
  RecordProperty("expanded_form_wrong", expanded_wrong);
  RecordProperty("kernel_without_margin_wrong", kernel_wrong);
}

// Values near 1e18: squared norms overflow float, the expanded form gives inf or NaN, and some
// golden distances overflow to +inf too. The kernel must notice and defer to the direct sum.
TEST_P(TiledExact, HugeValuesEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 300, 64, -1e18f, 1e18f);
  const Descriptors c = randomMatrix(rng, 40, 64, -1e18f, 1e18f);
  auto h = makeHistogrammer(config());
  expectExact(*h, x, Vocabulary(c), {0, 100, 300});
  // Mixed scales: small descriptors against words of which one is huge.
  Descriptors mixed = randomMatrix(rng, 40, 64);
  mixed.row(7).setConstant(3e19f);
  const Descriptors small = randomMatrix(rng, 300, 64);
  expectExact(*h, small, Vocabulary(mixed), {0, 300});
}

// One histogrammer, several vocabularies and widths in turn: the resident words are replaced.
TEST_P(TiledExact, VocabulariesAndWidthsInTurn) {
  BOVW_SEEDED_RNG(rng);
  auto h = makeHistogrammer(config());
  for (int round = 0; round < 2; ++round)
    for (int d : {64, 128, 64}) {
      const Descriptors x = randomMatrix(rng, 500, d);
      expectExact(*h, x, Vocabulary(randomMatrix(rng, 100 + round, d)), {0, 250, 500});
    }
}

TEST_P(TiledExact, TileSizesAreValidated) {
  if (onTensorCores()) {
    EXPECT_THROW(makeHistogrammer(config({5, 2, 4, 1, 8})), InvalidInput);   // 16-row tiles per warp
    EXPECT_THROW(makeHistogrammer(config({2, 2, 17, 1, 8})), InvalidInput);  // warps
    EXPECT_THROW(makeHistogrammer(config({2, 3, 2, 1, 1})), InvalidInput);   // 8-word tiles per step
    EXPECT_THROW(makeHistogrammer(config({2, 4, 2, 1, 2})), InvalidInput);   // staged: not a multiple of a step
    EXPECT_THROW(makeHistogrammer(config({2, 2, 2, 1, 6})), InvalidInput);   // staged: does not divide 128
    return;
  }
  EXPECT_THROW(makeHistogrammer(config({6, 8, 16, 16, 16})), InvalidInput);   // not a multiple of 4
  EXPECT_THROW(makeHistogrammer(config({8, 8, 16, 16, 18})), InvalidInput);   // depth
  EXPECT_THROW(makeHistogrammer(config({4, 4, 4096, 4096, 4})), CapacityError);  // work-items
}

// Near-ties built on purpose for the TF32 certificate: each descriptor sits between two words
// whose distances differ by less than TF32 can resolve (and some by nothing), so most rows must
// be decided by the exact paths. The share re-checked is recorded.
TEST_P(TiledExact, ConstructedNearTiesEqualTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  const int d = 64, k = 96;
  const std::int64_t n = 2000;
  const Descriptors c = randomMatrix(rng, k, d);
  const Descriptors x = rowsBetweenWords(rng, c, n, 1e-4f, 3);  // a third midway, the rest within 1e-4 of it
  auto h = makeHistogrammer(config());
  const StageTimes times = expectExact(*h, x, Vocabulary(c), randomOffsets(rng, n, 5));
  EXPECT_GT(times.rechecked_rows, 0) << "near-ties that no rounding bound can separate must be re-checked";
  RecordProperty("rechecked_rows", static_cast<int>(times.rechecked_rows));
}

// Exact ties among three words, placed so that the TF32 kernel's lanes (word w goes to lane
// (w % 8) / 2 of its row's quad) hold them either in three lanes or all in one. Spread over three
// lanes, every word within the margin is known to the lanes, and their golden distances decide the
// row in the kernel; three in one lane leave a word unknown, so the row is fully re-checked. Either
// way the answer is the golden path's: the lowest of the tied words.
TEST_P(TiledExact, TiesSpreadOverLanesAreDecidedByTheirDistances) {
  BOVW_SEEDED_RNG(rng);
  const int d = 64, groups = 12, k = 8 * groups + 5;
  Descriptors c = randomMatrix(rng, k, d);
  const std::array<int, 3> spread = {1, 3, 5}, one_lane = {0, 1, 8};  // offsets from a group's first word
  for (int g = 0; g < groups; ++g) {
    const std::array<int, 3>& tied = g % 2 == 0 ? spread : one_lane;
    for (int i = 1; i < 3; ++i) c.row(8 * g + tied[i]) = c.row(8 * g + tied[0]);
  }
  const std::int64_t n = 1001;
  std::vector<int> targets, picked;
  for (int g = 0; g < groups; ++g) targets.push_back(8 * g + (g % 2 == 0 ? spread[0] : one_lane[0]));
  const Descriptors x = rowsNearWords(rng, c, n, targets, &picked);
  const auto in_one_lane =
      static_cast<std::int64_t>(std::count_if(picked.begin(), picked.end(), [](int g) { return g % 2 == 1; }));
  auto h = makeHistogrammer(config());
  const StageTimes times = expectExact(*h, x, Vocabulary(c), randomOffsets(rng, n, 4));
  EXPECT_EQ(times.rechecked_rows, n) << "every row is a tie that only direct sums decide";
  if (onTensorCores())
    EXPECT_EQ(times.fully_rechecked_rows, in_one_lane) << "only ties held in one lane need every word summed";
  else
    EXPECT_EQ(times.fully_rechecked_rows, n);
}

// Exact ties between the two columns of one lane's tile (words 8g + 2q and 8g + 2q + 1): the tensor
// kernels fold such a pair into the lane's two best words by its larger score only, the smaller
// joining the bound on the lane's other scores, so the row cannot be decided by the kept words and
// goes to the full re-check. The answer is still the lower word of the pair, whichever of the two
// scores the index bits made larger.
TEST_P(TiledExact, TiesWithinALanesColumnPairGoToTheLowerWord) {
  BOVW_SEEDED_RNG(rng);
  const int d = 64, groups = 12, k = 8 * groups + 3;
  Descriptors c = randomMatrix(rng, k, d);
  for (int g = 0; g < groups; ++g) c.row(8 * g + 2 * (g % 4) + 1) = c.row(8 * g + 2 * (g % 4));
  const std::int64_t n = 999;
  std::vector<int> targets;
  for (int g = 0; g < groups; ++g) targets.push_back(8 * g + 2 * (g % 4));
  const Descriptors x = rowsNearWords(rng, c, n, targets);
  auto h = makeHistogrammer(config());
  const StageTimes times = expectExact(*h, x, Vocabulary(c), randomOffsets(rng, n, 4));
  EXPECT_EQ(times.rechecked_rows, n) << "every row is a tie that only direct sums decide";
  EXPECT_EQ(times.fully_rechecked_rows, n) << "a lane keeps one word of a tied column pair";
}

// The exact re-check splits a row's walk over K into ranges of whole steps (4 x its 256 work-items
// of words each, where the device has 64-bit atomics: PoCL does) and keeps the smaller distance, and
// on equal ones the lower word, of the ranges' answers. Ties between a word of the first range and
// a copy of it in a later one (three words in one TF32 lane, so that no row is decided before the
// full re-check) must give the lower word, as the CPU's scan in word order does.
TEST_P(TiledExact, TiesAcrossTheRecheckWordRangesGoToTheLowerWord) {
  BOVW_SEEDED_RNG(rng);
  const int d = 64, groups = 12, k = 3 * 1024 + 37;
  Descriptors c = randomMatrix(rng, k, d);
  for (int g = 0; g < groups; ++g) {
    c.row(8 * g + 1) = c.row(8 * g);
    c.row(2048 + 8 * g) = c.row(8 * g);  // the same lane of its quad, in the second range
  }
  const std::int64_t n = 777;
  std::vector<int> targets;
  for (int g = 0; g < groups; ++g) targets.push_back(8 * g);
  const Descriptors x = rowsNearWords(rng, c, n, targets);
  auto h = makeHistogrammer(config());
  const StageTimes times = expectExact(*h, x, Vocabulary(c), randomOffsets(rng, n, 3));
  EXPECT_EQ(times.fully_rechecked_rows, n) << "every row is a three-way tie that only the full re-check decides";
}

// Where FP16 operands cannot go: descriptor rows with values beyond FP16's largest, 65504 (their
// operands become infinite: the rows must reach the exact re-check), rows whose values all sit in
// FP16's subnormal range (coarse rounding, within the bound), and vocabularies beyond its range or
// mostly subnormal in it, which run on TF32 operands instead (the description says so).
TEST(TiledFP16, ValuesOutsideFp16sRangeEqualTheGoldenPath) {
  BOVW_REQUIRE_OPENCL();
  BOVW_SEEDED_RNG(rng);
  const int d = 64;
  const Descriptors c = randomMatrix(rng, 50, d);
  Descriptors x = randomMatrix(rng, 600, d);
  for (Eigen::Index i = 0; i < 200; ++i) x(i, i % d) = (i % 2 ? 1.0f : -1.0f) * (70000.0f + 1000.0f * i);
  x.middleRows(200, 200) *= 1e-6f;  // every value below 2^-14
  auto h = makeHistogrammer(tiledConfig(KernelVariant::TiledFP16));
  const StageTimes times = expectExact(*h, x, Vocabulary(c), {0, 300, 600});
  EXPECT_GE(times.fully_rechecked_rows, 200) << "rows beyond FP16's range must be re-checked in full";
  EXPECT_EQ(h->description().find("TF32 operands"), std::string::npos) << h->description();

  for (const float scale : {1e5f, 1e-7f}) {
    SCOPED_TRACE("words scaled by " + std::to_string(scale));
    const Descriptors far_words = randomMatrix(rng, 50, d) * scale;
    const Descriptors rows = randomMatrix(rng, 300, d) * scale;
    expectExact(*h, rows, Vocabulary(far_words), {0, 300});
    EXPECT_NE(h->description().find("TF32 operands"), std::string::npos) << h->description();
  }
  expectExact(*h, x, Vocabulary(c), {0, 600});  // back on FP16 operands for a vocabulary that fits
  EXPECT_EQ(h->description().find("TF32 operands"), std::string::npos) << h->description();
}

INSTANTIATE_TEST_SUITE_P(Kernels, TiledExact,
                         testing::Values(KernelVariant::Tiled, KernelVariant::TiledTF32, KernelVariant::TiledFP16),
                         [](const auto& info) { return testName(info.param); });

}  // namespace
}  // namespace bovw::test
