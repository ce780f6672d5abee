// k-means vocabulary training: recovers known clusters, reproducible by seed, OpenCL (PoCL) and
// OpenMP training agree, the objective matches a float64 recomputation, and bad requests fail.
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/kmeans.hpp>

namespace bovw::test {
namespace {

struct Clusters {
  Descriptors centers;
  Descriptors points;
};

// K well-separated centers in [0, 10)^D, `per_cluster` points around each (noise sigma 0.05):
// the nearest center of every point is its own, by a margin no rounding can change.
Clusters clusteredSample(std::mt19937_64& rng, int k, int d, int per_cluster) {
  Clusters c;
  c.centers = randomMatrix(rng, k, d, 0.0f, 10.0f);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  c.points.resize(static_cast<Eigen::Index>(k) * per_cluster, d);
  for (Eigen::Index i = 0; i < c.points.rows(); ++i)
    for (int f = 0; f < d; ++f) c.points(i, f) = c.centers(i % k, f) + noise(rng);
  return c;
}

double bruteForceInertia(const Descriptors& x, const Descriptors& words) {
  double total = 0;
  for (const auto& nearest : bruteForce64(x, words)) total += nearest.distance;
  return total;
}

// k-means++ does not always seed every cluster: a draw lands in a cluster already seeded with a
// small probability that grows as fewer clusters are left (4 of 300 fresh samples, 2026-12-07), and
// Lloyd's steps keep such a start (two words in one cluster, one between two others). So the test
// trains on fresh samples, at most 4, and fails only if none recovers every center (~3e-8 by chance).
TEST(KMeans, RecoversKnownClusters) {
  BOVW_SEEDED_RNG(rng);
  std::string missed;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const Clusters c = clusteredSample(rng, 8, 16, 150);
    KMeansOptions options;
    options.words = 8;
    options.seed = rng();
    const Vocabulary v = trainVocabulary(c.points, options);
    ASSERT_EQ(v.size(), 8);
    // Every true center has exactly one trained word within 0.05 (the mean of 150 noisy points is
    // within ~0.05 * sqrt(16 / 150) = 0.016 of it).
    missed.clear();
    for (int t = 0; t < 8; ++t) {
      int close = 0;
      for (int w = 0; w < 8; ++w) close += (v.centroids().row(w) - c.centers.row(t)).norm() < 0.05f;
      if (close != 1) missed += " " + std::to_string(t) + " (" + std::to_string(close) + " words)";
    }
    if (missed.empty()) return;
  }
  ADD_FAILURE() << "4 samples, none recovered: the last one's true centers without exactly one word:" << missed;
}

TEST(KMeans, SameSeedSameVocabularyOnEachBackend) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 3000, 32);
  KMeansOptions options;
  options.words = 40;
  options.max_iterations = 8;
  options.seed = rng();
  std::vector<HistogrammerConfig> configs = {configFor({Backend::OpenMP, KernelVariant::Baseline})};
  if (openclAvailable()) configs.push_back(openclConfig(KernelVariant::ConstantCentroids));
  for (const auto& config : configs) {
    options.assignment = config;
    const Vocabulary a = trainVocabulary(x, options);
    const Vocabulary b = trainVocabulary(x, options);
    EXPECT_TRUE(a.centroids() == b.centroids()) << "backend " << toString(config.backend);
  }
}

TEST(KMeans, OpenCLTrainingAgreesWithOpenMP) {
  BOVW_REQUIRE_OPENCL();
  BOVW_SEEDED_RNG(rng);
  // Clustered data has no near-ties, so every assignment and hence every word must be identical.
  const Clusters c = clusteredSample(rng, 12, 64, 60);
  KMeansOptions options;
  options.words = 12;
  options.seed = rng();
  const Vocabulary cpu = trainVocabulary(c.points, options);
  for (KernelVariant variant : {KernelVariant::Baseline, KernelVariant::ConstantCentroids}) {
    options.assignment = openclConfig(variant);
    const Vocabulary gpu = trainVocabulary(c.points, options);
    EXPECT_TRUE(cpu.centroids() == gpu.centroids()) << toString(variant);
  }
}

// With an OpenCL assignment the sample stays on the device, which computes the seeding distances and
// their block sums itself: the CPU's numbers, bit for bit. Uniform data (near-ties everywhere), a
// sample that ends in a partial seeding block, an odd width; every iteration's inertia must match.
TEST(KMeans, DeviceTrainingEqualsCpuTrainingIterationByIteration) {
  BOVW_REQUIRE_OPENCL();
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 2777, 37);
  KMeansOptions options;
  options.words = 50;
  options.max_iterations = 5;
  options.tolerance = -1;
  options.seed = rng();
  std::vector<KMeansIteration> cpu_iterations, device_iterations;
  options.progress = [&](const KMeansIteration& it) { cpu_iterations.push_back(it); };
  const Vocabulary cpu = trainVocabulary(x, options);
  EXPECT_EQ(cpu_iterations.front().assignment.find("resident"), std::string::npos);

  options.progress = [&](const KMeansIteration& it) { device_iterations.push_back(it); };
  HistogrammerConfig resident = openclConfig(KernelVariant::Tiled);
  HistogrammerConfig too_small = resident;  // the sample cannot stay: CPU seeding, uploads per iteration
  too_small.device_memory_limit = 3 * sizeof(float) * x.size() + 16 * x.rows() - 1;
  too_small.transfer_rows = 300;
  for (const HistogrammerConfig& config : {resident, too_small}) {
    const bool expect_resident = config.device_memory_limit == 0;
    SCOPED_TRACE(expect_resident ? "sample resident" : "sample uploaded per iteration");
    device_iterations.clear();
    options.assignment = config;
    const Vocabulary device = trainVocabulary(x, options);
    EXPECT_TRUE(cpu.centroids() == device.centroids());
    ASSERT_EQ(device_iterations.size(), cpu_iterations.size());
    for (std::size_t i = 0; i < cpu_iterations.size(); ++i)
      EXPECT_EQ(device_iterations[i].inertia, cpu_iterations[i].inertia) << "iteration " << i + 1;
    EXPECT_EQ(device_iterations.front().assignment.find("sample resident") != std::string::npos, expect_resident)
        << device_iterations.front().assignment;
  }
}

