// Scoring options (term weighting, power-law exponent): every option's scores against a dense
// float64 recomputation from the definitions in inverted_index.hpp, the default against the classic
// TF-IDF reference, empty histograms, concurrent queries with many option sets, and the text form.
#include "index/index_editor.hpp"
#include "index/index_test_support.hpp"

#include <bovw/error.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

// Readable option sets in failure messages.
namespace bovw {
inline void PrintTo(const ScoringOptions& options, std::ostream* os) {
  *os << toString(options) << " (alpha " << options.power << ")";
}
}  // namespace bovw

namespace bovw::test {
namespace {

VocabularySignature signature(int words) { return {words, 64, DescriptorType::parse("surf64"), 0}; }

// Every similarity and term weighting, each without and with power-law normalisation (two
// exponents), plus one exponent drawn at random.
std::vector<ScoringOptions> optionSets(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> alpha(0.05, 1.0);
  const double drawn = alpha(rng);
  std::vector<ScoringOptions> sets;
  for (Scoring similarity : {Scoring::Cosine, Scoring::Intersection})
    for (TermWeighting term : {TermWeighting::Count, TermWeighting::Sqrt, TermWeighting::Log})
      for (double power : {1.0, 0.5, 0.3, drawn}) sets.push_back({similarity, term, power});
  return sets;
}

std::string describe(const ScoringOptions& options) {
  return toString(options) + " (alpha " + std::to_string(options.power) + ")";
}

// ------------------------------------------------------------------------------------------------
// The reference: dense vectors of length K in double, straight from the definitions, with tf's
// division by the weighted total and the exponent applied to the whole product (the index folds
// both away).

double termWeight(TermWeighting term, std::int32_t count) {
  if (count == 0) return 0.0;
  switch (term) {
    case TermWeighting::Count: return count;
    case TermWeighting::Sqrt: return std::sqrt(static_cast<double>(count));
    case TermWeighting::Log: return 1.0 + std::log(static_cast<double>(count));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// Every live image's score for `query`, 0 included.
std::map<ImageId, double> denseScores(const std::map<ImageId, Counts>& images, const Counts& query,
                                      const ScoringOptions& options) {
  const std::size_t words = query.size();
  const std::vector<double> idf = smoothedIdf(images, words);
  const bool cosine = options.similarity == Scoring::Cosine;
  auto vectorOf = [&](const Counts& counts) {
    std::vector<double> v(words, 0.0);
    double total = 0;
    for (auto c : counts) total += termWeight(options.term, c);
    if (total == 0) return v;
    double norm = 0;
    for (std::size_t w = 0; w < words; ++w) {
      v[w] = std::pow(termWeight(options.term, counts[w]) / total * idf[w], options.power);
      norm += cosine ? v[w] * v[w] : v[w];
    }
    if (cosine) norm = std::sqrt(norm);
    for (auto& x : v) x /= norm;
    return v;
  };
  const std::vector<double> q = vectorOf(query);
  std::map<ImageId, double> scores;
  for (const auto& [id, counts] : images) {
    const std::vector<double> d = vectorOf(counts);
    double score = 0;
    for (std::size_t w = 0; w < words; ++w) score += cosine ? q[w] * d[w] : std::min(q[w], d[w]);
    scores[id] = score;
  }
  return scores;
}

// Zipf-like counts plus, in some images, one burst: a word seen hundreds of times (a repeated
// structure), which also takes counts past the index's table of term weights.
Counts burstyCounts(std::mt19937_64& rng, int words) {
  std::uniform_int_distribution<int> size(0, 3 * words);
  Counts counts = randomCounts(rng, words, size(rng));
  if (std::bernoulli_distribution(0.3)(rng)) {
    std::uniform_int_distribution<int> word(0, words - 1), burst(100, 2000);
    counts[static_cast<std::size_t>(word(rng))] += burst(rng);
  }
  return counts;
}

// The index's answer with every positive score equals the reference's positive scores, image by
// image, to 1e-12; it is sorted by score descending then id ascending; a top-3 answer is its prefix.
void expectMatchesDense(const InvertedIndex& index, const std::map<ImageId, Counts>& images, const Counts& query,
                        const ScoringOptions& options) {
  SCOPED_TRACE(describe(options));
  const auto got = index.query(view(query), images.size() + 3, options);
  const auto reference = denseScores(images, query, options);
  std::size_t positive = 0;
  for (const auto& [id, score] : reference) positive += score > 0 ? 1 : 0;
  EXPECT_EQ(got.size(), positive);
  for (std::size_t r = 0; r < got.size(); ++r) {
    ASSERT_EQ(reference.count(got[r].id), 1u) << "id " << got[r].id << " is not live";
    EXPECT_NEAR(got[r].score, reference.at(got[r].id), 1e-12) << "id " << got[r].id;
    if (r > 0) {
      EXPECT_TRUE(got[r].score < got[r - 1].score || (got[r].score == got[r - 1].score && got[r].id > got[r - 1].id))
          << "out of order at rank " << r + 1;
    }
  }
  const auto top = index.query(view(query), 3, options);
  ASSERT_EQ(top.size(), std::min<std::size_t>(3, got.size()));
  for (std::size_t r = 0; r < top.size(); ++r) EXPECT_EQ(top[r].id, got[r].id);
}

// A random index of `count` images and its reference copy, queried with indexed and new images.
struct RandomIndex {
  RandomIndex(std::mt19937_64& rng, int words, int count) : index(signature(words)) {
    for (int i = 0; i < count; ++i) add(burstyCounts(rng, words));
  }
  void add(const Counts& counts) {
    const ImageId id = index.add("image-" + std::to_string(next++), view(counts));
    images[id] = counts;
  }
  void remove(ImageId id) {
    index.remove(id);
    images.erase(id);
  }
  void expectEveryOptionMatchesDense(std::mt19937_64& rng, const std::vector<ScoringOptions>& sets) {
    const int words = index.vocabulary().words;
    std::vector<Counts> queries;
    for (const auto& [id, counts] : images) {
      if (queries.size() >= 3) break;
      queries.push_back(counts);
    }
    for (int i = 0; i < 3; ++i) queries.push_back(burstyCounts(rng, words));
    for (std::size_t q = 0; q < queries.size(); ++q) {
      SCOPED_TRACE("query " + std::to_string(q));
      for (const ScoringOptions& options : sets) expectMatchesDense(index, images, queries[q], options);
    }
  }

  InvertedIndex index;
  std::map<ImageId, Counts> images;
  int next = 0;
};

TEST(ScoringOptions, EveryOptionMatchesTheDenseDefinition) {
  BOVW_SEEDED_RNG(rng);
  const auto sets = optionSets(rng);
  for (auto [words, count] : {std::pair{1, 5}, std::pair{13, 1}, std::pair{97, 33}, std::pair{331, 151}}) {
    SCOPED_TRACE("K = " + std::to_string(words) + ", " + std::to_string(count) + " images");
    RandomIndex r(rng, words, count);
    r.expectEveryOptionMatchesDense(rng, sets);
  }
}

// norms(): every image's norm of (f(c_w) idf_w)^alpha over its words, L2 for cosine and L1 for
// intersection, recomputed here; 0 for removed ids and ids never assigned; after removals and adds.
TEST(ScoringOptions, NormsAreThoseOfTheImagesWeightedVectors) {
  BOVW_SEEDED_RNG(rng);
  const auto sets = optionSets(rng);
  RandomIndex r(rng, 41, 37);
  for (ImageId id = 0; id < 37; id += 5) r.remove(id);
  r.add(burstyCounts(rng, 41));
  std::vector<ImageId> ids;
  for (ImageId id = 0; id < r.index.idCount() + 2; ++id) ids.push_back(id);
  const std::vector<double> idf = smoothedIdf(r.images, 41);
  for (const ScoringOptions& options : sets) {
    SCOPED_TRACE(describe(options));
    const std::vector<double> norms = r.index.norms(ids, options);
    ASSERT_EQ(norms.size(), ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      double expected = 0;
      if (r.images.count(ids[i])) {
        for (std::size_t w = 0; w < 41; ++w) {
          const double v = std::pow(termWeight(options.term, r.images.at(ids[i])[w]) * idf[w], options.power);
          expected += options.similarity == Scoring::Cosine ? v * v : v;
        }
        if (options.similarity == Scoring::Cosine) expected = std::sqrt(expected);
      }
      EXPECT_NEAR(norms[i], expected, 1e-12 * expected) << "id " << ids[i];
    }
  }
  EXPECT_THROW(r.index.norms(ids, ScoringOptions{Scoring::Hamming}), InvalidInput);
}

// The norms' pass (with alpha = 1) splits the images into ranges of whole blocks (32,768 images for
// L1, 16,384 for L2) over OpenMP's threads: on any number of threads each image's norm is its
// recomputed one, 0 for removed ids (some at blocks' ends), and the bits are those of one thread.
TEST(ScoringOptions, NormsSplitOverThreadsAreTheImagesNormsBitForBit) {
  BOVW_SEEDED_RNG(rng);
  const int words = 30;
  const int count = 5 * 32768 + 77;
  std::vector<Counts> images;
  for (int i = 0; i < count; ++i) images.push_back(burstyCounts(rng, words));
  const std::vector<ImageId> removed{0, 16383, 32767, 32768, 65535, 98304, 98305, static_cast<ImageId>(count - 1)};
  std::map<ImageId, Counts> live;
  for (int i = 0; i < count; ++i)
    if (std::find(removed.begin(), removed.end(), static_cast<ImageId>(i)) == removed.end()) live[i] = images[i];
  auto indexed = [&] {  // a new index each time: its norms are computed once
    auto index = std::make_unique<InvertedIndex>(signature(words));
    for (int i = 0; i < count; ++i) index->add("image-" + std::to_string(i), view(images[i]));
    for (ImageId id : removed) index->remove(id);
    return index;
  };
  std::vector<ImageId> ids;
  for (ImageId id = 0; id < static_cast<ImageId>(count); ++id) ids.push_back(id);
  const std::vector<double> idf = smoothedIdf(live, words);
  const int threads = omp_get_max_threads();
  for (const Scoring similarity : {Scoring::Intersection, Scoring::Cosine}) {
    const ScoringOptions options{similarity, TermWeighting::Count, 1.0};
    SCOPED_TRACE(describe(options));
    omp_set_num_threads(1);
    const std::vector<double> one = indexed()->norms(ids, options);
    for (const ImageId id : ids) {
      double expected = 0;
      if (live.count(id))
        for (std::size_t w = 0; w < static_cast<std::size_t>(words); ++w) {
          const double v = live.at(id)[w] * idf[w];
          expected += similarity == Scoring::Cosine ? v * v : v;
        }
      if (similarity == Scoring::Cosine) expected = std::sqrt(expected);
      ASSERT_NEAR(one[id], expected, 1e-12 * expected) << "id " << id;
    }
    for (const int t : {2, 3, 5}) {
      omp_set_num_threads(t);
      const std::vector<double> split = indexed()->norms(ids, options);
      for (const ImageId id : ids) ASSERT_EQ(std::memcmp(&split[id], &one[id], sizeof(double)), 0) << t << " threads, id " << id;
    }
  }
  omp_set_num_threads(threads);
}

// norms() with alpha = 1, which writers then keep up to date (what a Hamming search divides by):
// after every add and remove each image's norm is its recomputed one, and at the end the norms are
// those of a fresh index of the same images bit for bit (they do not depend on the order of changes).
TEST(ScoringOptions, NormsFollowEveryChangeAndDoNotDependOnItsOrder) {
  BOVW_SEEDED_RNG(rng);
  const int words = 43;
  for (const Scoring similarity : {Scoring::Intersection, Scoring::Cosine})
    for (const TermWeighting term : {TermWeighting::Count, TermWeighting::Sqrt, TermWeighting::Log}) {
      const ScoringOptions options{similarity, term, 1.0};
      SCOPED_TRACE(describe(options));
      RandomIndex r(rng, words, 9);
      auto all = [&](const InvertedIndex& index) {
        std::vector<ImageId> ids;
        for (ImageId id = 0; id < index.idCount(); ++id) ids.push_back(id);
        return ids;
      };
      r.index.norms(all(r.index), options);  // from here on, writers follow them
      for (int step = 0; step < 40; ++step) {
        if (r.images.size() > 3 && step % 3 == 1) r.remove(std::next(r.images.begin(), step % 4)->first);
        else r.add(burstyCounts(rng, words));
        const std::vector<ImageId> ids = all(r.index);
        const std::vector<double> norms = r.index.norms(ids, options);
        const std::vector<double> idf = smoothedIdf(r.images, words);
        for (std::size_t i = 0; i < ids.size(); ++i) {
          double expected = 0;
          if (r.images.count(ids[i]))
            for (std::size_t w = 0; w < static_cast<std::size_t>(words); ++w) {
              const double v = termWeight(term, r.images.at(ids[i])[w]) * idf[w];
              expected += similarity == Scoring::Cosine ? v * v : v;
            }
          if (similarity == Scoring::Cosine) expected = std::sqrt(expected);
          ASSERT_NEAR(norms[i], expected, 1e-12 * expected) << "step " << step << ", id " << ids[i];
        }
      }
      // The same images indexed afresh under the same ids (the removed ones added and removed again).
      InvertedIndex fresh(r.index.vocabulary());
      for (ImageId id = 0; id < r.index.idCount(); ++id) {
        const auto kept = r.images.find(id);
        fresh.add("copy-" + std::to_string(id), view(kept != r.images.end() ? kept->second : burstyCounts(rng, words)));
        if (kept == r.images.end()) fresh.remove("copy-" + std::to_string(id));
      }
      const std::vector<ImageId> ids = all(r.index);
      const std::vector<double> changed = r.index.norms(ids, options), afresh = fresh.norms(ids, options);
      for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(changed[i], afresh[i]) << "id " << ids[i];
    }
}

// Each option set's cached weights must follow N and the idf through removals and additions.
TEST(ScoringOptions, EveryOptionFollowsRemovalsAndAdditions) {
  BOVW_SEEDED_RNG(rng);
  const auto sets = optionSets(rng);
  RandomIndex r(rng, 53, 71);
  r.expectEveryOptionMatchesDense(rng, sets);
  for (ImageId id = 0; id < 71; id += 4) r.remove(id);
  r.expectEveryOptionMatchesDense(rng, sets);
  for (int i = 0; i < 19; ++i) r.add(burstyCounts(rng, 53));
  r.expectEveryOptionMatchesDense(rng, sets);
}

// The default scoring's norms are kept up to date by every add and remove (not recomputed), the
// others' recomputed: after each of many small changes, queried between them, every score still
// equals the dense definition.
TEST(ScoringOptions, NormsKeptUpToDateFollowEverySmallChange) {
  BOVW_SEEDED_RNG(rng);
  const std::vector<ScoringOptions> sets = {{Scoring::Intersection, TermWeighting::Count, 1.0},
                                            {Scoring::Cosine, TermWeighting::Count, 1.0},
                                            {Scoring::Intersection, TermWeighting::Sqrt, 1.0},
                                            {Scoring::Cosine, TermWeighting::Log, 1.0}};
  const int words = 37;
  RandomIndex r(rng, words, 20);
  for (int step = 0; step < 150; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    if (r.images.size() > 3 && std::bernoulli_distribution(0.45)(rng)) {
      auto it = r.images.begin();
      std::advance(it, std::uniform_int_distribution<std::size_t>(0, r.images.size() - 1)(rng));
      r.remove(it->first);
    } else {
      r.add(burstyCounts(rng, words));
    }
    const Counts query = burstyCounts(rng, words);
    for (const ScoringOptions& options : sets) expectMatchesDense(r.index, r.images, query, options);
  }
}

// Images of few words over many (K = 300, at most 24 descriptors): each change touches few words, so
// the writer prepares the default scoring's norms, model and weights of the state after it before
// changing the lists. After every add, remove (by id and by name) and edit of several images at once,
// every score equals the dense definition; at the end, a fresh index of the same images gives every
// score bit for bit.
TEST(ScoringOptions, NormsPreparedByTheWriterFollowEveryKindOfChange) {
  BOVW_SEEDED_RNG(rng);
  const int words = 300;
  std::uniform_int_distribution<int> descriptors(1, 24);
  RandomIndex r(rng, words, 0);
  for (int i = 0; i < 40; ++i) r.add(randomCounts(rng, words, descriptors(rng)));
  const ScoringOptions options;  // the default
  auto pick = [&] {
    auto it = r.images.begin();
    std::advance(it, std::uniform_int_distribution<std::size_t>(0, r.images.size() - 1)(rng));
    return it->first;
  };
  for (int step = 0; step < 120; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
    if (kind == 0 || r.images.size() < 8) {
      r.add(randomCounts(rng, words, descriptors(rng)));
    } else if (kind == 1) {
      r.remove(pick());
    } else if (kind == 2) {
      const ImageId id = pick();
      r.index.remove(r.index.name(id));
      r.images.erase(id);
    } else {  // two removed (one with its words given, one without) and two added in one change
      index_detail::IndexChange change;
      const ImageId a = pick();
      ImageId b = pick();
      while (b == a) b = pick();
      change.removed = {a, b};
      change.removed_words = {{}, {}};
      for (std::size_t w = 0; w < r.images[a].size(); ++w)
        if (r.images[a][w] > 0) change.removed_words[0].push_back(static_cast<std::uint32_t>(w));
      std::uint64_t id = r.index.idCount() + 1;  // one id left unused, as a store's gaps are
      for (int i = 0; i < 2; ++i, ++id) {
        const Counts counts = randomCounts(rng, words, descriptors(rng));
        index_detail::SparseImage image{static_cast<ImageId>(id), "edited-" + std::to_string(id), {}};
        for (std::size_t w = 0; w < counts.size(); ++w)
          if (counts[w] > 0) image.words.push_back({static_cast<std::uint32_t>(w), counts[w]});
        change.added.push_back(image);
        r.images[static_cast<ImageId>(id)] = counts;
      }
      change.next_id = id;
      index_detail::IndexEditor::apply(r.index, change);
      r.images.erase(a);
      r.images.erase(b);
    }
    expectMatchesDense(r.index, r.images, randomCounts(rng, words, descriptors(rng)), options);
  }
  InvertedIndex fresh(r.index.vocabulary());
  for (const auto& [id, counts] : r.images) fresh.add("copy-" + std::to_string(id), view(counts));
  const Counts query = r.images.begin()->second;
  const auto a = r.index.query(view(query), 1000, options), b = fresh.query(view(query), 1000, options);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].score, b[i].score) << i;
}

// An image added first and its copy added after many changes score the same bits (the kept norms
// do not depend on the order of the updates), so equal scores still rank by id; and a copy of the
// index made afresh gives every score bit for bit.
TEST(ScoringOptions, KeptNormsDoNotDependOnTheHistoryOfChanges) {
  BOVW_SEEDED_RNG(rng);
  const int words = 41;
  RandomIndex r(rng, words, 0);
  // At least one word: an empty image (a bursty draw of size 0) matches nothing, not even its copy.
  Counts first = burstyCounts(rng, words);
  first[std::uniform_int_distribution<std::size_t>(0, words - 1)(rng)] += 1;
  r.add(first);
  const ScoringOptions options;  // the default: its norms are kept up to date
  for (int step = 0; step < 60; ++step) {
    if (step % 3 == 2) r.remove(std::next(r.images.begin())->first);
    else r.add(burstyCounts(rng, words));
    r.index.query(view(first), 1, options);  // the norms follow every change
  }
  r.add(first);
  const auto results = r.index.query(view(first), 2, options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].score, results[1].score);
  EXPECT_LT(results[0].id, results[1].id);
  InvertedIndex fresh(r.index.vocabulary());
  for (const auto& [id, counts] : r.images) fresh.add("copy-" + std::to_string(id), view(counts));
  const auto a = r.index.query(view(first), 1000, options), b = fresh.query(view(first), 1000, options);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].score, b[i].score) << i;
}

