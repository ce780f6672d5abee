// The OpenMPTiled backend (||c||^2 - 2 x.c blocked like a GEMM, close candidates re-checked with the
// golden sum): its assignments must EQUAL the golden OpenMP path's on every input, not merely agree up
// to near-ties. Random shapes, batches with empty images, exact ties rounded differently, data where
// the expanded form alone is wrong, values that overflow the expanded form, and vocabulary changes.
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <tuple>

namespace bovw::test {
namespace {

std::unique_ptr<Histogrammer> tiledHistogrammer(int threads = 0) {
  HistogrammerConfig config;
  config.backend = Backend::OpenMPTiled;
  config.threads = threads;
  return makeHistogrammer(config);
}

// The backend with its kernel capped by $BOVW_CPU_KERNEL (restored afterwards), or null when this
// CPU cannot run that kernel (the backend then picks a narrower one, which the description names).
std::unique_ptr<Histogrammer> tiledHistogrammerWithKernel(const std::string& kernel) {
  const char* old = std::getenv("BOVW_CPU_KERNEL");
  const std::string saved = old ? old : "";
  setenv("BOVW_CPU_KERNEL", kernel.c_str(), 1);
  std::unique_ptr<Histogrammer> tiled;
  try {
    tiled = tiledHistogrammer();
  } catch (...) {
    old ? setenv("BOVW_CPU_KERNEL", saved.c_str(), 1) : unsetenv("BOVW_CPU_KERNEL");
    throw;
  }
  old ? setenv("BOVW_CPU_KERNEL", saved.c_str(), 1) : unsetenv("BOVW_CPU_KERNEL");
  if (tiled->description().find(", " + kernel + ")") == std::string::npos) return nullptr;
  return tiled;
}

const char* const kKernels[] = {"avx512", "avx2", "sse2"};

// Exact equality with the golden path, for compute() (with the histograms) and assign().
testing::AssertionResult equalsGolden(Histogrammer& tiled, const Descriptors& x, const Vocabulary& vocabulary,
                                      const std::vector<std::int64_t>& offsets) {
  const auto golden = openmpAssign(x, vocabulary);
  std::vector<std::int32_t> words;
  const Histograms h = tiled.compute(DescriptorBatch(x, offsets), vocabulary, &words);
  if (auto same = assignmentsEqual(golden, words); !same) return same << " (compute)";
  if (auto consistent = histogramsConsistent(offsets, vocabulary.size(), words, h); !consistent) return consistent;
  if (auto same = assignmentsEqual(golden, tiled.assign(x, vocabulary)); !same) return same << " (assign)";
  return testing::AssertionSuccess();
}

testing::AssertionResult equalsGolden(Histogrammer& tiled, const Descriptors& x, const Vocabulary& vocabulary) {
  return equalsGolden(tiled, x, vocabulary, {0, x.rows()});
}

// ---------------------------------------------------------------------------------------------
// Fresh random data of odd shapes: every N x K x D of the grid, random images (some empty), on each
// kernel this CPU runs (AVX-512: panels of 32 words, AVX2: 16, SSE2: 8; K = 15 and 31 leave exactly
// one padding word in some panel, which must never win).

class CpuTiledRandom : public testing::TestWithParam<std::tuple<std::int64_t, int, int>> {};

TEST_P(CpuTiledRandom, EqualsGoldenExactlyOnEveryKernel) {
  BOVW_SEEDED_RNG(rng);
  const auto [n, k, d] = GetParam();
  const Descriptors x = randomMatrix(rng, n, d, -1.0f, 1.0f);
  const Vocabulary vocabulary(randomMatrix(rng, k, d, -1.0f, 1.0f));
  const auto offsets = randomOffsets(rng, n, 1 + static_cast<int>(n % 7));
  for (const char* kernel : kKernels) {
    auto tiled = tiledHistogrammerWithKernel(kernel);
    if (!tiled) continue;  // not on this CPU
    EXPECT_TRUE(equalsGolden(*tiled, x, vocabulary, offsets)) << kernel << " kernel";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CpuTiledRandom,
                         testing::Combine(testing::Values<std::int64_t>(0, 1, 3, 257, 5000),
                                          testing::Values(1, 2, 15, 16, 17, 31, 1000),
                                          testing::Values(1, 3, 61, 64, 128)),
                         [](const auto& info) {
                           return "N" + std::to_string(std::get<0>(info.param)) + "_K" +
                                  std::to_string(std::get<1>(info.param)) + "_D" +
                                  std::to_string(std::get<2>(info.param));
                         });

// ---------------------------------------------------------------------------------------------
// Batches: empty images anywhere (first, last, runs of them), any thread count, same histograms.

TEST(CpuTiledBatches, EmptyImagesAndThreadCounts) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 3001, 64);
  const Vocabulary vocabulary(randomMatrix(rng, 200, 64));
  const std::vector<std::int64_t> offsets{0, 0, 0, 1, 1, 500, 500, 2999, 3001, 3001, 3001};
  const DescriptorBatch batch(x, offsets);
  HistogrammerConfig golden_config;
  golden_config.backend = Backend::OpenMP;
  std::vector<std::int32_t> golden_words;
  const Histograms golden = makeHistogrammer(golden_config)->compute(batch, vocabulary, &golden_words);
  for (int threads : {1, 2, 3}) {
    std::vector<std::int32_t> words;
    const Histograms h = tiledHistogrammer(threads)->compute(batch, vocabulary, &words);
    EXPECT_TRUE(assignmentsEqual(golden_words, words)) << threads << " threads";
    EXPECT_TRUE(histogramsEqual(golden, h)) << threads << " threads";
    for (Eigen::Index image : {0, 1, 3, 5, 8, 9})
      EXPECT_EQ(h.row(image).sum(), 0) << "empty image " << image << ", " << threads << " threads";
  }
}

// ---------------------------------------------------------------------------------------------
// Exactness where the fast path cannot decide

// Word pairs (c, Pc) at exactly the same real distance from every descriptor, rounded differently by
// float sums: whichever word the golden order prefers, the backend must pick the same.
TEST(CpuTiledExactness, PermutedTwinsGoTheGoldenWay) {
  BOVW_SEEDED_RNG(rng);
  auto tiled = tiledHistogrammer();
  for (int d : {64, 128}) {
    const TwinData data = permutedTwins(rng, 20, d, 4000);
    EXPECT_TRUE(equalsGolden(*tiled, data.x, Vocabulary(data.centroids))) << "D = " << d;
  }
}

// Every descriptor and word is 100 * 1 + noise in [0, 0.01): ||c||^2 ~ 6.4e5, whose float rounding
// (ulp 0.06) dwarfs the differences between distances (~1e-4). The expanded form alone then picks a
// wrong word for most descriptors; the backend must still match the golden path everywhere.
TEST(CpuTiledExactness, FarFromOriginWhereTheExpandedFormAloneIsWrong) {
  BOVW_SEEDED_RNG(rng);
  const int n = 2000, k = 256, d = 64;
  Descriptors x = randomMatrix(rng, n, d, 0.0f, 0.01f);
  Descriptors c = randomMatrix(rng, k, d, 0.0f, 0.01f);
  x.array() += 100.0f;
  c.array() += 100.0f;
  const Vocabulary vocabulary(c);
  const auto golden = openmpAssign(x, vocabulary);
  const int expanded_wrong = differences(golden, expandedFormArgmin(x, c));
  EXPECT_GT(expanded_wrong, n / 2) << "the data should defeat the expanded form alone";
  RecordProperty("expanded_form_wrong", expanded_wrong);
  auto tiled = tiledHistogrammer();
  EXPECT_TRUE(assignmentsEqual(golden, tiled->assign(x, vocabulary)))
      << "(the expanded form alone got " << expanded_wrong << " of " << n << " wrong)";
}

// Values near 4e18: ||c||^2 ~ 1e39 overflows float, so every e is inf or NaN, while the golden
// distances (differences of ~1e17, squares ~1e34) are finite. Then a vocabulary of ordinary words
// with one huge word, descriptors next to it (its golden distance is tiny, its e is NaN) and
// descriptors at 3e38, whose every golden distance overflows to +inf (the golden answer: word 0).
// Last, a golden nearest word whose own e overflows while ||x||^2 stays finite.
TEST(CpuTiledExactness, HugeValuesOverflowTheExpandedForm) {
  BOVW_SEEDED_RNG(rng);
  const int d = 64;
  auto tiled = tiledHistogrammer();
  {
    Descriptors x = randomMatrix(rng, 1000, d, 0.0f, 1e17f);
    Descriptors c = randomMatrix(rng, 100, d, 0.0f, 1e17f);
    x.array() += 4e18f;
    c.array() += 4e18f;
    float norm = 0;
    for (int f = 0; f < d; ++f) norm += c(0, f) * c(0, f);
    ASSERT_TRUE(std::isinf(norm)) << "||c||^2 should overflow float";
    const Vocabulary vocabulary(c);
    const auto golden = openmpAssign(x, vocabulary);
    EXPECT_GT(std::set<std::int32_t>(golden.begin(), golden.end()).size(), 50u) << "golden distances should be finite";
    EXPECT_TRUE(equalsGolden(*tiled, x, vocabulary));
  }
  {
    Descriptors c = randomMatrix(rng, 100, d);
    c.row(50).setConstant(1e19f);
    Descriptors x = randomMatrix(rng, 300, d);
    for (Eigen::Index i = 0; i < 100; ++i) x.row(i) = c.row(50) + randomMatrix(rng, 1, d, 0.0f, 1e12f);
    for (Eigen::Index i = 100; i < 110; ++i) x.row(i).setConstant(3e38f);
    const Vocabulary vocabulary(c);
    const auto golden = openmpAssign(x, vocabulary);
    for (Eigen::Index i = 0; i < 100; ++i) ASSERT_EQ(golden[i], 50) << "descriptor " << i;
    for (Eigen::Index i = 100; i < 110; ++i) ASSERT_EQ(golden[i], 0) << "descriptor " << i;
    EXPECT_TRUE(equalsGolden(*tiled, x, vocabulary));
  }
  {
    // ||c_7||^2 = 4e38 overflows, ||x||^2 = 1.4e38 does not, and c_7 is the golden nearest word
    // (distance 6.4e37 against 1.4e38 for the ordinary words): its e is +inf.
    Descriptors c = randomMatrix(rng, 20, d);
    c.row(7).setConstant(2.5e18f);
    Descriptors x = randomMatrix(rng, 50, d, 0.0f, 1e16f);
    x.array() += 1.5e18f;
    const Vocabulary vocabulary(c);
    const auto golden = openmpAssign(x, vocabulary);
    for (Eigen::Index i = 0; i < x.rows(); ++i) ASSERT_EQ(golden[i], 7) << "descriptor " << i;
    EXPECT_TRUE(equalsGolden(*tiled, x, vocabulary));
  }
}

// Tiny values: the squares (~1e-40) are subnormal, where rounding is absolute rather than relative.
TEST(CpuTiledExactness, SubnormalRange) {
  BOVW_SEEDED_RNG(rng);
  auto tiled = tiledHistogrammer();
  for (float scale : {1e-19f, 1e-20f, 1e-22f}) {
    const Descriptors x = randomMatrix(rng, 2000, 64, 0.0f, scale);
    const Vocabulary vocabulary(randomMatrix(rng, 100, 64, 0.0f, scale));
    EXPECT_TRUE(equalsGolden(*tiled, x, vocabulary)) << "scale " << scale;
  }
}

// Duplicated words are exact ties in every form: the lower index wins, as on the golden path.
TEST(CpuTiledExactness, DuplicateWordsGoToTheLowerIndex) {
  BOVW_SEEDED_RNG(rng);
  Descriptors c = randomMatrix(rng, 64, 32);
  for (Eigen::Index j = 32; j < 64; ++j) c.row(j) = c.row(63 - j);  // word j repeats word 63 - j
  const Vocabulary vocabulary(c);
  const Descriptors x = randomMatrix(rng, 3000, 32);
  const auto golden = openmpAssign(x, vocabulary);
  for (std::int32_t w : golden) ASSERT_LT(w, 32);
  EXPECT_TRUE(equalsGolden(*tiledHistogrammer(), x, vocabulary));
}

// ---------------------------------------------------------------------------------------------
// One histogrammer, several vocabularies: the cached packing follows Vocabulary::id().

TEST(CpuTiledCache, VocabularyChangesBetweenCalls) {
  BOVW_SEEDED_RNG(rng);
  auto tiled = tiledHistogrammer();
  const Descriptors x64 = randomMatrix(rng, 2000, 64);
  const Descriptors x32 = randomMatrix(rng, 2000, 32);
  const Vocabulary a(randomMatrix(rng, 300, 64));
  const Vocabulary b(randomMatrix(rng, 37, 64));       // same D, other K
  const Vocabulary same_shape(randomMatrix(rng, 300, 64));  // same K and D, other words
  const Vocabulary narrow(randomMatrix(rng, 500, 32));  // other D
  const Vocabulary copy = a;                            // shares a's id and words
  EXPECT_TRUE(equalsGolden(*tiled, x64, a));
  EXPECT_TRUE(equalsGolden(*tiled, x64, b));
  EXPECT_TRUE(equalsGolden(*tiled, x64, a));
  EXPECT_TRUE(equalsGolden(*tiled, x64, same_shape));
  EXPECT_TRUE(equalsGolden(*tiled, x32, narrow));
  EXPECT_TRUE(equalsGolden(*tiled, x64, copy));
  EXPECT_TRUE(equalsGolden(*tiled, x64, b));
}

// The fast path must decide nearly every row of ordinary data (otherwise the backend is exact but no
// faster than the golden path), and StageTimes reports the re-checks.
TEST(CpuTiledBackend, FastPathDecidesMostRows) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 20000, 64);
  const Vocabulary vocabulary(randomMatrix(rng, 1000, 64));
  StageTimes times;
  const auto words = tiledHistogrammer()->assign(x, vocabulary, &times);
  EXPECT_TRUE(assignmentsEqual(openmpAssign(x, vocabulary), words));
  EXPECT_LT(times.rechecked_rows, x.rows() / 50) << "more than 2% of uniform random rows re-checked";
  RecordProperty("rechecked_rows", static_cast<int>(times.rechecked_rows));

  Descriptors far = randomMatrix(rng, 500, 64, 0.0f, 0.01f);
  Descriptors far_words = randomMatrix(rng, 100, 64, 0.0f, 0.01f);
  far.array() += 100.0f;
  far_words.array() += 100.0f;
  tiledHistogrammer()->assign(far, Vocabulary(far_words), &times);
  EXPECT_GT(times.rechecked_rows, 0) << "near-ties far from the origin must be re-checked";
}

TEST(CpuTiledBackend, NameDescriptionAndKernelChoice) {
  EXPECT_EQ(parseBackend("openmp-tiled"), Backend::OpenMPTiled);
  EXPECT_EQ(toString(Backend::OpenMPTiled), "openmp-tiled");
  EXPECT_NE(tiledHistogrammer(2)->description().find("openmp-tiled (2 threads"), std::string::npos)
      << tiledHistogrammer(2)->description();
  EXPECT_NE(tiledHistogrammerWithKernel("sse2"), nullptr) << "every x86-64 CPU runs the SSE2 kernel";
  EXPECT_THROW(tiledHistogrammerWithKernel("avx1024"), InvalidInput);
}

}  // namespace
}  // namespace bovw::test
