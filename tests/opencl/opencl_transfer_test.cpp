// The chunked, double-buffered transfers of the OpenCL host path: however the rows are cut into
// transfer chunks (odd sizes, chunks that split images, a last chunk of one row, more chunks than
// images, one chunk for everything), every variant gives the answer of the golden path (exactly for
// Tiled, up to verified near-ties for the chapter's variants), and a histogrammer keeps working as
// batches grow and shrink between calls.
#include "support/test_support.hpp"

#include <bovw/histogrammer.hpp>

namespace bovw::test {
namespace {

HistogrammerConfig chunkedConfig(KernelVariant variant, std::int64_t transfer_rows) {
  HistogrammerConfig config = openclConfig(variant);
  config.transfer_rows = transfer_rows;
  return config;
}

void expectGoldenChunked(Histogrammer& histogrammer, KernelVariant variant, const Descriptors& x,
                         const Vocabulary& vocabulary, const std::vector<std::int64_t>& offsets) {
  SCOPED_TRACE(histogrammer.description());
  std::vector<std::int32_t> words;
  StageTimes times;
  const Histograms h = histogrammer.compute(DescriptorBatch(x, offsets), vocabulary, &words, &times);
  const auto golden = openmpAssign(x, vocabulary);
  if (variant == KernelVariant::Tiled)
    EXPECT_TRUE(assignmentsEqual(golden, words));
  else
    EXPECT_TRUE(agreeExceptNearTies(x, vocabulary.centroids(), golden, words));
  EXPECT_TRUE(histogramsConsistent(offsets, vocabulary.size(), words, h));
  EXPECT_GT(times.wall_ms, 0.0);
}

class TransferChunks : public testing::TestWithParam<KernelVariant> {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
};

TEST_P(TransferChunks, AnyChunkSizeGivesTheGoldenAnswer) {
  BOVW_SEEDED_RNG(rng);
  const RandomProblem p = randomProblem(rng, 1001, 37, 64, 9);
  for (std::int64_t rows : {1000, 97, 500, 1, 1001, 5000}) {
    SCOPED_TRACE("transfer rows " + std::to_string(rows));
    if (rows == 1 && GetParam() != KernelVariant::Tiled) continue;  // 1,001 launches: slow on PoCL
    auto h = makeHistogrammer(chunkedConfig(GetParam(), rows));
    expectGoldenChunked(*h, GetParam(), p.x, p.vocabulary, p.offsets);
  }
}

// One histogrammer: a large batch, a small one, a larger one again, and a strided view, so the
// slots grow, are reused, and grow again.
TEST_P(TransferChunks, BatchesGrowAndShrinkBetweenCalls) {
  BOVW_SEEDED_RNG(rng);
  auto h = makeHistogrammer(chunkedConfig(GetParam(), 300));
  const Vocabulary vocabulary(randomMatrix(rng, 50, 64));
  for (std::int64_t n : {700, 5, 1200}) {
    const Descriptors x = randomMatrix(rng, n, 64);
    expectGoldenChunked(*h, GetParam(), x, vocabulary, randomOffsets(rng, n, 4));
  }
  const Descriptors wide = randomMatrix(rng, 650, 64 + 5);
  const Descriptors contiguous = wide.leftCols(64);
  const DescriptorsRef view = wide.leftCols(64);
  EXPECT_TRUE(assignmentsEqual(h->assign(contiguous, vocabulary), h->assign(view, vocabulary)));
}

INSTANTIATE_TEST_SUITE_P(Variants, TransferChunks,
                         testing::Values(KernelVariant::Baseline, KernelVariant::ConstantCentroids,
                                         KernelVariant::Tiled),
                         [](const auto& info) { return std::string(toString(info.param)); });

}  // namespace
}  // namespace bovw::test
