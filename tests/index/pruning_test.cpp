// Pruned queries (QueryStrategy::Pruned, MaxScore) against the exhaustive reference: the same ids,
// order and score bits on random indexes of awkward sizes, with exact ties, for every scoring option,
// after adds and removes and with a global model; that pruning does skip postings; and the compact
// posting lists: counts beyond a byte (255 and above) kept exactly through queries, removals and
// files, and the bytes the lists take.
#include "index/index_test_support.hpp"
#include "index/index_editor.hpp"
#include "index/posting_list.hpp"
#include "index/query_scorer.hpp"
#include "support/io_test_support.hpp"

#include <bovw/error.hpp>

#include <cstring>

namespace bovw::test {
namespace {

VocabularySignature signature(int words) { return {words, 64, DescriptorType::parse("surf64"), 0}; }

// Pruned and exhaustive answers are identical: ids, names, order, and the scores' bits.
void expectIdentical(const InvertedIndex& index, const Counts& query, std::size_t top_k, const ScoringOptions& options,
                     const TfIdfModel* global = nullptr) {
  SCOPED_TRACE(toString(options) + " alpha " + std::to_string(options.power) + ", top " + std::to_string(top_k));
  const auto pruned = global ? index.query(view(query), top_k, options, *global, QueryStrategy::Pruned)
                             : index.query(view(query), top_k, options, QueryStrategy::Pruned);
  const auto exhaustive = global ? index.query(view(query), top_k, options, *global, QueryStrategy::Exhaustive)
                                 : index.query(view(query), top_k, options, QueryStrategy::Exhaustive);
  ASSERT_EQ(pruned.size(), exhaustive.size());
  for (std::size_t r = 0; r < pruned.size(); ++r) {
    EXPECT_EQ(pruned[r].id, exhaustive[r].id) << "rank " << r;
    EXPECT_EQ(pruned[r].name, exhaustive[r].name) << "rank " << r;
    EXPECT_EQ(bits(pruned[r].score), bits(exhaustive[r].score)) << "rank " << r << ": " << pruned[r].score << " vs "
                                                                << exhaustive[r].score;
  }
}

// Random histograms over the first `used` of K words (the others are in no image), every fifth a copy
// of an earlier one (exact ties), now and then an empty one.
Counts imageCounts(std::mt19937_64& rng, int words, int used, const std::vector<Counts>& earlier) {
  if (!earlier.empty() && std::uniform_int_distribution<int>(0, 4)(rng) == 0)
    return earlier[std::uniform_int_distribution<std::size_t>(0, earlier.size() - 1)(rng)];
  Counts counts = randomCounts(rng, used, std::uniform_int_distribution<int>(0, 60)(rng));
  counts.resize(static_cast<std::size_t>(words), 0);
  return counts;
}

// Queries: indexed images with words dropped, random histograms over every word (absent ones
// included), one word alone, and the empty histogram.
std::vector<Counts> queriesFor(std::mt19937_64& rng, int words, const std::vector<Counts>& images) {
  std::vector<Counts> queries;
  std::bernoulli_distribution keep(0.7);
  for (int i = 0; i < 4 && !images.empty(); ++i) {
    Counts q = images[std::uniform_int_distribution<std::size_t>(0, images.size() - 1)(rng)];
    for (auto& c : q)
      if (!keep(rng)) c = 0;
    queries.push_back(q);
  }
  queries.push_back(randomCounts(rng, words, 40));
  Counts one(static_cast<std::size_t>(words), 0);
  one[static_cast<std::size_t>(std::uniform_int_distribution<int>(0, words - 1)(rng))] = 3;
  queries.push_back(one);
  queries.push_back(Counts(static_cast<std::size_t>(words), 0));
  return queries;
}

void expectIdenticalForAll(const InvertedIndex& index, const std::vector<Counts>& queries) {
  const std::size_t live = index.size();
  for (const ScoringOptions& options : everyOptionSet())
    for (const Counts& q : queries)
      for (std::size_t top_k : {std::size_t{1}, std::size_t{2}, std::size_t{10}, live, live + 3})
        expectIdentical(index, q, top_k, options);
}

TEST(PrunedQuery, IdenticalToExhaustiveOnRandomIndexes) {
  BOVW_SEEDED_RNG(rng);
  for (int images : {1, 7, 93, 301}) {
    for (int words : {5, 37, 300}) {
      SCOPED_TRACE(std::to_string(images) + " images, K = " + std::to_string(words));
      InvertedIndex index(signature(words));
      std::vector<Counts> added;
      const int used = std::max(1, words * 2 / 3);
      for (int i = 0; i < images; ++i) {
        added.push_back(imageCounts(rng, words, used, added));
        index.add(imageName(static_cast<std::size_t>(i)), view(added.back()));
      }
      expectIdenticalForAll(index, queriesFor(rng, words, added));
    }
  }
}

TEST(PrunedQuery, IdenticalToExhaustiveAfterAddsAndRemoves) {
  BOVW_SEEDED_RNG(rng);
  const int words = 61;
  InvertedIndex index(signature(words));
  std::vector<Counts> added;
  for (int i = 0; i < 151; ++i) {
    added.push_back(imageCounts(rng, words, words, added));
    index.add(imageName(static_cast<std::size_t>(i)), view(added.back()));
  }
  for (int i = 0; i < 151; i += 3) index.remove(imageName(static_cast<std::size_t>(i)));
  for (int i = 151; i < 190; ++i) {
    added.push_back(imageCounts(rng, words, words, added));
    index.add(imageName(static_cast<std::size_t>(i)), view(added.back()));
  }
  expectIdenticalForAll(index, queriesFor(rng, words, added));
}

TEST(PrunedQuery, IdenticalToExhaustiveWithAGlobalModel) {
  BOVW_SEEDED_RNG(rng);
  const int words = 40;
  InvertedIndex part(signature(words)), other(signature(words));
  std::vector<Counts> added;
  for (int i = 0; i < 120; ++i) {
    added.push_back(imageCounts(rng, words, words, added));
    (i % 2 ? part : other).add(imageName(static_cast<std::size_t>(i)), view(added.back()));
  }
  TfIdfModel global = part.model();
  global += other.model();
  for (const ScoringOptions& options : everyOptionSet())
    for (const Counts& q : queriesFor(rng, words, added))
      for (std::size_t top_k : {std::size_t{1}, std::size_t{5}, std::size_t{100}}) expectIdentical(part, q, top_k, options, &global);
}

// One rare word shared by nobody else and a word in every image: the rare word's image is the top
// result, and the long list is searched for it, not scanned.
TEST(PrunedQuery, SkipsTheLongListsOfCommonWords) {
  const int words = 3, images = 2000;
  InvertedIndex index(signature(words));
  for (int i = 0; i < images; ++i) index.add(imageName(static_cast<std::size_t>(i)), view(Counts{1, i == 777 ? 1 : 0, 0}));
  const Counts query{1, 1, 0};
  for (const ScoringOptions& options : {ScoringOptions{}, ScoringOptions{Scoring::Cosine, TermWeighting::Count, 1.0}}) {
    expectIdentical(index, query, 1, options);
    index.query(view(query), 1, options, QueryStrategy::Exhaustive);
    EXPECT_EQ(index_detail::QueryScorer::lastVisited(), static_cast<std::uint64_t>(images + 1));
    const auto best = index.query(view(query), 1, options, QueryStrategy::Pruned);
    ASSERT_EQ(best.size(), 1u);
    EXPECT_EQ(best[0].id, 777u);
    EXPECT_LT(index_detail::QueryScorer::lastVisited(), 10u) << toString(options);
  }
}

class CompactPostings : public ScratchDirTest {};

// Counts that do not fit a byte (255 and above, up to the largest int) are kept exactly: scores equal
// the dense reference, pruned equal exhaustive, and they survive removals and a file round trip.
TEST_F(CompactPostings, LargeCountsAreExact) {
  const int words = 6;
  std::map<ImageId, Counts> images = {{0, {70000, 65535, 65534, 1, 0, 3}},
                                      {1, {1, 70000, 2, 0, 5, 0}},
                                      {2, {2147483647, 0, 0, 65536, 1, 0}},
                                      {3, {4, 4, 4, 4, 4, 4}},
                                      {4, {254, 255, 256, 0, 1, 255}}};
  // Images of the last word alone, so that the other words' lists are sparse (fewer than a fifth of
  // the ids) and the large counts are met in both forms' loops.
  for (ImageId id = 5; id < 40; ++id) images[id] = {0, 0, 0, 0, 0, 1};
  InvertedIndex index(signature(words));
  std::map<ImageId, std::string> names;
  for (const auto& [id, counts] : images) {
    EXPECT_EQ(index.add(imageName(id), view(counts)), id);
    names[id] = imageName(id);
  }
  const std::vector<Counts> queries = {{1, 1, 1, 1, 1, 1}, {0, 70000, 0, 0, 1, 0}, {100000, 0, 0, 3, 0, 0},
                                       {0, 255, 256, 0, 0, 254}};
  auto check = [&](const InvertedIndex& idx) {
    for (const Counts& q : queries)
      for (Scoring scoring : {Scoring::Intersection, Scoring::Cosine}) {
        expectSameRanking(idx.query(view(q), 10, scoring), bruteForce(images, q, scoring), 10, names);
        expectIdentical(idx, q, 2, {scoring, TermWeighting::Count, 1.0});
      }
    std::map<ImageId, Counts> held;
    for (const auto& image : index_detail::IndexEditor::images(idx)) {
      Counts counts(static_cast<std::size_t>(words), 0);
      for (const auto& w : image.words) counts[w.word] = w.count;
      held[image.id] = counts;
    }
    EXPECT_EQ(held, images);
  };
  check(index);

  index.save(path("large.bovwidx"));
  check(InvertedIndex::load(path("large.bovwidx")));

  index.remove(imageName(0));
  images.erase(0);
  names.erase(0);
  check(index);
  index.remove(imageName(2));
  images.erase(2);
  names.erase(2);
  check(index);
}

// At most 5 bytes a posting once loaded (sparse lists are allocated at their length, 5 bytes a
// posting, dense ones at most 5), plus a fixed size per word; a list with large counts adds its side
// list. Grown one image at a time, a dense list may hold up to 6 until it goes back to the sparse form.
TEST_F(CompactPostings, AtMostFiveBytesAPostingWhenLoaded) {
  BOVW_SEEDED_RNG(rng);
  const int words = 97;
  constexpr std::size_t kPerWord = sizeof(index_detail::PostingList);
  static_assert(kPerWord == 48, "the documented per-word size");
  InvertedIndex index(signature(words));
  std::vector<Counts> added;
  for (int i = 0; i < 203; ++i) {
    added.push_back(imageCounts(rng, words, words, added));
    index.add(imageName(static_cast<std::size_t>(i)), view(added.back()));
  }
  // Grown one image at a time: within 1.5x (and one slot) of the length.
  EXPECT_LE(index.postingBytes(), 6 * (index.postingCount() * 3 / 2 + words) + kPerWord * words);
  index.save(path("i.bovwidx"));
  const InvertedIndex loaded = InvertedIndex::load(path("i.bovwidx"));
  // The common words of these images (word w drawn with weight 1 / (w + 1)) are in dense lists, of
  // fewer than 5 bytes a posting.
  EXPECT_LT(loaded.postingBytes(), 5 * loaded.postingCount() + kPerWord * words);

  // Trimmed in place (what a live database does once it has opened), the grown index gives back its
  // growth slack: at most 6 bytes a posting as the loaded one (whose forms may differ where a word's
  // share lies between a sixth and a fifth of the ids), and the same answers.
  const std::uint64_t grown = index.postingBytes();
  index_detail::IndexEditor::trim(index);
  EXPECT_LE(index.postingBytes(), 6 * index.postingCount() + kPerWord * words);
  EXPECT_LT(index.postingBytes(), grown);
  for (const Counts& q : queriesFor(rng, words, added))
    for (Scoring scoring : {Scoring::Intersection, Scoring::Cosine}) {
      const auto trimmed = index.query(view(q), 10, scoring), reference = loaded.query(view(q), 10, scoring);
      ASSERT_EQ(trimmed.size(), reference.size());
      for (std::size_t r = 0; r < trimmed.size(); ++r) {
        EXPECT_EQ(trimmed[r].id, reference[r].id);
        EXPECT_EQ(bits(trimmed[r].score), bits(reference[r].score));
      }
    }

  Counts large(static_cast<std::size_t>(words), 0);
  large[3] = 65535;
  large[4] = 1 << 20;
  large[5] = 7;
  index.add("large", view(large));
  index.save(path("j.bovwidx"));
  const InvertedIndex with_large = InvertedIndex::load(path("j.bovwidx"));
  EXPECT_LE(with_large.postingBytes(),
            5 * with_large.postingCount() + kPerWord * words + 2 * (sizeof(std::vector<int>) + 8));
}

}  // namespace
}  // namespace bovw::test
