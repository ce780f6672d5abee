// TfIdfModel: the models of an index's parts add up to the model of the whole (counted here from
// the histograms, not by the index), and an index scored with the global model of a split ranks its
// images exactly as the unsharded index does, for every scoring option set.
#include "index/index_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/tfidf_model.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <thread>
#include <vector>

namespace bovw::test {
namespace {

// Runs `f`, which must throw E with a message holding every one of `parts`.
template <typename E, typename F>
void expectThrowsMentioning(F f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

VocabularySignature signature(int words) { return {words, 64, DescriptorType::parse("surf64"), 0}; }

// N and n_w counted from the live images' histograms.
TfIdfModel countedModel(const std::vector<const Counts*>& images, int words) {
  std::vector<std::uint64_t> frequencies(static_cast<std::size_t>(words), 0);
  for (const Counts* counts : images)
    for (std::size_t w = 0; w < frequencies.size(); ++w) frequencies[w] += (*counts)[w] > 0 ? 1 : 0;
  return TfIdfModel(images.size(), frequencies);
}

// `images` split into `parts` contiguous runs of random lengths (some possibly empty), each indexed
// on its own; every fourth image of a part is removed again after the next is added.
struct Split {
  std::vector<InvertedIndex> parts;
  std::vector<std::vector<std::size_t>> live;  // by part: indices into `images` still indexed
};

Split split(const std::vector<Counts>& images, std::size_t parts, int words, std::mt19937_64& rng, bool removals) {
  std::vector<std::size_t> cuts{0, images.size()};
  std::uniform_int_distribution<std::size_t> cut(0, images.size());
  for (std::size_t p = 1; p < parts; ++p) cuts.push_back(cut(rng));
  std::sort(cuts.begin(), cuts.end());
  Split result;
  for (std::size_t p = 0; p < parts; ++p) {
    result.parts.emplace_back(signature(words));
    result.live.emplace_back();
    for (std::size_t i = cuts[p]; i < cuts[p + 1]; ++i) {
      result.parts.back().add(imageName(i), view(images[i]));
      result.live.back().push_back(i);
      if (removals && i % 4 == 3 && i > cuts[p]) {
        result.parts.back().remove(imageName(i - 1));
        result.live.back().erase(result.live.back().end() - 2);
      }
    }
  }
  return result;
}

std::vector<Counts> randomImages(std::mt19937_64& rng, std::size_t count, int words) {
  std::uniform_int_distribution<int> descriptors(0, 3 * words);  // 0: an image with no words
  std::vector<Counts> images;
  for (std::size_t i = 0; i < count; ++i) images.push_back(randomCounts(rng, words, descriptors(rng)));
  return images;
}

TEST(TfIdfModel, MergedPartsEqualTheModelOfTheUnion) {
  std::mt19937_64 rng(seedForCurrentTest());
  for (int round = 0; round < 12; ++round) {
    const int words = 1 + static_cast<int>(rng() % 97);
    const std::size_t count = rng() % 60;  // 0: every part empty
    const std::size_t parts = 1 + rng() % 7;
    SCOPED_TRACE("K = " + std::to_string(words) + ", " + std::to_string(count) + " images, " +
                 std::to_string(parts) + " parts");
    const std::vector<Counts> images = randomImages(rng, count, words);
    const Split s = split(images, parts, words, rng, round % 2 == 1);

    std::vector<const Counts*> live;
    TfIdfModel merged(words);
    for (std::size_t p = 0; p < parts; ++p) {
      std::vector<const Counts*> part;
      for (std::size_t i : s.live[p]) part.push_back(&images[i]);
      EXPECT_EQ(s.parts[p].model(), countedModel(part, words)) << "part " << p;
      merged += s.parts[p].model();
      live.insert(live.end(), part.begin(), part.end());
    }
    const TfIdfModel expected = countedModel(live, words);
    EXPECT_EQ(merged, expected);
    // Any order: integer sums.
    TfIdfModel backwards(words);
    for (std::size_t p = parts; p-- > 0;) backwards = backwards + s.parts[p].model();
    EXPECT_EQ(backwards, expected);
    // The counts array round-trips, and its elementwise sum is the merge (what MPI_Allreduce does).
    EXPECT_EQ(TfIdfModel::fromCounts(merged.counts()), merged);
    std::vector<std::uint64_t> summed(static_cast<std::size_t>(words) + 1, 0);
    for (const auto& part : s.parts) {
      const auto c = part.model().counts();
      for (std::size_t i = 0; i < c.size(); ++i) summed[i] += c[i];
    }
    EXPECT_EQ(summed, expected.counts());
    for (std::size_t w = 0; w < static_cast<std::size_t>(words); ++w)
      EXPECT_DOUBLE_EQ(merged.idf(w), std::log((1.0 + static_cast<double>(live.size())) /
                                               (1.0 + static_cast<double>(expected.documentFrequency(w)))) + 1.0);
  }
}

TEST(TfIdfModel, CopiesShareAVersionAndMergesMakeANewOne) {
  TfIdfModel a(3, {1, 0, 3});
  const TfIdfModel copy = a;
  EXPECT_EQ(copy.version(), a.version());
  EXPECT_NE(TfIdfModel(3, {1, 0, 3}).version(), a.version());
  EXPECT_EQ(TfIdfModel(3, {1, 0, 3}), a);
  a += TfIdfModel(3);
  EXPECT_NE(copy.version(), a.version());
  EXPECT_EQ(copy, a);  // adding an empty model changes nothing but the version
}

TEST(TfIdfModel, BadInputIsNamed) {
  EXPECT_THROW(TfIdfModel(0), InvalidInput);
  expectThrowsMentioning<InvalidInput>([] { TfIdfModel(2, {1, 3}); }, {"word 1", "3 images", "N = 2"});
  expectThrowsMentioning<InvalidInput>([] { TfIdfModel(2, {}); }, {"no words"});
  expectThrowsMentioning<InvalidInput>([] { TfIdfModel::fromCounts({5}); }, {"1 counts"});
  TfIdfModel a(4);
  expectThrowsMentioning<InvalidInput>([&] { a += TfIdfModel(5); }, {"K = 5", "K = 4"});
  TfIdfModel huge(~std::uint64_t{0}, {0});
  EXPECT_THROW(huge += TfIdfModel(1, {1}), CapacityError);
  EXPECT_EQ(huge.images(), ~std::uint64_t{0});  // unchanged by the failed merge
}

TEST(TfIdfModel, GlobalModelMustFitAndCoverTheIndex) {
  InvertedIndex index(signature(3));
  index.add("a", view(Counts{1, 0, 2}));
  index.add("b", view(Counts{0, 0, 1}));
  const Counts query{1, 1, 1};
  expectThrowsMentioning<InvalidInput>([&] { index.query(view(query), 1, ScoringOptions{}, TfIdfModel(4)); },
                                       {"K = 4", "3"});
  expectThrowsMentioning<InvalidInput>([&] { index.query(view(query), 1, ScoringOptions{}, TfIdfModel(1, {1, 0, 1})); },
                                       {"N = 1", "2 of this index"});
  expectThrowsMentioning<InvalidInput>([&] { index.query(view(query), 1, ScoringOptions{}, TfIdfModel(5, {1, 0, 1})); },
                                       {"word 2", "2 of this index"});
  // A model with more images than the index is the point: other shards' images.
  EXPECT_EQ(index.query(view(query), 2, ScoringOptions{}, TfIdfModel(5, {3, 4, 2})).size(), 2u);
  // Its own model, merged with nothing, gives exactly the plain query.
  const auto own = index.query(view(query), 2, ScoringOptions{}, index.model());
  const auto plain = index.query(view(query), 2, ScoringOptions{});
  ASSERT_EQ(own.size(), plain.size());
  for (std::size_t r = 0; r < own.size(); ++r) {
    EXPECT_EQ(own[r].id, plain[r].id);
    EXPECT_EQ(own[r].score, plain[r].score);
  }
}

// The parts' results with the global model, merged by score then part then id, are the unsharded
// index's results: same images in the same order, scores within 1e-12. With contiguous parts, part
// then id is the unsharded id order, so even exact ties agree.
TEST(TfIdfModel, PartsQueriedWithTheGlobalModelRankAsTheWhole) {
  std::mt19937_64 rng(seedForCurrentTest());
  const std::vector<std::string> forms = {"intersection", "cosine", "cosine+sqrt", "intersection+log",
                                          "cosine+power0.5", "intersection+sqrt+power0.3"};
  for (int round = 0; round < 8; ++round) {
    const int words = 3 + static_cast<int>(rng() % 211);
    const std::size_t count = 1 + rng() % 80;
    const std::size_t parts = 1 + rng() % 5;
    SCOPED_TRACE("K = " + std::to_string(words) + ", " + std::to_string(count) + " images, " +
                 std::to_string(parts) + " parts");
    const std::vector<Counts> images = randomImages(rng, count, words);
    const Split s = split(images, parts, words, rng, false);
    InvertedIndex whole(signature(words));
    for (std::size_t i = 0; i < images.size(); ++i) whole.add(imageName(i), view(images[i]));
    TfIdfModel global(words);
    for (const auto& part : s.parts) global += part.model();
    ASSERT_EQ(global, whole.model());

    for (int q = 0; q < 6; ++q) {
      const Counts query = randomCounts(rng, words, 1 + static_cast<int>(rng() % (2 * words)));
      for (const std::string& form : forms) {
        SCOPED_TRACE(form);
        const ScoringOptions options = parseScoringOptions(form);
        const auto expected = whole.query(view(query), count, options);
        std::vector<SearchResult> merged;  // parts in order, so a stable sort keeps part-then-id order
        for (const auto& part : s.parts) {
          if (part.empty()) continue;
          for (const auto& r : part.query(view(query), count, options, global)) merged.push_back(r);
        }
        std::stable_sort(merged.begin(), merged.end(),
                         [](const SearchResult& a, const SearchResult& b) { return a.score > b.score; });
        ASSERT_EQ(merged.size(), expected.size());
        for (std::size_t r = 0; r < merged.size(); ++r) {
          EXPECT_EQ(merged[r].name, expected[r].name) << "rank " << r + 1;
          EXPECT_NEAR(merged[r].score, expected[r].score, 1e-12) << "rank " << r + 1;
        }
      }
    }
  }
}

// Queries with the index's own model and two global ones, six option sets each (18 pairs: more than
// the weights cache holds, so entries are evicted and recomputed while others read them), from four
// threads at once, give exactly the serial answers.
TEST(TfIdfModel, ConcurrentQueriesWithSeveralModelsMatchSerial) {
  std::mt19937_64 rng(seedForCurrentTest());
  const int words = 61;
  InvertedIndex index(signature(words));
  for (std::size_t i = 0; i < 40; ++i) index.add(imageName(i), view(randomCounts(rng, words, 90)));
  const TfIdfModel own = index.model();
  const std::vector<TfIdfModel> globals = {own + TfIdfModel(17, std::vector<std::uint64_t>(words, 5)),
                                           own + TfIdfModel(300, std::vector<std::uint64_t>(words, 120))};
  const std::vector<std::string> forms = {"intersection", "cosine", "cosine+sqrt", "intersection+log",
                                          "cosine+power0.5", "intersection+sqrt+power0.3"};
  struct Call {
    Counts query;
    ScoringOptions options;
    const TfIdfModel* model;  // null: the index's own
    std::vector<SearchResult> serial;
  };
  std::vector<Call> calls;
  for (int q = 0; q < 3; ++q) {
    const Counts query = randomCounts(rng, words, 50);
    for (const auto& form : forms)
      for (const TfIdfModel* model : {static_cast<const TfIdfModel*>(nullptr), &globals[0], &globals[1]})
        calls.push_back({query, parseScoringOptions(form), model, {}});
  }
  auto ask = [&](const Call& c) {
    return c.model ? index.query(view(c.query), 10, c.options, *c.model) : index.query(view(c.query), 10, c.options);
  };
  for (auto& c : calls) c.serial = ask(c);

  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round)
        for (std::size_t i = 0; i < calls.size(); ++i) {
          const Call& c = calls[(i * 7 + static_cast<std::size_t>(t) * 5) % calls.size()];
          const auto got = ask(c);
          bool same = got.size() == c.serial.size();
          for (std::size_t r = 0; same && r < got.size(); ++r)
            same = got[r].id == c.serial[r].id && got[r].score == c.serial[r].score;
          mismatches[static_cast<std::size_t>(t)] += same ? 0 : 1;
        }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[static_cast<std::size_t>(t)], 0) << "thread " << t;
  // The global models do change the scores (else this test would prove little).
  EXPECT_NE(calls[0].serial.front().score, calls[1].serial.front().score);
}

}  // namespace
}  // namespace bovw::test
