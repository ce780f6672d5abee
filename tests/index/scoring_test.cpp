// Index scores against the dense brute-force TF-IDF reference (both scorings, top-k order), and
// the cases the weighting must get right: one image, empty histograms, idf after add/remove, ties.
#include "index/index_test_support.hpp"

#include <bovw/descriptors.hpp>
#include <bovw/error.hpp>

#include <cmath>
#include <cstring>
#include <numeric>

#include <omp.h>

namespace bovw::test {
namespace {

constexpr Scoring kScorings[] = {Scoring::Cosine, Scoring::Intersection};

VocabularySignature signature(int words) { return {words, 64, DescriptorType::parse("surf64"), 0}; }

// A random index of `count` images (a few of them empty) of 1 to `descriptors` descriptors each
// (3K by default) plus its reference copy.
struct RandomIndex {
  RandomIndex(std::mt19937_64& rng, int words, int count, int descriptors = 0)
      : index(signature(words)), descriptors(descriptors > 0 ? descriptors : 3 * words) {
    std::uniform_int_distribution<int> size(1, this->descriptors);
    for (int i = 0; i < count; ++i) {
      Counts counts = i % 17 == 5 ? Counts(static_cast<std::size_t>(words), 0) : randomCounts(rng, words, size(rng));
      add("image-" + std::to_string(i), counts);
    }
  }
  ImageId add(const std::string& name, const Counts& counts) {
    const ImageId id = index.add(name, view(counts));
    images[id] = counts;
    names[id] = name;
    return id;
  }
  void remove(ImageId id) {
    index.remove(id);
    images.erase(id);
    names.erase(id);
  }
  void expectMatchesBruteForce(std::mt19937_64& rng, const std::string& when) {
    SCOPED_TRACE(when);
    const int words = index.vocabulary().words;
    std::vector<Counts> queries;
    for (const auto& [id, counts] : images) {  // indexed images as queries
      if (queries.size() >= 8) break;
      queries.push_back(counts);
    }
    std::uniform_int_distribution<int> size(1, std::max(1, 2 * descriptors / 3));
    for (int i = 0; i < 8; ++i) queries.push_back(randomCounts(rng, words, size(rng)));
    int swaps = 0;
    for (std::size_t qi = 0; qi < queries.size(); ++qi) {
      for (Scoring scoring : kScorings) {
        const auto expected = bruteForce(images, queries[qi], scoring);
        for (std::size_t top_k : {std::size_t{1}, std::size_t{10}, images.size() + 5}) {
          SCOPED_TRACE("query " + std::to_string(qi) + ", " + std::string(toString(scoring)) + ", top " +
                       std::to_string(top_k));
          swaps += expectSameRanking(index.query(view(queries[qi]), top_k, scoring), expected, top_k, names);
        }
      }
    }
    testing::Test::RecordProperty("near_tie_swaps", swaps);
  }