// query(h, k, Scoring) is count weighting without power-law normalisation, bit for bit, and still
// equals the classic TF-IDF reference the index was always checked against. The default similarity
// is intersection, as `bovw search`'s (it was cosine before issue 20: one default for library and CLI).
TEST(ScoringOptions, DefaultIsTheClassicTfIdf) {
  BOVW_SEEDED_RNG(rng);
  EXPECT_EQ(ScoringOptions{}, (ScoringOptions{Scoring::Intersection, TermWeighting::Count, 1.0}));
  RandomIndex r(rng, 41, 57);
  std::map<ImageId, std::string> names;
  for (const auto& [id, counts] : r.images) names[id] = r.index.name(id);
  for (int q = 0; q < 6; ++q) {
    const Counts query = burstyCounts(rng, 41);
    for (Scoring scoring : {Scoring::Cosine, Scoring::Intersection}) {
      const auto classic = r.index.query(view(query), 100, scoring);
      const auto options = r.index.query(view(query), 100, ScoringOptions{scoring, TermWeighting::Count, 1.0});
      ASSERT_EQ(classic.size(), options.size());
      for (std::size_t i = 0; i < classic.size(); ++i) {
        EXPECT_EQ(classic[i].id, options[i].id);
        EXPECT_EQ(classic[i].score, options[i].score);
      }
      expectSameRanking(classic, bruteForce(r.images, query, scoring), 100, names, 1e-12);
    }
  }
}

