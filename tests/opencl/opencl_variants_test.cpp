// Every OpenCL kernel variant against the OpenMP golden path on random data (the golden checks of
// docs/LIBRARY.md's rules): equal assignments except near-ties verified in float64, histograms that are
// the bincount of the device's own assignments, sums equal to counts. Shapes cover N in {0, 1, 63,
// 64, 65, 70,000}, K in {1, 8, 256, 257, 1,000}, D in {64, 128} for every variant (a covering set,
// not the cross product, to stay within a few minutes on a 2-core PoCL machine), plus odd
// work-group sizes, empty images, K past the constant buffer, odd widths.
// Vocabulary reuse across calls is in backends/exact_answers_test.cpp (every backend).
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>


namespace bovw::test {
namespace {

// Runs `histogrammer` on random-partitioned data and checks it against OpenMP and float64.
void expectGolden(Histogrammer& histogrammer, const Descriptors& x, const Vocabulary& vocabulary,
                  const std::vector<std::int64_t>& offsets) {
  SCOPED_TRACE(histogrammer.description());
  std::vector<std::int32_t> words;
  StageTimes times;
  const Histograms h = histogrammer.compute(DescriptorBatch(x, offsets), vocabulary, &words, &times);
  const auto golden = openmpAssign(x, vocabulary);
  int ties = 0;
  EXPECT_TRUE(agreeExceptNearTies(x, vocabulary.centroids(), golden, words, &ties));
  EXPECT_TRUE(histogramsConsistent(offsets, vocabulary.size(), words, h));
  EXPECT_TRUE(matchesBruteForce(x, vocabulary.centroids(), words));
  EXPECT_GE(times.kernel_ms, 0.0);
  EXPECT_GE(times.upload_ms, 0.0);
  EXPECT_GE(times.transpose_ms, 0.0);
  EXPECT_GE(times.download_ms, 0.0);
  testing::Test::RecordProperty("near_ties_vs_openmp", ties);
}

class VariantShapes : public testing::TestWithParam<std::tuple<KernelVariant, Shape>> {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
};

TEST_P(VariantShapes, AgreesWithOpenMP) {
  BOVW_SEEDED_RNG(rng);
  const auto [variant, s] = GetParam();
  const Descriptors x = randomMatrix(rng, s.n, s.d);
  const Vocabulary vocabulary(randomMatrix(rng, s.k, s.d));
  auto h = makeHistogrammer(openclConfig(variant));
  expectGolden(*h, x, vocabulary, randomOffsets(rng, s.n, s.images));
}

// Every N, K and D value appears for every variant; the 70,000 case with modest K.
INSTANTIATE_TEST_SUITE_P(
    Covering, VariantShapes,
    testing::Combine(testing::ValuesIn(allKernelVariants()),
                     testing::Values(Shape{0, 8, 64, 2}, Shape{1, 1, 128, 1}, Shape{1, 1000, 64, 1},
                                     Shape{63, 257, 64, 3}, Shape{64, 1000, 128, 2},
                                     Shape{65, 256, 64, 4}, Shape{65, 1, 128, 2},
                                     Shape{64, 8, 64, 1}, Shape{1000, 257, 128, 11},
                                     Shape{70000, 8, 128, 200}, Shape{70000, 256, 64, 50})),
    [](const auto& info) {
      return testName(std::get<0>(info.param)) + "_" + shapeName(std::get<1>(info.param));
    });

// Work-group sizes that do not divide N (and, for 1 and 7, are not multiples of anything the
// kernels might assume). Skipped where the device's limits forbid the size.
class VariantWorkGroups : public testing::TestWithParam<std::tuple<KernelVariant, int>> {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
};

TEST_P(VariantWorkGroups, AgreesWithOpenMP) {
  BOVW_SEEDED_RNG(rng);
  const auto [variant, wg] = GetParam();
  const DeviceInfo& device = testDevice();
  if (static_cast<std::size_t>(wg) > device.max_work_group_size)
    GTEST_SKIP() << device.name << " allows at most " << device.max_work_group_size << " work-items per group";
  for (int d : {64, 128}) {
    if (variant == KernelVariant::LocalDescriptors || variant == KernelVariant::ConstantCentroids) {
      if (4ull * wg * d > device.local_memory) continue;
    }
    const std::int64_t n = 3 * wg + 5;  // several full groups plus a partial one
    const Descriptors x = randomMatrix(rng, n, d);
    const Vocabulary vocabulary(randomMatrix(rng, 37, d));
    auto h = makeHistogrammer(openclConfig(variant, wg));
    expectGolden(*h, x, vocabulary, randomOffsets(rng, n, 3));
  }
}

INSTANTIATE_TEST_SUITE_P(Odd, VariantWorkGroups,
                         testing::Combine(testing::ValuesIn(allKernelVariants()), testing::Values(1, 7, 33, 96)),
                         [](const auto& info) {
                           return testName(std::get<0>(info.param)) + "_wg" +
                                  std::to_string(std::get<1>(info.param));
                         });

class Variant : public testing::TestWithParam<KernelVariant> {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
};

// Empty images first, in the middle, last, and consecutive; and a batch of only empty images.
TEST_P(Variant, BatchesWithEmptyImages) {
  BOVW_SEEDED_RNG(rng);
  auto h = makeHistogrammer(openclConfig(GetParam()));
  const Descriptors x = randomMatrix(rng, 300, 64);
  const Vocabulary vocabulary(randomMatrix(rng, 50, 64));
  expectGolden(*h, x, vocabulary, {0, 0, 100, 100, 100, 299, 300, 300});
  expectGolden(*h, x, vocabulary, {0, 0, 0, 300});
  expectGolden(*h, x, vocabulary, {0, 300, 300});
  // Many images, most of them empty: the device's image lookup must skip them all.
  std::vector<std::int64_t> sparse(1001);
  for (int i = 0; i <= 1000; ++i) sparse[i] = i <= 150 ? 0 : i <= 700 ? 17 : 300;
  expectGolden(*h, x, vocabulary, sparse);

  const Descriptors none(0, 64);
  const Histograms empty = h->compute(DescriptorBatch(none, {0, 0, 0}), vocabulary);
  EXPECT_TRUE(histogramsEqual(Histograms::Zero(2, 50), empty));
}

// Exact ties that float32 rounds differently (see permutedTwins): the device's summation order
// (FMA contraction, float4 lanes) may pick the other word of a pair than OpenMP; the check accepts
// exactly those, verified in float64.
TEST_P(Variant, ExactTiesRoundedDifferently) {
  BOVW_SEEDED_RNG(rng);
  auto h = makeHistogrammer(openclConfig(GetParam()));
  for (int d : {64, 128}) {
    SCOPED_TRACE("D = " + std::to_string(d));
    const TwinData data = permutedTwins(rng, 20, d, 4000);
    expectGolden(*h, data.x, Vocabulary(data.centroids), randomOffsets(rng, 4000, 3));
  }
}

// K x D x 4 bytes beyond the device's constant buffer: ConstantCentroids must chunk the vocabulary
// (the others are checked on the same data).
TEST_P(Variant, VocabularyLargerThanTheConstantBuffer) {
  BOVW_SEEDED_RNG(rng);
  const ChunkedShape shape = chunkedShape(testDevice().constant_memory);
  RecordProperty("constant_memory", std::to_string(testDevice().constant_memory));
  ASSERT_GT(4ull * shape.k * shape.d, testDevice().constant_memory);
  const std::int64_t n = 300;
  const Descriptors x = randomMatrix(rng, n, shape.d);
  const Vocabulary vocabulary(randomMatrix(rng, shape.k, shape.d));
  auto h = makeHistogrammer(openclConfig(GetParam()));
  expectGolden(*h, x, vocabulary, randomOffsets(rng, n, 3));
  // A second call reuses the resident (chunked) vocabulary.
  expectGolden(*h, x, vocabulary, {0, n});
}

// Vocabularies of exactly one constant-buffer chunk and one word more: the boundary of the split.
TEST_P(Variant, VocabularyAtTheConstantBufferBoundary) {
  BOVW_SEEDED_RNG(rng);
  const int d = 128;
  const int per_chunk = static_cast<int>(testDevice().constant_memory / (4ull * d));
  if (per_chunk > 20000) GTEST_SKIP() << "constant buffer too large to reach its boundary at D = 128 quickly";
  auto h = makeHistogrammer(openclConfig(GetParam()));
  for (int k : {per_chunk - 1, per_chunk, per_chunk + 1}) {
    Descriptors c = randomMatrix(rng, k, d);
    c.row(k - 1) = c.row(0);  // the last word duplicates the first: the first must win
    const Vocabulary vocabulary(c);
    std::vector<std::int32_t> words = randomWords(rng, 130, k);
    words[0] = k - 1;
    words[1] = k - 2;
    words[2] = per_chunk - 1 < k - 1 ? per_chunk - 1 : 1;
    const Descriptors x = perturbedCopies(rng, c, words);
    std::vector<std::int32_t> expected = words;
    for (auto& w : expected)
      if (w == k - 1) w = 0;
    EXPECT_TRUE(assignmentsEqual(expected, h->assign(x, vocabulary))) << "K = " << k;
  }
}

// Widths that are not multiples of 4 (Float4's tail), of the transpose tile, or tiny.
TEST_P(Variant, OddDescriptorWidths) {
  BOVW_SEEDED_RNG(rng);
  for (int d : {1, 3, 61, 130}) {
    SCOPED_TRACE("D = " + std::to_string(d));
    const std::int64_t n = 201;
    const Descriptors x = randomMatrix(rng, n, d);
    const Vocabulary vocabulary(randomMatrix(rng, 23, d));
    auto h = makeHistogrammer(openclConfig(GetParam()));
    expectGolden(*h, x, vocabulary, randomOffsets(rng, n, 4));
  }
}

// The largest work-group the device allows (for the local variants: the largest whose
// work-group x D x 4 bytes fit local memory exactly).
TEST_P(Variant, LargestWorkGroup) {
  BOVW_SEEDED_RNG(rng);
  const DeviceInfo& device = testDevice();
  const int d = 128;
  std::size_t wg = device.max_work_group_size;
  if (GetParam() == KernelVariant::LocalDescriptors || GetParam() == KernelVariant::ConstantCentroids)
    wg = std::min<std::size_t>(wg, device.local_memory / (4 * d));
  const std::int64_t n = 2 * static_cast<std::int64_t>(wg) + 3;
  const Descriptors x = randomMatrix(rng, n, d);
  const Vocabulary vocabulary(randomMatrix(rng, 16, d));
  auto h = makeHistogrammer(openclConfig(GetParam(), static_cast<int>(wg)));
  try {
    expectGolden(*h, x, vocabulary, randomOffsets(rng, n, 5));
  } catch (const CapacityError& e) {
    // The compiled kernel may allow fewer work-items than the device does; that limit must be a
    // CapacityError naming the kernel's maximum (as it is here), not a launch failure.
    GTEST_SKIP() << "work-group " << wg << ": " << e.what();
  }
}

// A strided view (a column block of a wider matrix) must give what its contiguous copy gives.
TEST_P(Variant, StridedDescriptorView) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors wide = randomMatrix(rng, 200, 64 + 3);
  const Descriptors contiguous = wide.leftCols(64);
  const DescriptorsRef view = wide.leftCols(64);
  const Vocabulary vocabulary(randomMatrix(rng, 30, 64));
  auto h = makeHistogrammer(openclConfig(GetParam()));
  EXPECT_TRUE(assignmentsEqual(h->assign(contiguous, vocabulary), h->assign(view, vocabulary)));
  EXPECT_TRUE(agreeExceptNearTies(contiguous, vocabulary.centroids(), openmpAssign(contiguous, vocabulary),
                                  h->assign(view, vocabulary)));
}

// Several histogrammers of different variants alive at once on one device, used alternately.
TEST(OpenCLVariantsTogether, InterleavedHistogrammersStayIndependent) {
  BOVW_REQUIRE_OPENCL();
  BOVW_SEEDED_RNG(rng);
  std::vector<std::unique_ptr<Histogrammer>> all;
  for (KernelVariant v : allKernelVariants()) all.push_back(makeHistogrammer(openclConfig(v)));
  const Vocabulary v1(randomMatrix(rng, 9, 64)), v2(randomMatrix(rng, 11, 128));
  for (int round = 0; round < 2; ++round) {
    const Vocabulary& vocabulary = round == 0 ? v1 : v2;
    const auto words = randomWords(rng, 99, vocabulary.size());
    const Descriptors x = perturbedCopies(rng, vocabulary.centroids(), words);
    for (auto& h : all) EXPECT_TRUE(assignmentsEqual(words, h->assign(x, vocabulary))) << h->description();
  }
}

INSTANTIATE_TEST_SUITE_P(All, Variant, testing::ValuesIn(allKernelVariants()),
                         [](const auto& info) { return testName(info.param); });

}  // namespace
}  // namespace bovw::test