  InvertedIndex index;
  int descriptors;
  std::map<ImageId, Counts> images;
  std::map<ImageId, std::string> names;
};

TEST(IndexScoring, MatchesDenseTfIdfReference) {
  BOVW_SEEDED_RNG(rng);
  for (int words : {1, 7, 93, 500}) {
    SCOPED_TRACE("K = " + std::to_string(words));
    RandomIndex r(rng, words, 150);
    r.expectMatchesBruteForce(rng, "after adds");
  }
}

// Few descriptors over many words: most queries' lists hold fewer postings than an eighth of the
// images, the queries that list the images they touch; those with the common words do not.
TEST(IndexScoring, SparseImagesMatchTheReference) {
  BOVW_SEEDED_RNG(rng);
  RandomIndex r(rng, 4000, 300, 6);
  r.expectMatchesBruteForce(rng, "after adds");
  for (ImageId id = 1; id < 300; id += 4) r.remove(id);
  r.expectMatchesBruteForce(rng, "after removing every fourth image");
}

// More images than one block of the exhaustive query (16,384): the blocks' sums are the whole lists'.
TEST(IndexScoring, IndexesOfSeveralImageBlocksMatchTheReference) {
  BOVW_SEEDED_RNG(rng);
  RandomIndex r(rng, 60, 17000, 8);
  for (ImageId id = 16380; id < 16390; ++id) r.remove(id);  // around the first block's end
  r.expectMatchesBruteForce(rng, "17,000 images");
}

// The exhaustive query splits the images into ranges over OpenMP's threads (one per two blocks at most):
// whatever the number of threads, and wherever the ranges end (inside blocks, at removed ids), the
// same ids and the same score bits as one thread, and the brute-force reference's ranking.
TEST(IndexScoring, QueriesSplitOverThreadsEqualOneThreadBitForBit) {
  BOVW_SEEDED_RNG(rng);
  RandomIndex r(rng, 60, 5 * 16384 + 77, 24);  // six blocks, the last of 77 images: up to 3 threads
  for (ImageId id = 32760; id < 32780; ++id) r.remove(id);  // around the second block's end
  for (ImageId id = 49180; id < 49200; ++id) r.remove(id);  // around a third of the images
  std::vector<Counts> queries;
  for (ImageId id : {ImageId{0}, ImageId{81996}}) queries.push_back(r.images.at(id));
  for (int i = 0; i < 2; ++i) queries.push_back(randomCounts(rng, 60, 1 + i * 9));
  queries.push_back(Counts(60, 0));
  const int threads = omp_get_max_threads();
  for (std::size_t qi = 0; qi < queries.size(); ++qi)
    for (Scoring scoring : kScorings) {
      SCOPED_TRACE("query " + std::to_string(qi) + ", " + std::string(toString(scoring)));
      omp_set_num_threads(1);
      const auto one = r.index.query(view(queries[qi]), 25, scoring);
      if (qi % 2 == 0) expectSameRanking(one, bruteForce(r.images, queries[qi], scoring), 25, r.names);
      for (int t : {2, 3, 4, 6, 7}) {
        omp_set_num_threads(t);
        const auto split = r.index.query(view(queries[qi]), 25, scoring);
        ASSERT_EQ(split.size(), one.size()) << t << " threads";
        for (std::size_t k = 0; k < one.size(); ++k) {
          EXPECT_EQ(split[k].id, one[k].id) << t << " threads, result " << k;
          EXPECT_EQ(std::memcmp(&split[k].score, &one[k].score, sizeof(double)), 0)
              << t << " threads, result " << k << ": " << split[k].score << " against " << one[k].score;
        }
      }
    }
  omp_set_num_threads(threads);
}

TEST(IndexScoring, MatchesReferenceAfterRemovalsAndReAdds) {
  BOVW_SEEDED_RNG(rng);
  RandomIndex r(rng, 60, 120);
  for (ImageId id = 0; id < 120; id += 3) r.remove(id);
  r.expectMatchesBruteForce(rng, "after removing every third image");
  for (int i = 0; i < 30; ++i) r.add("late-" + std::to_string(i), randomCounts(rng, 60, 40));
  r.expectMatchesBruteForce(rng, "after adding more");
}

TEST(IndexScoring, SingleImageIsWellDefinedAndFindsItself) {
  InvertedIndex index(signature(5));
  const Counts only{3, 0, 1, 0, 0};
  index.add("only", view(only));
  for (Scoring scoring : kScorings) {
    SCOPED_TRACE(std::string(toString(scoring)));
    auto results = index.query(view(only), 10, scoring);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].name, "only");
    EXPECT_NEAR(results[0].score, 1.0, 1e-12);

    // Shares word 2 only; word 1 is in no indexed image (idf = ln 2 + 1, still finite).
    const Counts other{0, 4, 1, 0, 0};
    results = index.query(view(other), 10, scoring);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_TRUE(std::isfinite(results[0].score));
    EXPECT_GT(results[0].score, 0.0);
    EXPECT_LT(results[0].score, 1.0);
    const auto expected = bruteForce({{0, only}}, other, scoring);
    ASSERT_EQ(expected.size(), 1u);
    EXPECT_NEAR(results[0].score, expected[0].score, 1e-12);
  }
  // With N = 1 every word of the image has idf = ln(2/2) + 1 = 1: cosine of the raw counts.
  const Counts half{3, 0, 0, 0, 0};
  EXPECT_NEAR(index.query(view(half), 1, Scoring::Cosine)[0].score, 3.0 / std::sqrt(10.0), 1e-12);
}

TEST(IndexScoring, EmptyHistogramsScoreZeroAndNeverNaN) {
  InvertedIndex index(signature(4));
  const Counts empty{0, 0, 0, 0};
  const Counts some{1, 2, 0, 0};
  const ImageId empty_id = index.add("empty", view(empty));
  for (Scoring scoring : kScorings) {
    // Only an empty image indexed: nothing matches, nothing divides by zero.
    EXPECT_TRUE(index.query(view(some), 5, scoring).empty());
    EXPECT_TRUE(index.query(view(empty), 5, scoring).empty());
  }
  const ImageId some_id = index.add("some", view(some));
  for (Scoring scoring : kScorings) {
    const auto results = index.query(view(some), 5, scoring);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].id, some_id);
    EXPECT_NEAR(results[0].score, 1.0, 1e-12);
    EXPECT_TRUE(index.query(view(empty), 5, scoring).empty());  // empty query: score 0 everywhere
  }
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.name(empty_id), "empty");
}

