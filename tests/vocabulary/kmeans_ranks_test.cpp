// Distributed k-means: the sample split over R thread ranks in any way (uneven parts, a rank with no
// rows) gives the single-process vocabulary byte for byte, and the same per-iteration reports; a
// mix of CPU and OpenCL (PoCL) ranks too. Bad input fails on every rank, never hangs.
#include "support/test_support.hpp"
#include "support/thread_communicator.hpp"

#include <bovw/error.hpp>
#include <bovw/kmeans.hpp>

#include <mutex>

namespace bovw::test {
namespace {

using bovw::test::runOnRanks;

// Rank r's rows: [cuts[r], cuts[r + 1]).
Descriptors part(const Descriptors& x, const std::vector<Eigen::Index>& cuts, int rank) {
  const Eigen::Index first = cuts[static_cast<std::size_t>(rank)];
  return x.middleRows(first, cuts[static_cast<std::size_t>(rank) + 1] - first);
}

struct Training {
  Descriptors words;
  std::vector<double> inertias;
  std::vector<int> reseeded;
};

Training trainOnRanks(const Descriptors& x, const std::vector<Eigen::Index>& cuts, KMeansOptions options,
                 const std::function<HistogrammerConfig(int)>& backend_of_rank = nullptr) {
  const int ranks = static_cast<int>(cuts.size()) - 1;
  std::vector<Training> runs(static_cast<std::size_t>(ranks));
  runOnRanks(ranks, [&](Communicator& group) {
    Training& mine = runs[static_cast<std::size_t>(group.rank())];
    KMeansOptions local = options;
    if (backend_of_rank) local.assignment = backend_of_rank(group.rank());
    local.progress = [&](const KMeansIteration& it) {
      mine.inertias.push_back(it.inertia);
      mine.reseeded.push_back(it.reseeded);
    };
    mine.words = trainVocabulary(part(x, cuts, group.rank()), local, group).centroids();
  });
  for (int r = 1; r < ranks; ++r) {  // every rank returns the same words and saw the same iterations
    EXPECT_TRUE(runs[static_cast<std::size_t>(r)].words == runs[0].words) << "rank " << r;
    EXPECT_EQ(runs[static_cast<std::size_t>(r)].inertias, runs[0].inertias) << "rank " << r;
  }
  return runs[0];
}

Training trainAlone(const Descriptors& x, KMeansOptions options) {
  Training run;
  options.progress = [&](const KMeansIteration& it) {
    run.inertias.push_back(it.inertia);
    run.reseeded.push_back(it.reseeded);
  };
  run.words = trainVocabulary(x, options).centroids();
  return run;
}

KMeansOptions someOptions(std::mt19937_64& rng, int words) {
  KMeansOptions options;
  options.words = words;
  options.max_iterations = 6;
  options.tolerance = -1;  // run every iteration: more chances to differ
  options.seed = rng();
  return options;
}

TEST(DistributedKMeans, AnySplitGivesTheSingleProcessVocabulary) {
  BOVW_SEEDED_RNG(rng);
  // Uniform data (near-ties everywhere, so any difference in a sum would show), an odd width, and
  // more than one seeding block so that rank boundaries fall inside blocks.
  const Descriptors x = randomMatrix(rng, 2531, 37, -1.0f, 1.0f);
  const KMeansOptions options = someOptions(rng, 45);
  const Training alone = trainAlone(x, options);
  const std::vector<std::vector<Eigen::Index>> splits = {
      {0, 2531},                    // one rank
      {0, 1265, 2531},              // halves
      {0, 1, 1000, 2531},           // a one-row rank
      {0, 700, 700, 1900, 2531},    // a rank with no rows
      {0, 400, 800, 1300, 2000, 2531}};
  for (const auto& cuts : splits) {
    SCOPED_TRACE(::testing::Message() << cuts.size() - 1 << " ranks, second cut " << cuts[1]);
    const Training distributed = trainOnRanks(x, cuts, options);
    EXPECT_TRUE(distributed.words == alone.words);
    EXPECT_EQ(distributed.inertias, alone.inertias);
    EXPECT_EQ(distributed.reseeded, alone.reseeded);
  }
}

// Empty words are re-seeded from the worst-served rows of all ranks (ties: the lower global row):
// with fewer distinct rows than words, k-means++ must draw duplicates, which stay empty.
TEST(DistributedKMeans, ReseedingEmptyWordsTakesTheSameRowsOnAnySplit) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors distinct = randomMatrix(rng, 40, 8, 0.0f, 1.0f);
  Descriptors x(600, 8);
  for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) = distinct.row((i * 7) % 40);
  KMeansOptions options = someOptions(rng, 60);
  const Training alone = trainAlone(x, options);
  int reseeded = 0;
  for (int r : alone.reseeded) reseeded += r;
  const Training distributed = trainOnRanks(x, {0, 150, 151, 420, 600}, options);
  EXPECT_TRUE(distributed.words == alone.words);
  EXPECT_EQ(distributed.reseeded, alone.reseeded);
  EXPECT_GT(reseeded, 0) << "the duplicated rows should leave words empty";
}

TEST(DistributedKMeans, RanksOnDifferentBackendsAgree) {
  BOVW_REQUIRE_OPENCL();
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 1800, 64, -1.0f, 1.0f);
  const KMeansOptions options = someOptions(rng, 30);
  const Training alone = trainAlone(x, options);
  const Training mixed = trainOnRanks(x, {0, 900, 1800}, options, [](int rank) {
    return rank == 0 ? configFor({Backend::OpenMP, KernelVariant::Baseline}) : openclConfig(KernelVariant::Tiled);
  });
  EXPECT_TRUE(mixed.words == alone.words);
  EXPECT_EQ(mixed.inertias, alone.inertias);
}

TEST(DistributedKMeans, BadInputFailsOnEveryRank) {
  BOVW_SEEDED_RNG(rng);
  Descriptors x = randomMatrix(rng, 100, 8);
  x(77, 3) = std::numeric_limits<float>::quiet_NaN();
  KMeansOptions options = someOptions(rng, 5);
  std::mutex mutex;
  std::vector<std::string> messages;
  runOnRanks(3, [&](Communicator& group) {
    try {
      trainVocabulary(part(x, {0, 40, 80, 100}, group.rank()), options, group);
      ADD_FAILURE() << "rank " << group.rank() << " trained on a NaN";
    } catch (const InvalidInput& e) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(e.what());
    }
  });
  ASSERT_EQ(messages.size(), 3u);
  int naming = 0;
  for (const auto& m : messages) naming += m.find("row 77 ") != std::string::npos;
  EXPECT_EQ(naming, 1) << "the rank holding global row 77 names it";

  const Descriptors eight = randomMatrix(rng, 50, 8), nine = randomMatrix(rng, 50, 9);
  options.words = 101;  // more words than the whole sample
  runOnRanks(2, [&](Communicator& group) { EXPECT_THROW(trainVocabulary(eight, options, group), InvalidInput); });
  options.words = 5;
  runOnRanks(2, [&](Communicator& group) {  // widths differ between ranks
    EXPECT_THROW(trainVocabulary(group.rank() ? eight : nine, options, group), InvalidInput);
  });
  options.branching = 2;
  runOnRanks(2, [&](Communicator& group) { EXPECT_THROW(trainVocabulary(eight, options, group), InvalidInput); });
}

}  // namespace
}  // namespace bovw::test
