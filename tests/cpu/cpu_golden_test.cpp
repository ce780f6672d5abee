// The CPU paths: Serial against a float64 brute force (near-ties excepted, see support/test_support.hpp),
// OpenMP exactly equal to Serial (same per-distance summation order by design, any thread count).
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

namespace bovw::test {
namespace {

std::unique_ptr<Histogrammer> cpuHistogrammer(Backend backend, int threads = 0) {
  HistogrammerConfig config;
  config.backend = backend;
  config.threads = threads;
  return makeHistogrammer(config);
}

class SerialVsFloat64 : public testing::TestWithParam<Shape> {};

TEST_P(SerialVsFloat64, AssignmentsAreTheNearestWordAndHistogramsCountThem) {
  BOVW_SEEDED_RNG(rng);
  const Shape s = GetParam();
  const Descriptors x = randomMatrix(rng, s.n, s.d);
  const Vocabulary vocabulary(randomMatrix(rng, s.k, s.d));
  const auto offsets = randomOffsets(rng, s.n, s.images);

  auto serial = cpuHistogrammer(Backend::Serial);
  std::vector<std::int32_t> assignments;
  const Histograms h = serial->compute(DescriptorBatch(x, offsets), vocabulary, &assignments);

  int ties = 0;
  EXPECT_TRUE(matchesBruteForce(x, vocabulary.centroids(), assignments, &ties));
  EXPECT_TRUE(histogramsConsistent(offsets, s.k, assignments, h));
  // assign() is the batch of one: the same words.
  EXPECT_TRUE(assignmentsEqual(assignments, serial->assign(x, vocabulary)));
  RecordProperty("near_ties", ties);
}

INSTANTIATE_TEST_SUITE_P(Shapes, SerialVsFloat64,
                         testing::Values(Shape{0, 8, 64, 1}, Shape{1, 1, 64, 1}, Shape{1, 257, 128, 3},
                                         Shape{63, 8, 128, 2}, Shape{64, 256, 64, 5},
                                         Shape{65, 257, 64, 4}, Shape{1000, 1000, 128, 17},
                                         Shape{70000, 8, 64, 100}),
                         [](const auto& info) { return shapeName(info.param); });

// Descriptors drawn close together (a narrow range) make many near-equal distances: the check
// must still hold, and the brute force decides the rest.
TEST(SerialVsFloat64Crowded, NarrowValueRangeStillMatches) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 3000, 64, 0.49f, 0.51f);
  const Vocabulary vocabulary(randomMatrix(rng, 300, 64, 0.49f, 0.51f));
  int ties = 0;
  EXPECT_TRUE(matchesBruteForce(x, vocabulary.centroids(),
                                cpuHistogrammer(Backend::Serial)->assign(x, vocabulary), &ties));
  RecordProperty("near_ties", ties);
}

// Words that are exact ties in real arithmetic but not in float32 (see permutedTwins): the serial
// path may pick either word of a pair, never a third, and the checker must accept it.
TEST(SerialVsFloat64Crowded, ExactTiesRoundedDifferently) {
  BOVW_SEEDED_RNG(rng);
  for (int d : {64, 128}) {
    const TwinData data = permutedTwins(rng, 20, d, 4000);
    const Vocabulary vocabulary(data.centroids);
    const auto words = cpuHistogrammer(Backend::Serial)->assign(data.x, vocabulary);
    int ties = 0;
    EXPECT_TRUE(matchesBruteForce(data.x, data.centroids, words, &ties)) << "D = " << d;
    RecordProperty("near_ties_D" + std::to_string(d), ties);
  }
}

class OpenMPVsSerial : public testing::TestWithParam<std::tuple<Shape, int>> {};

TEST_P(OpenMPVsSerial, ExactlyEqual) {
  BOVW_SEEDED_RNG(rng);
  const auto [s, threads] = GetParam();
  const Descriptors x = randomMatrix(rng, s.n, s.d);
  const Vocabulary vocabulary(randomMatrix(rng, s.k, s.d));
  const auto offsets = randomOffsets(rng, s.n, s.images);
  const DescriptorBatch batch(x, offsets);

  std::vector<std::int32_t> serial_words, openmp_words;
  const Histograms serial = cpuHistogrammer(Backend::Serial)->compute(batch, vocabulary, &serial_words);
  const Histograms openmp =
      cpuHistogrammer(Backend::OpenMP, threads)->compute(batch, vocabulary, &openmp_words);
  EXPECT_TRUE(assignmentsEqual(serial_words, openmp_words));
  EXPECT_TRUE(histogramsEqual(serial, openmp));
  EXPECT_TRUE(histogramsConsistent(offsets, s.k, openmp_words, openmp));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, OpenMPVsSerial,
    testing::Combine(testing::Values(Shape{1, 1, 64, 1}, Shape{65, 257, 128, 3}, Shape{1000, 1000, 64, 9},
                                     Shape{70000, 64, 64, 50}),
                     testing::Values(0, 2, 3)),
    [](const auto& info) {
      return shapeName(std::get<0>(info.param)) + "_threads" + std::to_string(std::get<1>(info.param));
    });

// A vocabulary larger than the CPU path's internal word block (512) with the nearest word on
// either side of block boundaries: the running minimum across blocks must keep the lower word.
TEST(CpuWordBlocks, DuplicateWordsAcrossBlocksGoToTheLowerIndex) {
  BOVW_SEEDED_RNG(rng);
  Descriptors c = randomMatrix(rng, 1300, 64);
  c.row(1100) = c.row(100);  // word 100 (block 0) == word 1100 (block 2)
  c.row(700) = c.row(600);   // both in block 1
  const Vocabulary vocabulary(c);
  Descriptors x(4, 64);
  x.row(0) = c.row(1100);
  x.row(1) = c.row(100);
  x.row(2) = c.row(700);
  x.row(3) = c.row(1299);
  const std::vector<std::int32_t> expected{100, 100, 600, 1299};
  for (Backend backend : {Backend::Serial, Backend::OpenMP})
    EXPECT_TRUE(assignmentsEqual(expected, cpuHistogrammer(backend)->assign(x, vocabulary)))
        << toString(backend);
}

// A strided view (a column block of a wider matrix, as a cv::Mat ROI would give) is read correctly.
TEST(CpuStridedView, ColumnBlockOfAWiderMatrix) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors wide = randomMatrix(rng, 500, 64 + 7);
  const Descriptors x = wide.leftCols(64);
  const Vocabulary vocabulary(randomMatrix(rng, 40, 64));
  const DescriptorsRef view = wide.leftCols(64);
  for (Backend backend : {Backend::Serial, Backend::OpenMP}) {
    auto h = cpuHistogrammer(backend);
    EXPECT_TRUE(assignmentsEqual(h->assign(x, vocabulary), h->assign(view, vocabulary))) << toString(backend);
  }
}

}  // namespace
}  // namespace bovw::test
