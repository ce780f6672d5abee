// PinnedDescriptors and the OpenCL histogrammer's uploads straight from them: answers from pinned
// memory equal the golden OpenMP path exactly (the tiled kernel; fresh random data, N not a multiple
// of the transfer chunk), pinned rows are read in place (StageTimes::staged_rows is 0) and everything
// else is staged (ordinary memory, strided column blocks, another device's pinned memory) with the
// same answers, and the type itself: shapes, moves, empty matrices, clear refusals.
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/pinned_descriptors.hpp>

#include <limits>
#include <utility>

namespace bovw::test {
namespace {

PinnedDescriptors pinnedCopy(const Descriptors& x, const std::string& device = "") {
  PinnedDescriptors pinned(x.rows(), x.cols(), device);
  pinned.matrix() = x;
  return pinned;
}

HistogrammerConfig tiledConfig(std::int64_t transfer_rows) {
  HistogrammerConfig config = openclConfig(KernelVariant::Tiled);
  config.transfer_rows = transfer_rows;
  return config;
}

struct Result {
  std::vector<std::int32_t> words;
  Histograms histograms;
  StageTimes times;
};

Result run(Histogrammer& histogrammer, DescriptorsRef x, const Vocabulary& vocabulary,
           const std::vector<std::int64_t>& offsets) {
  Result r;
  r.histograms = histogrammer.compute(DescriptorBatch(x, offsets), vocabulary, &r.words, &r.times);
  return r;
}

// Equal to the golden path's assignments (from an ordinary copy of the data) and to their bincount.
void expectGolden(const Result& r, const Descriptors& x, const Vocabulary& vocabulary,
                  const std::vector<std::int64_t>& offsets) {
  const auto golden = openmpAssign(x, vocabulary);
  EXPECT_TRUE(assignmentsEqual(golden, r.words));
  EXPECT_TRUE(histogramsEqual(bincount(offsets, vocabulary.size(), golden), r.histograms));
}

class Pinned : public testing::Test {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
};

TEST_F(Pinned, AnswersEqualTheGoldenPathWithNothingStaged) {
  BOVW_SEEDED_RNG(rng);
  const RandomProblem p = randomProblem(rng, 1001, 37, 64, 9);
  const PinnedDescriptors pinned = pinnedCopy(p.x);
  // Ragged last chunks (97 and 250 rows: 11 and 5 chunks), one chunk exactly, one larger than N.
  for (std::int64_t rows : {97, 250, 1001, 5000}) {
    SCOPED_TRACE("transfer rows " + std::to_string(rows));
    auto h = makeHistogrammer(tiledConfig(rows));
    const Result r = run(*h, pinned.matrix(), p.vocabulary, p.offsets);
    expectGolden(r, p.x, p.vocabulary, p.offsets);
    EXPECT_EQ(r.times.staged_rows, 0);
    EXPECT_GT(r.times.upload_ms, 0.0);
  }
}

// The same histogrammer and kernel (a chapter variant this time) on the same values from pinned and
// from ordinary memory: only where the bytes come from differs, so the answers are identical.
TEST_F(Pinned, PinnedAndOrdinaryMemoryGiveIdenticalAnswers) {
  BOVW_SEEDED_RNG(rng);
  const std::int64_t n = 777;
  const Descriptors x = randomMatrix(rng, n, 64, -2.0f, 3.0f);
  const Vocabulary vocabulary(randomMatrix(rng, 50, 64, -2.0f, 3.0f));
  const auto offsets = randomOffsets(rng, n, 5);
  HistogrammerConfig config = openclConfig(KernelVariant::Baseline);
  config.transfer_rows = 200;
  auto h = makeHistogrammer(config);
  const PinnedDescriptors pinned = pinnedCopy(x);
  const Result from_pinned = run(*h, pinned.matrix(), vocabulary, offsets);
  const Result from_ordinary = run(*h, x, vocabulary, offsets);
  EXPECT_TRUE(assignmentsEqual(from_ordinary.words, from_pinned.words));
  EXPECT_TRUE(histogramsEqual(from_ordinary.histograms, from_pinned.histograms));
  EXPECT_EQ(from_pinned.times.staged_rows, 0);
  EXPECT_EQ(from_ordinary.times.staged_rows, n);
  EXPECT_TRUE(agreeExceptNearTies(x, vocabulary.centroids(), openmpAssign(x, vocabulary), from_pinned.words));
}

// Row blocks of a pinned allocation are contiguous inside it: uploaded in place, from any offset.
TEST_F(Pinned, RowBlocksAreUploadedInPlace) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 1001, 64);
  const Vocabulary vocabulary(randomMatrix(rng, 29, 64));
  const PinnedDescriptors pinned = pinnedCopy(x);
  auto h = makeHistogrammer(tiledConfig(64));
  for (auto [first, rows] : {std::pair{123, 555}, std::pair{0, 1}, std::pair{1000, 1}, std::pair{1, 1000}}) {
    SCOPED_TRACE("rows " + std::to_string(first) + " + " + std::to_string(rows));
    const Descriptors block = x.middleRows(first, rows);
    const auto offsets = randomOffsets(rng, rows, 3);
    const Result r = run(*h, pinned.matrix().middleRows(first, rows), vocabulary, offsets);
    expectGolden(r, block, vocabulary, offsets);
    EXPECT_EQ(r.times.staged_rows, 0);
  }
}