// Constructed case with idf by hand: A = {w0}, B = {w0, w1}; the query {w1} matches B only.
TEST(IndexScoring, IdfFollowsAddAndRemove) {
  InvertedIndex index(signature(2));
  const Counts a{1, 0}, b{1, 1}, q{0, 1};
  const ImageId a_id = index.add("A", view(a));
  index.add("B", view(b));
  // N = 2, n_1 = 1: idf_1 = ln(3/2) + 1, idf_0 = ln(3/3) + 1 = 1. B = (1, idf_1) / norm.
  const double idf1 = std::log(1.5) + 1.0;
  auto results = index.query(view(q), 5, Scoring::Cosine);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].name, "B");
  EXPECT_NEAR(results[0].score, idf1 / std::sqrt(1.0 + idf1 * idf1), 1e-12);
  // Intersection: q = (0, 1), B = (1, idf_1) / (1 + idf_1).
  EXPECT_NEAR(index.query(view(q), 5, Scoring::Intersection)[0].score, idf1 / (1.0 + idf1), 1e-12);

  index.remove(a_id);  // N = 1: both idf are 1, B = (1, 1) / sqrt 2
  results = index.query(view(q), 5, Scoring::Cosine);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NEAR(results[0].score, 1.0 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(index.query(view(q), 5, Scoring::Intersection)[0].score, 0.5, 1e-12);

  index.add("A again", view(a));  // back to N = 2
  EXPECT_NEAR(index.query(view(q), 5, Scoring::Cosine)[0].score, idf1 / std::sqrt(1.0 + idf1 * idf1), 1e-12);
}

// Identical histograms get bit-identical scores; the lower id comes first, and top_k cuts there.
TEST(IndexScoring, EqualScoresRankByIdAscending) {
  InvertedIndex index(signature(3));
  const Counts same{2, 1, 0}, other{0, 1, 5};
  index.add("z", view(other));
  const ImageId first = index.add("y", view(same));
  const ImageId second = index.add("x", view(same));
  const ImageId third = index.add("w", view(same));
  for (Scoring scoring : kScorings) {
    const auto results = index.query(view(same), 2, scoring);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].id, first);
    EXPECT_EQ(results[1].id, second);
    EXPECT_EQ(results[0].score, results[1].score);
    const auto all = index.query(view(same), 10, scoring);
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[2].id, third);
    EXPECT_LT(all[3].score, all[2].score);
  }
}

// UKBench convention: a query image that is itself indexed is found, at rank 1, score 1.
TEST(IndexScoring, IndexedQueryImageRanksFirst) {
  BOVW_SEEDED_RNG(rng);
  RandomIndex r(rng, 200, 300);
  for (const auto& [id, counts] : r.images) {
    if (std::all_of(counts.begin(), counts.end(), [](std::int32_t c) { return c == 0; })) continue;
    for (Scoring scoring : kScorings) {
      const auto results = r.index.query(view(counts), 4, scoring);
      ASSERT_FALSE(results.empty());
      EXPECT_NEAR(results[0].score, 1.0, 1e-12);
      // Only an image with a proportional histogram (same normalised vector) may tie with the
      // query, and it then ranks first only by its lower id.
      if (results[0].id != id) {
        const Counts& top = r.images.at(results[0].id);
        const double top_total = std::accumulate(top.begin(), top.end(), 0.0);
        const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
        for (std::size_t w = 0; w < counts.size(); ++w)
          ASSERT_EQ(top[w] * total, counts[w] * top_total)
              << toString(scoring) << ": " << results[0].name << " ranks above " << r.names[id];
        EXPECT_LT(results[0].id, id);
        ASSERT_GE(results.size(), 2u);
      }
      bool found = false;
      for (const auto& result : results) found = found || result.id == id;
      EXPECT_TRUE(found) << r.names[id] << " is not in its own top 4";
    }
  }
}

// A row of a Histograms matrix binds to HistogramRef without a copy; a column-major one is copied.
TEST(IndexScoring, AcceptsHistogramsRowsAndEigenVectors) {
  Histograms h(2, 3);
  h << 1, 0, 2, 0, 3, 0;
  InvertedIndex index(signature(3));
  index.add("row0", h.row(0));
  index.add("row1", h.row(1));
  Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic> column_major = h;
  Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> vector = h.row(1);
  EXPECT_EQ(index.query(column_major.row(0), 1)[0].name, "row0");
  EXPECT_EQ(index.query(vector, 1)[0].name, "row1");
}

}  // namespace
}  // namespace bovw::test