TEST(ScoringOptions, EmptyHistogramsScoreNothing) {
  BOVW_SEEDED_RNG(rng);
  InvertedIndex index(signature(4));
  const Counts empty{0, 0, 0, 0}, some{1, 300, 0, 2};
  index.add("empty", view(empty));
  for (const ScoringOptions& options : optionSets(rng)) {
    SCOPED_TRACE(describe(options));
    EXPECT_TRUE(index.query(view(some), 5, options).empty());
    EXPECT_TRUE(index.query(view(empty), 5, options).empty());
  }
  const ImageId some_id = index.add("some", view(some));
  for (const ScoringOptions& options : optionSets(rng)) {
    SCOPED_TRACE(describe(options));
    const auto results = index.query(view(some), 5, options);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].id, some_id);
    EXPECT_NEAR(results[0].score, 1.0, 1e-12);
    EXPECT_TRUE(index.query(view(empty), 5, options).empty());
  }
}

// ------------------------------------------------------------------------------------------------
// Concurrency: the per-option weights are computed lazily by whichever query needs them first.

// Four threads query, each cycling through every option set in its own order, while one thread
// adds and removes images; every answer must be well formed. Afterwards, with more option sets
// than the index keeps at once, every thread's answers must equal those of a serially built index.
TEST(ScoringOptions, ConcurrentQueriesWithManyOptionSetsMatchSerial) {
  BOVW_SEEDED_RNG(rng);
  constexpr int kWords = 48, kBase = 30, kAdded = 200;
  std::vector<Counts> histograms;
  for (int i = 0; i < kBase + kAdded; ++i) {
    Counts counts = burstyCounts(rng, kWords);
    ++counts[static_cast<std::size_t>(i % kWords)];  // no empty image: each query finds itself
    histograms.push_back(counts);
  }
  std::vector<ScoringOptions> sets = optionSets(rng);
  for (double power : {0.2, 0.4, 0.6, 0.8})  // 28 sets in all, more than the index caches
    sets.push_back({Scoring::Intersection, TermWeighting::Sqrt, power});

  InvertedIndex index(signature(kWords));
  for (int i = 0; i < kBase; ++i) index.add(imageName(i), view(histograms[i]));

  std::atomic<bool> writing{true};
  std::atomic<int> started{0};
  std::atomic<long> queries{0}, problems{0};
  std::mutex first_problem_mutex;
  std::string first_problem;
  auto report = [&](const std::string& what) {
    if (problems.fetch_add(1) == 0) {
      std::lock_guard<std::mutex> lock(first_problem_mutex);
      first_problem = what;
    }
  };
  auto reader = [&](int thread) {
    long done = 0;
    while (writing.load() || done < 60) {
      const std::size_t q = static_cast<std::size_t>((thread + done) % 4);  // base images, never removed
      const ScoringOptions& options = sets[static_cast<std::size_t>(thread * 5 + done) % sets.size()];
      try {
        const auto results = index.query(view(histograms[q]), 6, options);
        // The base images have the lowest ids, so an equal-scoring image cannot rank above them.
        if (results.empty() || results[0].id != q || std::abs(results[0].score - 1.0) > 1e-9)
          report(toString(options) + ": query image " + std::to_string(q) + " is not first with score 1");
        for (std::size_t r = 0; r < results.size(); ++r) {
          if (!std::isfinite(results[r].score) || results[r].score <= 0 || results[r].score > 1 + 1e-9)
            report(toString(options) + ": score out of (0, 1]: " + std::to_string(results[r].score));
          if (results[r].name != imageName(results[r].id)) report("name " + results[r].name + " for id " +
                                                               std::to_string(results[r].id));
          if (r > 0 && (results[r].score > results[r - 1].score ||
                        (results[r].score == results[r - 1].score && results[r].id < results[r - 1].id)))
            report(toString(options) + ": results out of order");
        }
      } catch (const std::exception& e) {
        report(std::string("exception: ") + e.what());
      }
      if (done++ == 0) started.fetch_add(1);
    }
    queries.fetch_add(done);
  };
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) readers.emplace_back(reader, t);
  while (started.load() < 4) std::this_thread::yield();  // the writes must meet running queries
  addAndRemove(index, histograms, kBase, kBase + kAdded, 40);
  writing.store(false);
  for (auto& t : readers) t.join();
  EXPECT_EQ(problems.load(), 0) << "first: " << first_problem;
  EXPECT_GE(queries.load(), 240);

  InvertedIndex serial(signature(kWords));
  for (int i = 0; i < kBase; ++i) serial.add(imageName(i), view(histograms[i]));
  addAndRemove(serial, histograms, kBase, kBase + kAdded);
  ASSERT_EQ(index.ids(), serial.ids());
  std::vector<std::size_t> probes;
  for (std::size_t q = 0; q < histograms.size(); q += 23) probes.push_back(q);
  std::vector<std::vector<std::vector<SearchResult>>> expected(sets.size());  // [set][probe]
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (std::size_t q : probes) expected[s].push_back(serial.query(view(histograms[q]), 15, sets[s]));

  // Fresh weights (one more add invalidates them all), then every thread asks for every set at once.
  const Counts extra = burstyCounts(rng, kWords);
  index.add("extra", view(extra));
  serial.add("extra", view(extra));
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (std::size_t p = 0; p < probes.size(); ++p) expected[s][p] = serial.query(view(histograms[probes[p]]), 15, sets[s]);
  std::atomic<long> mismatches{0};
  auto compare = [&](int thread) {
    for (std::size_t i = 0; i < sets.size(); ++i) {
      const std::size_t s = (i * 7 + static_cast<std::size_t>(thread) * 11) % sets.size();
      for (std::size_t p = 0; p < probes.size(); ++p) {
        const auto got = index.query(view(histograms[probes[p]]), 15, sets[s]);
        const auto& want = expected[s][p];
        bool same = got.size() == want.size();
        for (std::size_t r = 0; same && r < got.size(); ++r)
          same = got[r].id == want[r].id && got[r].score == want[r].score;
        if (!same) mismatches.fetch_add(1);
      }
    }
  };
  std::vector<std::thread> comparers;
  for (int t = 0; t < 4; ++t) comparers.emplace_back(compare, t);
  for (auto& t : comparers) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// ------------------------------------------------------------------------------------------------