// A column block is strided (each row skips the other columns): the histogrammer stages it, and
// ordinary memory as well, with the golden answers; one histogrammer alternates between the paths.
TEST_F(Pinned, StridedBlocksAndOrdinaryMemoryGoThroughStaging) {
  BOVW_SEEDED_RNG(rng);
  const Vocabulary vocabulary(randomMatrix(rng, 41, 64));
  auto h = makeHistogrammer(tiledConfig(300));
  const Descriptors wide = randomMatrix(rng, 650, 64 + 5);
  const PinnedDescriptors pinned_wide = pinnedCopy(wide);
  const Descriptors x = randomMatrix(rng, 1200, 64);
  const PinnedDescriptors pinned = pinnedCopy(x);
  const auto offsets_wide = randomOffsets(rng, 650, 4), offsets = randomOffsets(rng, 1200, 4);

  Result r = run(*h, pinned_wide.matrix().leftCols(64), vocabulary, offsets_wide);
  expectGolden(r, wide.leftCols(64), vocabulary, offsets_wide);
  EXPECT_EQ(r.times.staged_rows, 650);
  r = run(*h, pinned.matrix(), vocabulary, offsets);
  expectGolden(r, x, vocabulary, offsets);
  EXPECT_EQ(r.times.staged_rows, 0);
  r = run(*h, x, vocabulary, offsets);
  expectGolden(r, x, vocabulary, offsets);
  EXPECT_EQ(r.times.staged_rows, 1200);
}

TEST_F(Pinned, EmptyBatch) {
  BOVW_SEEDED_RNG(rng);
  const Vocabulary vocabulary(randomMatrix(rng, 7, 64));
  const PinnedDescriptors empty(0, 64);
  EXPECT_EQ(empty.rows(), 0);
  EXPECT_EQ(empty.cols(), 64);
  auto h = makeHistogrammer(tiledConfig(0));
  const Result r = run(*h, empty.matrix(), vocabulary, {0, 0, 0});
  EXPECT_TRUE(r.words.empty());
  EXPECT_TRUE(histogramsEqual(Histograms::Zero(2, 7), r.histograms));
  EXPECT_EQ(r.times.staged_rows, 0);
}

TEST_F(Pinned, MovesKeepTheMemoryPinned) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 300, 64);
  const Vocabulary vocabulary(randomMatrix(rng, 17, 64));
  auto h = makeHistogrammer(tiledConfig(128));
  PinnedDescriptors first = pinnedCopy(x);
  const float* memory = first.data();
  EXPECT_EQ(first.matrix().data(), memory);
  EXPECT_FALSE(first.device().name.empty());

  PinnedDescriptors moved(std::move(first));
  EXPECT_EQ(moved.data(), memory);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(first.rows(), 0);
  Result r = run(*h, moved.matrix(), vocabulary, {0, 300});
  expectGolden(r, x, vocabulary, {0, 300});
  EXPECT_EQ(r.times.staged_rows, 0);

  PinnedDescriptors assigned(5, 64);
  assigned = std::move(moved);  // releases the 5 x 64 allocation
  EXPECT_EQ(assigned.data(), memory);
  EXPECT_EQ(assigned.rows(), 300);
  r = run(*h, assigned.matrix(), vocabulary, {0, 300});
  expectGolden(r, x, vocabulary, {0, 300});
  EXPECT_EQ(r.times.staged_rows, 0);
}

TEST_F(Pinned, RefusesBadShapesUnknownDevicesAndOversizedMatrices) {
  try {
    PinnedDescriptors bad(-1, 64);
    ADD_FAILURE() << "a -1 x 64 matrix was allocated";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("-1 x 64"), std::string::npos) << e.what();
  }
  try {
    PinnedDescriptors nowhere(10, 64, "no-such-device-for-pinning");
    ADD_FAILURE() << "allocated on a device that does not exist";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-device-for-pinning"), std::string::npos) << e.what();
  }
  const DeviceInfo& device = testDevice();
  const std::int64_t too_many_rows = static_cast<std::int64_t>(device.max_allocation / (4 * 64)) + 1;
  for (auto [rows, cols] : {std::pair{too_many_rows, std::int64_t{64}},
                            std::pair{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()}}) {
    try {
      PinnedDescriptors huge(rows, cols);
      ADD_FAILURE() << rows << " x " << cols << " floats were allocated";
    } catch (const CapacityError& e) {
      EXPECT_NE(std::string(e.what()).find(device.name), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::to_string(rows) + " x " + std::to_string(cols)), std::string::npos)
          << e.what();
    }
  }
}

// Pinned memory of one device given to a histogrammer of another: not registered with that device,
// so it is staged like ordinary memory, with the golden answers. Needs two OpenCL devices; CTest
// runs this test a second time with PoCL made to expose two (tests/CMakeLists.txt).
TEST_F(Pinned, AnotherDevicesPinnedMemoryIsStaged) {
  const auto devices = listDevices();
  if (devices.size() < 2) GTEST_SKIP() << "needs two OpenCL devices (e.g. POCL_DEVICES=\"pthread pthread\")";
  auto spec = [](const DeviceInfo& d) { return std::to_string(d.platform_index) + ":" + std::to_string(d.device_index); };
  BOVW_SEEDED_RNG(rng);
  const RandomProblem p = randomProblem(rng, 501, 23, 64, 3);
  HistogrammerConfig config = tiledConfig(200);
  config.device = spec(devices[0]);
  auto h = makeHistogrammer(config);
  const PinnedDescriptors other = pinnedCopy(p.x, spec(devices[1]));
  const PinnedDescriptors own = pinnedCopy(p.x, spec(devices[0]));
  Result r = run(*h, other.matrix(), p.vocabulary, p.offsets);
  expectGolden(r, p.x, p.vocabulary, p.offsets);
  EXPECT_EQ(r.times.staged_rows, 501);
  r = run(*h, own.matrix(), p.vocabulary, p.offsets);
  expectGolden(r, p.x, p.vocabulary, p.offsets);
  EXPECT_EQ(r.times.staged_rows, 0);
}

}  // namespace
}  // namespace bovw::test