// Lloyd's update groups the rows by word in parallel parts of >= 65,536 rows: a sample large enough
// for several parts must give, on 1 and on 4 threads, the same words, and the objective a float64
// recomputation gives.
TEST(KMeans, ThreadCountDoesNotChangeTheVocabulary) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 300000, 8);
  KMeansOptions options;
  options.words = 20;
  options.max_iterations = 3;
  options.tolerance = -1;
  options.seed = rng();
  options.assignment.threads = 1;
  const Vocabulary one = trainVocabulary(x, options);
  options.assignment.threads = 4;
  double last_inertia = 0;
  int calls = 0;
  options.progress = [&](const KMeansIteration& it) {
    last_inertia = it.inertia;
    ++calls;
  };
  const Vocabulary four = trainVocabulary(x, options);
  EXPECT_TRUE(one.centroids() == four.centroids());
  ASSERT_EQ(calls, 3);
  // The last report's objective is that of the words before the last update: recompute it from the
  // vocabulary of a 2-iteration run.
  options.max_iterations = 2;
  options.progress = nullptr;
  const Vocabulary before_last = trainVocabulary(x, options);
  const double expected = bruteForceInertia(x, before_last.centroids());
  EXPECT_NEAR(last_inertia, expected, 1e-9 * expected);
}

TEST(KMeans, ReportsEachIterationAndTheObjectiveIsRight) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 2000, 16);
  std::vector<KMeansIteration> iterations;
  KMeansOptions options;
  options.words = 25;
  options.max_iterations = 6;
  options.tolerance = -1;  // never converged: runs exactly to the cap
  options.seed = rng();
  options.progress = [&](const KMeansIteration& it) { iterations.push_back(it); };
  const Vocabulary v = trainVocabulary(x, options);
  ASSERT_EQ(iterations.size(), 6u);
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    EXPECT_EQ(iterations[i].iteration, static_cast<int>(i) + 1);
    // Lloyd never increases the objective (no empty clusters on this data).
    if (i > 0 && iterations[i - 1].reseeded == 0) {
      EXPECT_LE(iterations[i].inertia, iterations[i - 1].inertia * (1 + 1e-12));
    }
  }
  auto histogrammer = makeHistogrammer({});
  const double inertia = kmeansInertia(x, v, *histogrammer);
  EXPECT_NEAR(inertia, bruteForceInertia(x, v.centroids()), 1e-9 * inertia);
  EXPECT_LE(inertia, iterations.back().inertia * (1 + 1e-12));
}

TEST(KMeans, StopsWhenImprovementFallsBelowTolerance) {
  BOVW_SEEDED_RNG(rng);
  const Clusters c = clusteredSample(rng, 5, 8, 100);
  int calls = 0;
  KMeansOptions options;
  options.words = 5;
  options.max_iterations = 100;
  options.seed = rng();
  options.progress = [&](const KMeansIteration&) { ++calls; };
  trainVocabulary(c.points, options);
  EXPECT_LT(calls, 100);
}

TEST(KMeans, EmptyClustersAreReseeded) {
  // 4 distinct points (one repeated 7 times) and K = 5 words: seeding must duplicate a word, the
  // duplicate loses every tie to the lower index, its cluster is empty and must be re-seeded.
  Descriptors x(10, 2);
  x << 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 9, 0, 0, 9;
  KMeansOptions options;
  options.words = 5;
  options.max_iterations = 4;
  std::vector<HistogrammerConfig> configs = {configFor({Backend::OpenMP, KernelVariant::Baseline})};
  if (openclAvailable()) configs.push_back(openclConfig(KernelVariant::Tiled));  // seeding on the device
  for (const auto& config : configs) {
    for (unsigned long long seed = 0; seed < 10; ++seed) {
      int reseeded = 0;
      options.assignment = config;
      options.seed = seed;
      options.progress = [&](const KMeansIteration& it) { reseeded += it.reseeded; };
      const Vocabulary v = trainVocabulary(x, options);
      EXPECT_EQ(v.size(), 5);
      EXPECT_GT(reseeded, 0) << "seed " << seed << ", " << toString(config.backend);
      // Every distinct point is a word, so the objective is 0.
      auto histogrammer = makeHistogrammer({});
      EXPECT_EQ(kmeansInertia(x, v, *histogrammer), 0.0) << "seed " << seed;
    }
  }
}

TEST(KMeans, RejectsBadRequests) {
  const Descriptors x = Descriptors::Ones(10, 4);
  KMeansOptions options;
  options.words = 11;
  try {
    trainVocabulary(x, options);
    FAIL() << "K > N accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the sample"), std::string::npos) << e.what();
  }
  options.words = 0;
  EXPECT_THROW(trainVocabulary(x, options), InvalidInput);
  Descriptors nan = x;
  nan(3, 2) = std::nanf("");
  options.words = 2;
  EXPECT_THROW(trainVocabulary(nan, options), InvalidInput);
  EXPECT_THROW(trainVocabulary(Descriptors(0, 4), options), InvalidInput);
}

}  // namespace
}  // namespace bovw::test
