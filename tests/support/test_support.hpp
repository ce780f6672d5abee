// Helpers shared by the tests of every folder: seeded random data (seed printed, fixed by
// $BOVW_TEST_SEED), the float64 brute-force nearest word, the near-tie rule of the golden checks
// (docs/LIBRARY.md's rules), and the histogram consistency check. Everything here is independent of
// the library's own code paths.
#pragma once

#include <bovw/descriptors.hpp>
#include <bovw/device.hpp>
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/vocabulary.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// Readable parameter values in test names' failure output ("GetParam() = float4").
namespace bovw {
inline void PrintTo(KernelVariant v, std::ostream* os) { *os << toString(v); }
inline void PrintTo(Backend b, std::ostream* os) { *os << toString(b); }
}  // namespace bovw

namespace bovw::test {

// ---------------------------------------------------------------------------------------------
// Seeds

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The run's base seed: $BOVW_TEST_SEED when set (decimal or 0x hex), else fresh from the system.
inline std::uint64_t baseSeed() {
  static const std::uint64_t seed = [] {
    if (const char* env = std::getenv("BOVW_TEST_SEED"); env && *env)
      return static_cast<std::uint64_t>(std::stoull(env, nullptr, 0));
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }();
  return seed;
}

// Each test draws from the base seed mixed with its own full name, so its data does not depend on
// which tests ran before it: `BOVW_TEST_SEED=<seed> bovw_core_tests --gtest_filter=<test>`
// reproduces one failing test alone.
inline std::uint64_t seedForCurrentTest() {
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ull;
  return splitmix64(baseSeed() ^ hash);
}

inline std::string seedText() {
  return "reproduce with BOVW_TEST_SEED=" + std::to_string(baseSeed());
}

// Prints the seed once per process, before the first test.
class SeedPrinter : public testing::Environment {
 public:
  void SetUp() override {
    std::printf("[ bovw     ] random inputs from BOVW_TEST_SEED=%llu\n",
                static_cast<unsigned long long>(baseSeed()));
  }
};
inline testing::Environment* const kSeedPrinter = testing::AddGlobalTestEnvironment(new SeedPrinter);

// Declares `rng`, seeded for this test, and attaches the seed to every failure message and to the
// XML report.
#define BOVW_SEEDED_RNG(rng)                                                  \
  std::mt19937_64 rng(::bovw::test::seedForCurrentTest());                   \
  SCOPED_TRACE(::bovw::test::seedText());                                    \
  ::testing::Test::RecordProperty("bovw_test_seed", std::to_string(::bovw::test::baseSeed()))

// ---------------------------------------------------------------------------------------------
// Problem shapes of the parameterised tests

struct Shape {
  std::int64_t n;
  int k;
  int d;
  int images;
};

inline std::string shapeName(const Shape& s) {
  return "N" + std::to_string(s.n) + "_K" + std::to_string(s.k) + "_D" + std::to_string(s.d) + "_I" +
         std::to_string(s.images);
}

// ---------------------------------------------------------------------------------------------
// Random and constructed data

inline Descriptors randomMatrix(std::mt19937_64& rng, Eigen::Index rows, Eigen::Index cols,
                                float lo = 0.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> value(lo, hi);
  Descriptors m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = value(rng);
  return m;
}

// Offsets of `images` images over n rows at random cut points; images may be empty.
inline std::vector<std::int64_t> randomOffsets(std::mt19937_64& rng, std::int64_t n, int images) {
  std::uniform_int_distribution<std::int64_t> cut(0, n);
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int64_t> cuts;
  for (int i = 0; i + 1 < images; ++i) cuts.push_back(cut(rng));
  std::sort(cuts.begin(), cuts.end());
  offsets.insert(offsets.end(), cuts.begin(), cuts.end());
  offsets.push_back(n);
  return offsets;
}

// A random histogram problem: n x d descriptors and k words uniform in [0, 1), `images` images at
// random cut points (drawn in that order).
struct RandomProblem {
  Descriptors x;
  Vocabulary vocabulary;
  std::vector<std::int64_t> offsets;
};
inline RandomProblem randomProblem(std::mt19937_64& rng, std::int64_t n, int k, int d, int images) {
  Descriptors x = randomMatrix(rng, n, d);
  Vocabulary vocabulary(randomMatrix(rng, k, d));
  return {std::move(x), std::move(vocabulary), randomOffsets(rng, n, images)};
}

// Descriptors with an unambiguous nearest word (OpenCV's matcher tests do the same): row i is a
// copy of centroid words[i] plus a perturbation of at most `noise` per feature. With centroids
// drawn uniformly in [0,1)^D (pairwise distances around sqrt(D/6) >= 3) and noise 1e-3, the own
// word is ~1e-3 * sqrt(D) away and every other word > 1: no summation order can change the answer.
inline Descriptors perturbedCopies(std::mt19937_64& rng, const Descriptors& centroids,
                                   const std::vector<std::int32_t>& words, float noise = 1e-3f) {
  std::uniform_real_distribution<float> delta(-noise, noise);
  Descriptors x(static_cast<Eigen::Index>(words.size()), centroids.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index f = 0; f < x.cols(); ++f) x(i, f) = centroids(words[i], f) + delta(rng);
  return x;
}

inline std::vector<std::int32_t> randomWords(std::mt19937_64& rng, std::int64_t n, int k) {
  std::uniform_int_distribution<std::int32_t> word(0, k - 1);
  std::vector<std::int32_t> words(static_cast<std::size_t>(n));
  for (auto& w : words) w = word(rng);
  return words;
}

// Expected histograms from known words: an independent bincount per image.
inline Histograms bincount(const std::vector<std::int64_t>& offsets, int k,
                           const std::vector<std::int32_t>& words) {
  Histograms h = Histograms::Zero(static_cast<Eigen::Index>(offsets.size()) - 1, k);
  for (std::size_t image = 0; image + 1 < offsets.size(); ++image)
    for (std::int64_t i = offsets[image]; i < offsets[image + 1]; ++i) ++h(image, words[i]);
  return h;
}

// Real near-ties: words come in pairs (c, P c) with P a random permutation of the features, and
// every descriptor is constant across features (x = t * 1). Then x - Pc = P(x - c): both words
// are at exactly the same distance, but float32 sums the same terms in different orders, so the
// rounded distances differ and each implementation may prefer either word of the pair. This
// exercises the near-tie acceptance on real backend output (random data almost never does).
struct TwinData {
  Descriptors x;
  Descriptors centroids;
};
inline TwinData permutedTwins(std::mt19937_64& rng, int pairs, int d, std::int64_t n) {
  TwinData data{Descriptors(n, d), Descriptors(2 * pairs, d)};
  std::vector<int> p(static_cast<std::size_t>(d));
  for (int j = 0; j < pairs; ++j) {
    for (int f = 0; f < d; ++f) p[f] = f;
    std::shuffle(p.begin(), p.end(), rng);
    data.centroids.row(2 * j) = randomMatrix(rng, 1, d).row(0);
    for (int f = 0; f < d; ++f) data.centroids(2 * j + 1, f) = data.centroids(2 * j, p[f]);
  }
  std::uniform_real_distribution<float> level(0.0f, 1.0f);
  for (Eigen::Index i = 0; i < n; ++i) data.x.row(i).setConstant(level(rng));
  return data;
}

// Near-ties built on purpose: each of n rows sits between two distinct words of `words`, exactly
// midway for every `midway_every`-th row and within `tilt` (relative weight) of midway for the rest,
// so that the two distances differ by less than a rounded score can resolve, or by nothing.
inline Descriptors rowsBetweenWords(std::mt19937_64& rng, const Descriptors& words, std::int64_t n, float tilt,
                                    int midway_every) {
  const int k = static_cast<int>(words.rows());
  Descriptors x(n, words.cols());
  std::uniform_int_distribution<int> word(0, k - 1);
  std::uniform_real_distribution<float> weight(-tilt, tilt);
  for (std::int64_t i = 0; i < n; ++i) {
    const int a = word(rng), b = (a + 1 + word(rng) % (k - 1)) % k;
    const float w = 0.5f + (i % midway_every == 0 ? 0.0f : weight(rng));
    x.row(i) = w * words.row(a) + (1.0f - w) * words.row(b);
  }
  return x;
}

// ---------------------------------------------------------------------------------------------
// The float64 reference and the near-tie rule

inline double distance64(const float* x, const float* c, Eigen::Index d) {
  double sum = 0.0;
  for (Eigen::Index f = 0; f < d; ++f) {
    const double t = static_cast<double>(x[f]) - static_cast<double>(c[f]);
    sum += t * t;
  }
  return sum;
}

inline double distance64(const Descriptors& x, Eigen::Index i, const Descriptors& centroids, Eigen::Index j) {
  return distance64(x.row(i).data(), centroids.row(j).data(), x.cols());
}

struct Nearest64 {
  std::int32_t word;
  double distance;
};

// The exact nearest word (float inputs are exact in double; the sum's own error is ~1e-16
// relative), ties to the lower index.
inline std::vector<Nearest64> bruteForce64(const Descriptors& x, const Descriptors& centroids) {
  std::vector<Nearest64> nearest(static_cast<std::size_t>(x.rows()));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    Nearest64 best{0, distance64(x, i, centroids, 0)};
    for (Eigen::Index j = 1; j < centroids.rows(); ++j) {
      const double dist = distance64(x, i, centroids, j);
      if (dist < best.distance) best = {static_cast<std::int32_t>(j), dist};
    }
    nearest[i] = best;
  }
  return nearest;
}

