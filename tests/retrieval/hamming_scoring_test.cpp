// Hamming-embedding scoring (Scoring::Hamming): a database's ranking against a brute-force float64
// recomputation of the definition over every pair of features, its reduction to the index's cosine
// when all signatures agree, its text form, and every refusal (no keypoints, no signatures, an index
// alone, a histogram query, a shard without keypoints), and shards ranking as the whole database.
#include "support/hamming_collection.hpp"
#include "support/retrieval_test_support.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_search.hpp>
#include <bovw/scoring.hpp>
#include <bovw/sharded_database.hpp>

#include <bitset>
#include <cmath>
#include <map>
#include <random>

namespace bovw::test {
namespace {

double termWeight(TermWeighting term, double count) {
  return term == TermWeighting::Sqrt ? std::sqrt(count) : term == TermWeighting::Log ? 1 + std::log(count) : count;
}

// The definition (scoring.hpp, hamming_scorer.hpp) straight from the features: every pair of a word,
// each feature's matches counted again for every pair, the smoothed idf from the images' words, norms
// from the counts.
double referenceScore(const ImageWords& query, const ImageWords& image, const std::vector<ImageWords>& all,
                      const ScoringOptions& options) {
  const auto counts = [](const ImageWords& x) {
    std::map<int, double> c;
    for (int w : x.words) ++c[w];
    return c;
  };
  const auto idf = [&](int w) {
    double n = 0;
    for (const ImageWords& x : all) n += counts(x).count(w) ? 1 : 0;
    return std::log((1.0 + static_cast<double>(all.size())) / (1.0 + n)) + 1.0;
  };
  const auto norm = [&](const ImageWords& x) {
    double sum = 0;
    for (const auto& [w, c] : counts(x)) sum += std::pow(termWeight(options.term, c) * idf(w), 2);
    return std::sqrt(sum);
  };
  const auto cq = counts(query), cd = counts(image);
  const auto distance = [&](std::size_t a, std::size_t b) {
    return static_cast<int>(std::bitset<64>(query.signatures[a] ^ image.signatures[b]).count());
  };
  const auto matches = [&](std::size_t a, std::size_t b) {
    return query.words[a] == image.words[b] && distance(a, b) <= options.hamming_threshold;
  };
  double matched = 0;
  for (std::size_t a = 0; a < query.words.size(); ++a)
    for (std::size_t b = 0; b < image.words.size(); ++b) {
      if (!matches(a, b)) continue;
      double of_a = 0, of_b = 0;  // the matches of each of the two features
      for (std::size_t y = 0; y < image.words.size(); ++y) of_a += matches(a, y) ? 1 : 0;
      for (std::size_t x = 0; x < query.words.size(); ++x) of_b += matches(x, b) ? 1 : 0;
      const int w = query.words[a], h = distance(a, b);
      matched += idf(w) * idf(w) * termWeight(options.term, cq.at(w)) / std::sqrt(cq.at(w)) *
                 termWeight(options.term, cd.at(w)) / std::sqrt(cd.at(w)) * std::exp(-h * h / 64.0) /
                 std::sqrt(of_a * of_b);
    }
  return matched / (norm(query) * norm(image));
}

TEST(HammingScoring, RanksAsTheDefinitionComputedOverEveryPair) {
  BOVW_SEEDED_RNG(rng);
  for (int round = 0; round < 4; ++round) {
    const Collection c = randomCollection(rng, 4 + static_cast<int>(rng() % 20), 12);
    const ImageDatabase database = databaseOf(c);
    for (const int threshold : {0, 8, 16, 24, 64})
      for (const TermWeighting term : {TermWeighting::Count, TermWeighting::Sqrt, TermWeighting::Log}) {
        ScoringOptions options{Scoring::Hamming, term, 1.0, threshold};
        SCOPED_TRACE(toString(options));
        std::vector<std::pair<double, std::size_t>> expected;  // (score, image), best first
        for (std::size_t n = 0; n < c.images.size(); ++n) {
          const double s = referenceScore(c.query, c.images[n], c.images, options);
          if (s > 0) expected.emplace_back(s, n);
        }
        std::sort(expected.begin(), expected.end(),
                  [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        const auto ranking = database.query(c.query, 100, options);
        ASSERT_EQ(ranking.size(), expected.size());
        for (std::size_t r = 0; r < ranking.size(); ++r) {
          EXPECT_NEAR(ranking[r].score, expected[r].first, 1e-12 * expected[r].first) << "rank " << r;
          // Ties within rounding may swap: the name must at least score the same.
          if (ranking[r].name != "image" + std::to_string(expected[r].second)) {
            const auto n = static_cast<std::size_t>(std::stoul(ranking[r].name.substr(5)));
            EXPECT_NEAR(referenceScore(c.query, c.images[n], c.images, options), expected[r].first, 1e-12);
          }
        }
        // top_k keeps the best.
        const auto top3 = database.query(c.query, 3, options);
        ASSERT_EQ(top3.size(), std::min<std::size_t>(3, ranking.size()));
        for (std::size_t r = 0; r < top3.size(); ++r) EXPECT_EQ(top3[r].name, ranking[r].name);
      }
  }
}

TEST(HammingScoring, IsTheIndexCosineWhenEverySignatureAgrees) {
  BOVW_SEEDED_RNG(rng);
  Collection c = randomCollection(rng, 9, 15);
  for (ImageWords& image : c.images) std::fill(image.signatures.begin(), image.signatures.end(), 0x5a5aull);
  std::fill(c.query.signatures.begin(), c.query.signatures.end(), 0x5a5aull);
  const ImageDatabase database = databaseOf(c);
  for (const TermWeighting term : {TermWeighting::Count, TermWeighting::Log}) {
    const auto hamming = database.query(c.query, 100, ScoringOptions{Scoring::Hamming, term, 1.0, 0});
    const auto cosine = database.query(c.query, 100, ScoringOptions{Scoring::Cosine, term, 1.0});
    ASSERT_EQ(hamming.size(), cosine.size());
    ASSERT_FALSE(cosine.empty());
    for (std::size_t r = 0; r < cosine.size(); ++r) {
      EXPECT_EQ(hamming[r].id, cosine[r].id);
      EXPECT_NEAR(hamming[r].score, cosine[r].score, 1e-12);
    }
  }
}

TEST(HammingScoring, SignaturesThatDisagreeTakeAwayAWordsMatch) {
  // Two images hold the query's words, one word per feature; one with its signatures, one with every
  // bit flipped (distance 64).
  BOVW_SEEDED_RNG(rng);
  Collection c = randomCollection(rng, 60, 0);
  for (std::size_t i = 0; i < c.query.words.size(); ++i) c.query.words[i] = static_cast<std::int32_t>(i);
  ImageWords same = c.query, flipped = c.query;
  for (std::uint64_t& s : flipped.signatures) s = ~s;
  c.images = {flipped, same};
  const ImageDatabase database = databaseOf(c);
  const auto ranking = database.query(c.query, 10, ScoringOptions{Scoring::Hamming, TermWeighting::Count, 1.0, 24});
  ASSERT_EQ(ranking.size(), 1u);  // the flipped copy shares words but no feature
  EXPECT_EQ(ranking[0].name, "image1");
  // By words alone the two are equal.
  const auto words = database.query(c.query, 10, ScoringOptions{Scoring::Cosine});
  ASSERT_EQ(words.size(), 2u);
  EXPECT_DOUBLE_EQ(words[0].score, words[1].score);
}

// The signatures filed by word follow every add, remove and replacement, and are rebuilt on load:
// after any sequence of them the database ranks as one built afresh from the final images.
TEST(HammingScoring, AfterAddsAndRemovesRanksAsADatabaseBuiltAfresh) {
  BOVW_SEEDED_RNG(rng);
  const Collection c = randomCollection(rng, 12, 40);
  const Collection others = randomCollection(rng, 12, 10);  // same words, other features
  ImageDatabase changed(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  std::map<std::string, const ImageWords*> final_set;
  for (std::size_t n = 0; n < c.images.size(); ++n) {
    changed.add("image" + std::to_string(n), c.images[n]);
    final_set["image" + std::to_string(n)] = &c.images[n];
  }
  for (std::size_t n = 0; n < c.images.size(); n += 3) {  // every third image removed, some replaced
    changed.remove("image" + std::to_string(n));
    final_set.erase("image" + std::to_string(n));
    if (n % 2 == 0) continue;
    changed.add("image" + std::to_string(n), others.images[n % others.images.size()]);
    final_set["image" + std::to_string(n)] = &others.images[n % others.images.size()];
  }
  ImageDatabase fresh(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (const auto& [name, image] : final_set) fresh.add(name, *image);
  TempDir dir;
  changed.save(dir.file("changed.bovwdb"));
  const ImageDatabase loaded = ImageDatabase::load(dir.file("changed.bovwdb"));
  for (const ScoringOptions& options : {parseScoringOptions("hamming20+log"), parseScoringOptions("hamming8")}) {
    SCOPED_TRACE(toString(options));
    const auto expected = fresh.query(c.query, 100, options);
    ASSERT_FALSE(expected.empty());
    for (const ImageDatabase* database : {static_cast<const ImageDatabase*>(&changed), &loaded}) {
      const auto ranking = database->query(c.query, 100, options);
      ASSERT_EQ(ranking.size(), expected.size());
      std::map<std::string, double> scores;
      for (const SearchResult& r : ranking) scores[r.name] = r.score;
      for (const SearchResult& r : expected) EXPECT_NEAR(scores[r.name], r.score, 1e-12 * r.score) << r.name;
    }
  }
}

TEST(HammingScoring, TextFormsRoundTripAndBadOnesAreRefused) {
  EXPECT_EQ(parseScoringOptions("hamming"), (ScoringOptions{Scoring::Hamming, TermWeighting::Count, 1.0,
                                                            ScoringOptions::kDefaultHammingThreshold}));
  EXPECT_EQ(toString(parseScoringOptions("hamming")),
            "hamming" + std::to_string(ScoringOptions::kDefaultHammingThreshold));
  for (const char* text : {"hamming0", "hamming64", "hamming16+sqrt", "hamming20+log"})
    EXPECT_EQ(toString(parseScoringOptions(text)), text);
  EXPECT_EQ(parseScoringOptions("hamming16+sqrt"), (ScoringOptions{Scoring::Hamming, TermWeighting::Sqrt, 1.0, 16}));
  // The threshold belongs to Hamming embedding only.
  EXPECT_EQ((ScoringOptions{Scoring::Cosine, TermWeighting::Count, 1.0, 3}), ScoringOptions{Scoring::Cosine});
  EXPECT_NE((ScoringOptions{Scoring::Hamming, TermWeighting::Count, 1.0, 3}), (ScoringOptions{Scoring::Hamming}));
  for (const char* text : {"hamming65", "hamming-1", "hamming24+power0.5", "hammingx", "hamming24x", "hamming+24",
                           "hamming24+sqrt+log", "cosine24"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW(parseScoringOptions(text), InvalidInput);
  }
  try {
    parseScoringOptions("hamming65");
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "hamming65") && contains(e.what(), "[0, 64]")) << e.what();
  }
  EXPECT_THROW(checkScoringOptions(ScoringOptions{Scoring::Hamming, TermWeighting::Count, 1.0, 65}), InvalidInput);
}

TEST(HammingScoring, IsRefusedWhereFeaturesOrKeypointsAreMissing) {
  BOVW_SEEDED_RNG(rng);
  const Collection c = randomCollection(rng, 8, 5);
  const ScoringOptions hamming{Scoring::Hamming};
  const ImageDatabase database = databaseOf(c);
  // An index alone has no signatures.
  const auto histogram = histogramOf(c.query, c.vocabulary.size(), "the query");
  EXPECT_THROW(database.index().query(histogram, 5, hamming), InvalidInput);
  // A query without signatures.
  ImageWords unsigned_query = c.query;
  unsigned_query.signatures.clear();
  EXPECT_THROW(database.query(unsigned_query, 5, hamming), InvalidInput);
  ImageWords outside = c.query;
  outside.words[0] = c.vocabulary.size();
  EXPECT_THROW(database.query(outside, 5, hamming), InvalidInput);
  EXPECT_THROW(database.query(c.query, 0, hamming), InvalidInput);
  // A database without keypoints.
  ImageDatabase plain(c.vocabulary, FeatureSpec("surf"));
  for (std::size_t n = 0; n < c.images.size(); ++n) plain.add("image" + std::to_string(n), c.images[n]);
  try {
    plain.query(c.query, 5, hamming);
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "stores no keypoints")) << e.what();
  }
  // Through the front door: the same ranking, and refusals for a histogram query and for shards.
  TempDir dir;
  database.save(dir.file("db.bovwdb"));
  const ImageSearch search = ImageSearch::open(dir.file("db.bovwdb"));
  SearchOptions options;
  options.scoring = hamming;
  options.top = 5;
  const auto hits = search.search(c.query, options);
  const auto direct = database.query(c.query, 5, hamming);
  ASSERT_EQ(hits.size(), direct.size());
  for (std::size_t r = 0; r < hits.size(); ++r) {
    EXPECT_EQ(hits[r].name, direct[r].name);
    EXPECT_DOUBLE_EQ(hits[r].score, direct[r].score);
  }
  EXPECT_THROW(search.search(HistogramRef(histogram), options), InvalidInput);
}

TEST(HammingScoring, ShardsRankAsTheWholeDatabase) {
  // Two shards with the images split in two runs: every shard scored with the global idf gives the
  // whole database's scores, merged by score then shard then id (its order).
  BOVW_SEEDED_RNG(rng);
  const Collection c = randomCollection(rng, 10, 14);
  const ImageDatabase whole = databaseOf(c);
  TempDir dir;
  std::vector<ImageDatabase> shards;
  for (std::size_t part = 0; part < 2; ++part) {
    shards.emplace_back(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
    for (std::size_t n = part * 7; n < part * 7 + 7; ++n) shards.back().add("image" + std::to_string(n), c.images[n]);
    shards.back().save(dir.file("shard-" + std::to_string(part) + ".bovwdb"));
  }
  const std::string manifest = dir.file("db.bovwshards");
  writeFileAtomically(manifest, [&](std::ostream& out) {
    ShardedDatabase::manifestFor(shards.front(), {"shard-0.bovwdb", "shard-1.bovwdb"}).write(out);
  });
  SearchOptions options;
  options.scoring = ScoringOptions{Scoring::Hamming, TermWeighting::Sqrt, 1.0, 20};
  options.top = 6;
  const auto hits = ImageSearch::open(manifest).search(c.query, options);
  const auto expected = whole.query(c.query, 6, *options.scoring);
  ASSERT_EQ(hits.size(), expected.size());
  for (std::size_t r = 0; r < hits.size(); ++r) {
    EXPECT_EQ(hits[r].name, expected[r].name);
    EXPECT_NEAR(hits[r].score, expected[r].score, 1e-12);
  }
  // A shard without keypoints cannot take part.
  ImageDatabase plain(c.vocabulary, FeatureSpec("surf"));
  plain.add("image0", c.images[0]);
  plain.save(dir.file("shard-1.bovwdb"));
  try {
    ImageSearch::open(manifest).search(c.query, options);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "keypoints")) << e.what();
  }
}

}  // namespace
}  // namespace bovw::test
