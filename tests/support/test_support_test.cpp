// The checkers of test_support.hpp can fail: wrong words, miscounted bins and gaps beyond the
// near-tie tolerance are rejected, true near-ties accepted. Without this, a too-lenient checker
// would make every golden test pass.
#include "support/test_support.hpp"

#include <cmath>

namespace bovw::test {
namespace {

// x = 0; word 0 at distance 1, word 1 one float ulp farther (relative gap 2.4e-7: a near-tie),
// word 2 at distance 1.002001 (relative gap 2e-3: not a tie), word 3 far away.
struct TieFixture {
  Descriptors x = Descriptors::Zero(1, 64);
  Descriptors c = Descriptors::Zero(4, 64);
  TieFixture() {
    c(0, 0) = 1.0f;
    c(1, 0) = std::nextafter(1.0f, 2.0f);
    c(2, 0) = 1.001f;
    c(3, 0) = 5.0f;
  }
};

TEST(Checkers, NearTieToleranceFollowsTheFloat32ErrorBound) {
  const double nu = 66 * std::ldexp(1.0, -24);  // (D + 2) u at D = 64
  EXPECT_DOUBLE_EQ(nearTieTolerance(64), 2.0 * nu / (1.0 - nu));
  EXPECT_GT(nearTieTolerance(128), nearTieTolerance(64));
  EXPECT_LT(nearTieTolerance(128), 2e-5);
  EXPECT_TRUE(isNearTie(1.0, 1.0 + 1e-6, 64));
  EXPECT_FALSE(isNearTie(1.0, 1.0 + 1e-4, 64));
  EXPECT_TRUE(isNearTie(0.0, 0.0, 64));
  EXPECT_FALSE(isNearTie(0.0, 1e-30, 64));
}

TEST(Checkers, BruteForceAcceptsNearTiesAndRejectsWrongWords) {
  const TieFixture f;
  EXPECT_EQ(bruteForce64(f.x, f.c)[0].word, 0);
  int ties = -1;
  EXPECT_TRUE(matchesBruteForce(f.x, f.c, {0}, &ties));
  EXPECT_EQ(ties, 0);
  EXPECT_TRUE(matchesBruteForce(f.x, f.c, {1}, &ties));
  EXPECT_EQ(ties, 1);
  EXPECT_FALSE(matchesBruteForce(f.x, f.c, {2}));
  EXPECT_FALSE(matchesBruteForce(f.x, f.c, {3}));
  EXPECT_FALSE(matchesBruteForce(f.x, f.c, {4}));   // out of range
  EXPECT_FALSE(matchesBruteForce(f.x, f.c, {-1}));
  EXPECT_FALSE(matchesBruteForce(f.x, f.c, {0, 0}));  // wrong count
}

TEST(Checkers, AgreementAcceptsNearTiesOnly) {
  const TieFixture f;
  EXPECT_TRUE(agreeExceptNearTies(f.x, f.c, {0}, {0}));
  EXPECT_TRUE(agreeExceptNearTies(f.x, f.c, {0}, {1}));
  EXPECT_TRUE(agreeExceptNearTies(f.x, f.c, {1}, {0}));
  EXPECT_FALSE(agreeExceptNearTies(f.x, f.c, {0}, {2}));
  EXPECT_FALSE(agreeExceptNearTies(f.x, f.c, {0}, {7}));
  EXPECT_FALSE(agreeExceptNearTies(f.x, f.c, {0}, {}));
}

TEST(Checkers, RandomWrongAssignmentsAreCaught) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors c = randomMatrix(rng, 50, 128);
  const auto words = randomWords(rng, 500, 50);
  const Descriptors x = perturbedCopies(rng, c, words);
  EXPECT_TRUE(matchesBruteForce(x, c, words));
  auto wrong = words;
  wrong[123] = (wrong[123] + 1) % 50;
  EXPECT_FALSE(matchesBruteForce(x, c, wrong));
  EXPECT_FALSE(agreeExceptNearTies(x, c, words, wrong));
  EXPECT_FALSE(assignmentsEqual(words, wrong));
}

TEST(Checkers, HistogramConsistencyCatchesMiscounts) {
  const std::vector<std::int64_t> offsets{0, 2, 2, 5};
  const std::vector<std::int32_t> words{1, 1, 0, 2, 2};
  Histograms h(3, 3);
  h << 0, 2, 0,  //
      0, 0, 0,   //
      1, 0, 2;
  EXPECT_TRUE(histogramsConsistent(offsets, 3, words, h));
  EXPECT_TRUE(histogramsEqual(bincount(offsets, 3, words), h));
  Histograms moved = h;  // same sums, wrong bins
  moved(2, 0) = 0;
  moved(2, 1) = 1;
  EXPECT_FALSE(histogramsConsistent(offsets, 3, words, moved));
  Histograms extra = h;
  extra(1, 1) = 1;  // the empty image counts something
  EXPECT_FALSE(histogramsConsistent(offsets, 3, words, extra));
  EXPECT_FALSE(histogramsConsistent(offsets, 3, words, Histograms::Zero(2, 3)));
  EXPECT_FALSE(histogramsConsistent(offsets, 4, words, h));
  EXPECT_FALSE(histogramsEqual(h, moved));
}

TEST(Checkers, SeedIsStableWithinATest) {
  const auto a = seedForCurrentTest(), b = seedForCurrentTest();
  EXPECT_EQ(a, b);
  EXPECT_EQ(baseSeed(), baseSeed());
  if (const char* env = std::getenv("BOVW_TEST_SEED"); env && *env) {
    EXPECT_EQ(baseSeed(), std::stoull(env, nullptr, 0));
  }
}

TEST(Checkers, RandomOffsetsAreValid) {
  BOVW_SEEDED_RNG(rng);
  for (int images : {1, 2, 50}) {
    const auto offsets = randomOffsets(rng, 100, images);
    ASSERT_EQ(offsets.size(), static_cast<std::size_t>(images) + 1);
    EXPECT_EQ(offsets.front(), 0);
    EXPECT_EQ(offsets.back(), 100);
    EXPECT_TRUE(std::is_sorted(offsets.begin(), offsets.end()));
  }
}

}  // namespace
}  // namespace bovw::test