// Why this tolerance: a float32 distance sum_k (x_k - c_k)^2 evaluated in any order (sequential,
// float4 lanes, with or without FMA contraction) has a relative error of at most
// gamma_{D+2} = (D+2)u / (1 - (D+2)u), u = 2^-24 (Higham's bound for a D-term sum of terms that
// each carry a subtraction and a product). Two implementations can therefore rank words a and b
// differently only if their exact distances differ by at most gamma*(d_a + d_b) <= 2*gamma*max.
// That is 7.9e-6 relative at D = 64 and 1.55e-5 at D = 128: a rigorous bound, yet far below the
// typical gap between a random descriptor's two nearest words, so everything else must agree.
inline double nearTieTolerance(Eigen::Index d) {
  const double nu = static_cast<double>(d + 2) * std::ldexp(1.0, -24);
  return 2.0 * nu / (1.0 - nu);
}

inline bool isNearTie(double a, double b, Eigen::Index d) {
  return std::abs(a - b) <= nearTieTolerance(d) * std::max(a, b);
}

// Every assignment is the float64 nearest word, or a word whose float64 distance is a near-tie of
// the minimum. `near_ties` (optional) receives how many differed.
inline testing::AssertionResult matchesBruteForce(const Descriptors& x, const Descriptors& centroids,
                                                  const std::vector<std::int32_t>& actual,
                                                  int* near_ties = nullptr) {
  if (static_cast<Eigen::Index>(actual.size()) != x.rows())
    return testing::AssertionFailure() << "got " << actual.size() << " assignments for " << x.rows()
                                       << " descriptors";
  const auto reference = bruteForce64(x, centroids);
  int ties = 0, bad = 0;
  std::ostringstream report;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const std::int32_t a = actual[i];
    if (a == reference[i].word) continue;
    if (a < 0 || a >= centroids.rows()) {
      if (bad++ < 5) report << "\n  descriptor " << i << ": word " << a << " out of range [0, " << centroids.rows() << ")";
      continue;
    }
    const double da = distance64(x, i, centroids, a);
    if (isNearTie(da, reference[i].distance, x.cols())) {
      ++ties;
    } else if (bad++ < 5) {
      report << "\n  descriptor " << i << ": got word " << a << " (float64 distance " << da
             << "), nearest is word " << reference[i].word << " (" << reference[i].distance
             << "), relative gap " << (da - reference[i].distance) / da << " > tolerance "
             << nearTieTolerance(x.cols());
    }
  }
  if (near_ties) *near_ties = ties;
  if (bad) return testing::AssertionFailure() << bad << " of " << x.rows() << " assignments are wrong:" << report.str();
  return testing::AssertionSuccess() << ties << " near-ties";
}