// Text form and bad options

// Runs `call`, expecting InvalidInput whose message contains every one of `parts`.
template <typename Call>
void expectInvalidInput(Call call, const std::vector<std::string>& parts) {
  try {
    call();
    ADD_FAILURE() << "no exception";
  } catch (const InvalidInput& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(ScoringOptionsText, CanonicalFormsRoundTrip) {
  const std::vector<std::pair<std::string, ScoringOptions>> forms{
      {"intersection", {Scoring::Intersection, TermWeighting::Count, 1.0}},
      {"cosine", {Scoring::Cosine, TermWeighting::Count, 1.0}},
      {"cosine+sqrt", {Scoring::Cosine, TermWeighting::Sqrt, 1.0}},
      {"intersection+log", {Scoring::Intersection, TermWeighting::Log, 1.0}},
      {"intersection+power0.5", {Scoring::Intersection, TermWeighting::Count, 0.5}},
      {"cosine+log+power0.3", {Scoring::Cosine, TermWeighting::Log, 0.3}},
      {"intersection+sqrt+power1e-05", {Scoring::Intersection, TermWeighting::Sqrt, 1e-5}}};
  for (const auto& [text, options] : forms) {
    SCOPED_TRACE(text);
    EXPECT_EQ(toString(options), text);
    EXPECT_EQ(parseScoringOptions(text), options);
  }
  // Any valid exponent, however written, comes back as the same double.
  BOVW_SEEDED_RNG(rng);
  for (const ScoringOptions& options : optionSets(rng)) EXPECT_EQ(parseScoringOptions(toString(options)), options);
  std::uniform_real_distribution<double> alpha(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const ScoringOptions options{Scoring::Cosine, TermWeighting::Sqrt, 1.0 - alpha(rng)};  // in (0, 1]
    EXPECT_EQ(parseScoringOptions(toString(options)), options) << toString(options);
  }
  EXPECT_EQ(parseScoringOptions("intersection+power1"), ScoringOptions{});
  EXPECT_EQ(parseScoringOptions("cosine+power5e-1").power, 0.5);
  EXPECT_EQ(toString(TermWeighting::Log), "log");
}

TEST(ScoringOptionsText, UnknownFormsAreNamedAndTheValidOnesListed) {
  for (const char* text : {"", "l3", "Cosine", "cosine+", "+cosine", "cosine+count", "cosine+sqrt+log",
                           "cosine+power0.5+sqrt", "cosine+power", "cosine+powerx", "cosine+power0.5x",
                           "cosine+power 0.5", "cosine+power0.5+power0.5", "sqrt", "cosine,intersection"}) {
    SCOPED_TRACE(text);
    expectInvalidInput([&] { parseScoringOptions(text); },
                       {"'" + std::string(text) + "'", "cosine", "intersection", "sqrt", "log", "power"});
  }
}

TEST(ScoringOptionsText, ExponentsOutsideZeroToOneAreRefused) {
  for (const char* text : {"cosine+power0", "cosine+power-0.5", "intersection+sqrt+power1.5", "cosine+powernan",
                           "cosine+powerinf", "cosine+power-0"}) {
    SCOPED_TRACE(text);
    expectInvalidInput([&] { parseScoringOptions(text); }, {"'" + std::string(text) + "'", "alpha", "(0, 1]"});
  }
  InvertedIndex index(signature(3));
  const Counts counts{1, 2, 0};
  index.add("a", view(counts));
  for (double power : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(power);
    const ScoringOptions options{Scoring::Intersection, TermWeighting::Sqrt, power};
    expectInvalidInput([&] { checkScoringOptions(options); }, {"alpha", "(0, 1]"});
    expectInvalidInput([&] { index.query(view(counts), 1, options); }, {"alpha", "(0, 1]"});
  }
}

}  // namespace
}  // namespace bovw::test
