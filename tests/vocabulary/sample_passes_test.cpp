// k-means' heavy passes (src/vocabulary/sample_passes.hpp), tested below the public API because a
// seeding difference only shows in a vocabulary when a draw lands near a block boundary: the device's
// seeding distances and block sums must equal the CPU's bit for bit, and both must agree with an
// independent recomputation (the documented eight-lane float sum for the distances; each draw weight
// the distance times the scale, rounded to an integer, and the block sums exact).
#include "support/test_support.hpp"

#include "vocabulary/sample_passes.hpp"

namespace bovw::test {
namespace {

// The seeding distance as sample_passes.hpp documents it, written out in scalar code: eight partial
// float sums (lane f mod 8, in feature order), folded 4-2-1; no FMA (the x86-64 baseline this test is
// compiled for has no FMA instruction).
float seedingDistance(const Descriptors& x, Eigen::Index a, Eigen::Index b) {
  float p[8] = {};
  for (Eigen::Index f = 0; f < x.cols(); ++f) {
    const float t = x(a, f) - x(b, f);
    p[f % 8] += t * t;
  }
  const float q0 = p[0] + p[4], q1 = p[1] + p[5], q2 = p[2] + p[6], q3 = p[3] + p[7];
  return (q0 + q2) + (q1 + q3);
}

constexpr double kWeightScale = 1 << 20;

struct SeedingTrace {
  std::vector<std::vector<std::int64_t>> block_sums;  // after each seed
  std::vector<float> nearest;                   // after the last seed, every row
};

SeedingTrace runSeeds(detail::SamplePasses& passes, const Descriptors& x, const std::vector<std::int64_t>& seeds) {
  const Eigen::Index rows = x.rows();
  SeedingTrace trace;
  for (std::int64_t s : seeds) trace.block_sums.push_back(passes.addSeed(x.row(s).data()));
  const std::int64_t blocks = (rows + detail::kSeedBlock - 1) / detail::kSeedBlock;
  for (std::int64_t b = 0; b < blocks; ++b) {
    const auto values = passes.blockNearest(b);
    trace.nearest.insert(trace.nearest.end(), values.begin(), values.end());
  }
  return trace;
}

void checkAgainstRecomputation(const Descriptors& x, const std::vector<std::int64_t>& seeds, const SeedingTrace& t) {
  ASSERT_EQ(t.nearest.size(), static_cast<std::size_t>(x.rows()));
  std::vector<float> expected(static_cast<std::size_t>(x.rows()), std::numeric_limits<float>::infinity());
  for (std::size_t s = 0; s < seeds.size(); ++s) {
    std::int64_t total = 0, expected_total = 0;
    double real_total = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const float nearest = std::min(expected[static_cast<std::size_t>(i)], seedingDistance(x, i, seeds[s]));
      expected[static_cast<std::size_t>(i)] = nearest;
      expected_total += static_cast<std::int64_t>(std::nearbyint(static_cast<double>(nearest) * kWeightScale));
      real_total += static_cast<double>(nearest) * kWeightScale;
    }
    for (std::int64_t block : t.block_sums[s]) total += block;
    EXPECT_EQ(total, expected_total) << "after seed " << s;
    EXPECT_NEAR(static_cast<double>(total), real_total, 0.5 * static_cast<double>(x.rows())) << "after seed " << s;
  }
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    ASSERT_EQ(t.nearest[static_cast<std::size_t>(i)], expected[static_cast<std::size_t>(i)]) << "row " << i;
}

class SamplePassesTest : public testing::TestWithParam<std::pair<int, int>> {};

// Odd sizes: one partial block, several blocks ending in a partial one, an exact multiple; odd widths.
INSTANTIATE_TEST_SUITE_P(Shapes, SamplePassesTest,
                         testing::Values(std::pair{1, 3}, std::pair{700, 37}, std::pair{2 * detail::kSeedBlock, 64},
                                         std::pair{3 * detail::kSeedBlock + 5, 128}));

TEST_P(SamplePassesTest, DeviceSeedingEqualsCpuSeedingBitForBit) {
  BOVW_SEEDED_RNG(rng);
  const auto [rows, d] = GetParam();
  const Descriptors x = randomMatrix(rng, rows, d, -2.0f, 3.0f);
  std::vector<std::int64_t> seeds;
  for (int s = 0; s < 5; ++s) seeds.push_back(std::uniform_int_distribution<std::int64_t>(0, rows - 1)(rng));
  const auto cpu = detail::makeCpuSamplePasses(x, configFor({Backend::OpenMP, KernelVariant::Baseline}), kWeightScale);
  const SeedingTrace on_cpu = runSeeds(*cpu, x, seeds);
  checkAgainstRecomputation(x, seeds, on_cpu);

  if (!openclAvailable()) GTEST_SKIP() << "no OpenCL platform installed: the CPU passes were checked";
  const auto device = detail::makeOpenCLSamplePasses(x, openclConfig(KernelVariant::Tiled), kWeightScale);
  ASSERT_NE(device, nullptr) << "the test device should hold this sample (and have cl_khr_fp64)";
  const SeedingTrace on_device = runSeeds(*device, x, seeds);
  ASSERT_EQ(on_device.block_sums.size(), on_cpu.block_sums.size());
  for (std::size_t s = 0; s < seeds.size(); ++s)
    for (std::size_t b = 0; b < on_cpu.block_sums[s].size(); ++b)
      ASSERT_EQ(on_device.block_sums[s][b], on_cpu.block_sums[s][b]) << "seed " << s << ", block " << b;
  EXPECT_EQ(on_device.nearest, on_cpu.nearest);
}

TEST(SamplePasses, DeviceAssignmentOfTheResidentSampleIsGolden) {
  BOVW_REQUIRE_OPENCL();
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 1501, 29);
  const auto device = detail::makeOpenCLSamplePasses(x, openclConfig(KernelVariant::Tiled), kWeightScale);
  ASSERT_NE(device, nullptr);
  for (int k : {1, 7, 130}) {  // the words change between calls, as in Lloyd's iterations
    const Vocabulary words(randomMatrix(rng, k, 29));
    EXPECT_EQ(device->assign(words), openmpAssign(x, words)) << "K = " << k;
  }
}

TEST(SamplePasses, DeviceDeclinesASampleBeyondItsMemory) {
  BOVW_REQUIRE_OPENCL();
  const Descriptors x = Descriptors::Zero(1000, 16);
  HistogrammerConfig config = openclConfig(KernelVariant::Tiled);
  config.device_memory_limit = 3 * sizeof(float) * x.size() + 16 * x.rows() - 1;
  EXPECT_EQ(detail::makeOpenCLSamplePasses(x, config, kWeightScale), nullptr);
  config.device_memory_limit = 3 * sizeof(float) * x.size() + 16 * x.rows();
  EXPECT_NE(detail::makeOpenCLSamplePasses(x, config, kWeightScale), nullptr);
}

}  // namespace
}  // namespace bovw::test