// `actual` equals `reference` except where the two words' float64 distances are a near-tie.
inline testing::AssertionResult agreeExceptNearTies(const Descriptors& x, const Descriptors& centroids,
                                                    const std::vector<std::int32_t>& reference,
                                                    const std::vector<std::int32_t>& actual,
                                                    int* near_ties = nullptr) {
  if (actual.size() != reference.size())
    return testing::AssertionFailure() << "got " << actual.size() << " assignments, reference has "
                                       << reference.size();
  int ties = 0, bad = 0;
  std::ostringstream report;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const std::int32_t a = actual[i], r = reference[i];
    if (a == r) continue;
    if (a < 0 || a >= centroids.rows()) {
      if (bad++ < 5) report << "\n  descriptor " << i << ": word " << a << " out of range [0, " << centroids.rows() << ")";
      continue;
    }
    const double da = distance64(x, i, centroids, a), dr = distance64(x, i, centroids, r);
    if (isNearTie(da, dr, x.cols())) {
      ++ties;
    } else if (bad++ < 5) {
      report << "\n  descriptor " << i << ": got word " << a << " (float64 distance " << da
             << "), reference word " << r << " (" << dr << ")";
    }
  }
  if (near_ties) *near_ties = ties;
  if (bad) return testing::AssertionFailure() << bad << " of " << actual.size() << " assignments differ beyond near-ties:" << report.str();
  return testing::AssertionSuccess() << ties << " near-ties";
}

// The nearest word by the expanded form alone, ||c||^2 - 2 x.c in plain float loops, lowest index
// on ties: what a GEMM + argmin without a re-check (PyTorch's addmm + argmin) answers. The tiled
// backends' tests show, with it, that their data defeat the expanded form.
inline std::vector<std::int32_t> expandedFormArgmin(const Descriptors& x, const Descriptors& c) {
  std::vector<std::int32_t> nearest(static_cast<std::size_t>(x.rows()), 0);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    float best = std::numeric_limits<float>::infinity();
    for (Eigen::Index j = 0; j < c.rows(); ++j) {
      float norm = 0, dot = 0;
      for (Eigen::Index f = 0; f < c.cols(); ++f) {
        norm += c(j, f) * c(j, f);
        dot += x(i, f) * c(j, f);
      }
      const float e = norm - 2 * dot;
      if (e < best) {
        best = e;
        nearest[i] = static_cast<std::int32_t>(j);
      }
    }
  }
  return nearest;
}

inline int differences(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  int count = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) count += a[i] != b[i];
  return count;
}

// Histograms are I x K, each row the bincount of its image's assignments (so each row sums to the
// image's descriptor count).
inline testing::AssertionResult histogramsConsistent(const std::vector<std::int64_t>& offsets, int k,
                                                     const std::vector<std::int32_t>& assignments,
                                                     const Histograms& histograms) {
  const Eigen::Index images = static_cast<Eigen::Index>(offsets.size()) - 1;
  if (histograms.rows() != images || histograms.cols() != k)
    return testing::AssertionFailure() << "histograms are " << histograms.rows() << " x " << histograms.cols()
                                       << ", expected " << images << " x " << k;
  for (Eigen::Index image = 0; image < images; ++image) {
    const std::int64_t count = offsets[image + 1] - offsets[image];
    const std::int64_t sum = histograms.row(image).cast<std::int64_t>().sum();
    if (sum != count)
      return testing::AssertionFailure() << "image " << image << ": histogram sums to " << sum << ", it has "
                                         << count << " descriptors";
  }
  for (std::int32_t a : assignments)
    if (a < 0 || a >= k) return testing::AssertionFailure() << "assignment " << a << " out of range";
  const Histograms expected = bincount(offsets, k, assignments);
  for (Eigen::Index image = 0; image < images; ++image)
    for (Eigen::Index j = 0; j < k; ++j)
      if (histograms(image, j) != expected(image, j))
        return testing::AssertionFailure() << "image " << image << ", word " << j << ": histogram holds "
                                           << histograms(image, j) << ", its assignments count "
                                           << expected(image, j);
  return testing::AssertionSuccess();
}

// Exact equality with a readable first difference.
inline testing::AssertionResult histogramsEqual(const Histograms& expected, const Histograms& actual) {
  if (expected.rows() != actual.rows() || expected.cols() != actual.cols())
    return testing::AssertionFailure() << "shape " << actual.rows() << " x " << actual.cols() << ", expected "
                                       << expected.rows() << " x " << expected.cols();
  for (Eigen::Index i = 0; i < expected.rows(); ++i)
    for (Eigen::Index j = 0; j < expected.cols(); ++j)
      if (expected(i, j) != actual(i, j))
        return testing::AssertionFailure() << "image " << i << ", word " << j << ": " << actual(i, j)
                                           << ", expected " << expected(i, j);
  return testing::AssertionSuccess();
}

inline testing::AssertionResult assignmentsEqual(const std::vector<std::int32_t>& expected,
                                                 const std::vector<std::int32_t>& actual) {
  if (expected.size() != actual.size())
    return testing::AssertionFailure() << actual.size() << " assignments, expected " << expected.size();
  int bad = 0;
  std::ostringstream report;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != actual[i] && bad++ < 5)
      report << "\n  descriptor " << i << ": word " << actual[i] << ", expected " << expected[i];
  if (bad) return testing::AssertionFailure() << bad << " of " << expected.size() << " assignments differ:" << report.str();
  return testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Backends

// True when an OpenCL device exists; OpenCL tests skip (with a message) otherwise.
inline bool openclAvailable() {
  static const bool available = !listDevices().empty();
  return available;
}

// The approximate backend needs OpenCV's FLANN: a build without OpenCV refuses to make it.
inline bool approximateBackendAvailable() {
  HistogrammerConfig config;
  config.backend = Backend::OpenMPApproximate;
  try {
    makeHistogrammer(config);
    return true;
  } catch (const InvalidInput&) {
    return false;
  }
}

#define BOVW_REQUIRE_APPROXIMATE_BACKEND()                                                       \
  do {                                                                                           \
    if (!::bovw::test::approximateBackendAvailable())                                            \
      GTEST_SKIP() << "this bovw was built without OpenCV, which the approximate backend needs"; \
  } while (0)

#define BOVW_REQUIRE_OPENCL()                                                              \
  do {                                                                                     \
    if (!::bovw::test::openclAvailable())                                                  \
      GTEST_SKIP() << "no OpenCL platform installed (Debian: apt install pocl-opencl-icd)"; \
  } while (0)

// The device the OpenCL tests run on: the library's default ($BOVW_DEVICE, else first GPU, else CPU).
inline const DeviceInfo& testDevice() {
  static const DeviceInfo info = selectDevice("");
  return info;
}

struct BackendCase {
  Backend backend;
  KernelVariant variant;  // for OpenCL
};

// The exact backends: suites parametrised on these check exact answers, so the approximate
// Backend::OpenMPApproximate is left out on purpose (cpu/approximate_backend_test.cpp checks it).
inline std::vector<BackendCase> allBackendCases() {
  std::vector<BackendCase> cases{{Backend::Serial, KernelVariant::Baseline},
                                 {Backend::OpenMP, KernelVariant::Baseline}};
  for (KernelVariant v : allKernelVariants()) cases.push_back({Backend::OpenCL, v});
  return cases;
}

// A variant's name as a test name may spell it ("tiled-tf32" -> "tiled_tf32": no '-' there).
inline std::string testName(KernelVariant variant) {
  std::string name(toString(variant));
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

inline std::string caseName(const BackendCase& c) {
  return c.backend == Backend::OpenCL ? "opencl_" + testName(c.variant) : std::string(toString(c.backend));
}

inline void PrintTo(const BackendCase& c, std::ostream* os) { *os << caseName(c); }

inline HistogrammerConfig configFor(const BackendCase& c, int work_group_size = 64) {
  HistogrammerConfig config;
  config.backend = c.backend;
  config.variant = c.variant;
  config.work_group_size = work_group_size;
  return config;
}

inline HistogrammerConfig openclConfig(KernelVariant variant, int work_group_size = 64) {
  return configFor({Backend::OpenCL, variant}, work_group_size);
}

// The golden path every device variant is compared with.
inline std::vector<std::int32_t> openmpAssign(const Descriptors& x, const Vocabulary& vocabulary) {
  HistogrammerConfig config;
  config.backend = Backend::OpenMP;
  return makeHistogrammer(config)->assign(x, vocabulary);
}

// A vocabulary size K > constant_memory / (4 D) so that ConstantCentroids must split it. D = 128
// when that keeps K practical on a 2-core CPU; for a device with a huge constant buffer D grows
// instead (still an honest K x D x 4 > constant buffer), keeping K near 2.x chunks' worth.
struct ChunkedShape {
  int k;
  int d;
  int words_per_chunk;
};
inline ChunkedShape chunkedShape(std::uint64_t constant_memory) {
  int d = 128;
  while (constant_memory / (4ull * d) > 6000) d *= 2;
  const int per_chunk = static_cast<int>(constant_memory / (4ull * d));
  return {2 * per_chunk + 5, d, per_chunk};
}

}  // namespace bovw::test
