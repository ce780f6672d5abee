// IncrementalNorms resumed from the moments of an earlier state of the same index (what a live
// database's checkpoint keeps) against the norms computed afresh from every posting of the state
// now: the same integer moments, so the same bits, after random adds (words new since, counts
// beyond the lists' byte, dense lists) and removals of images from before and after, under every
// supported option set; and the L1 norm against its definition recomputed in double.
#include "index_test_support.hpp"

#include "index/incremental_norms.hpp"
#include "index/index_editor.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <stdexcept>

namespace bovw::test {
namespace {

using index_detail::IncrementalNorms;
using index_detail::IndexEditor;

// An index of K random words whose last word no image holds yet.
InvertedIndex randomIndex(std::mt19937_64& rng, int k, int images, std::vector<Counts>& held) {
  InvertedIndex index(VocabularySignature{k, 64, DescriptorType::parse("surf64"), 0});
  for (int i = 0; i < images; ++i) {
    Counts counts = randomCounts(rng, k, std::uniform_int_distribution<int>(0, 80)(rng));
    counts[static_cast<std::size_t>(k - 1)] = 0;
    if (std::bernoulli_distribution(0.05)(rng)) counts[0] += 300;  // beyond a list's count byte
    index.add(imageName(held.size()), view(counts));
    held.push_back(counts);
  }
  return index;
}

void expectSameMoments(const IncrementalNorms& resumed, const IncrementalNorms& fresh) {
  const IncrementalNorms::Moments a = resumed.moments(), b = fresh.moments();
  EXPECT_EQ(a.log_frequency, b.log_frequency);
  EXPECT_EQ(a.m0, b.m0);
  EXPECT_TRUE(a.m1 == b.m1) << "m1 differs";
  EXPECT_TRUE(a.m2 == b.m2) << "m2 differs";
  EXPECT_EQ(resumed.exact(), fresh.exact());
}

TEST(IncrementalNorms, ResumedFromAnEarlierStateAreTheFreshNormsBitForBit) {
  BOVW_SEEDED_RNG(rng);
  const std::vector<ScoringOptions> options_sets = {
      ScoringOptions{},
      {Scoring::Intersection, TermWeighting::Sqrt, 1.0},
      {Scoring::Intersection, TermWeighting::Log, 1.0},
      {Scoring::Cosine, TermWeighting::Count, 1.0},
      {Scoring::Cosine, TermWeighting::Log, 1.0},
  };
  for (int trial = 0; trial < 6; ++trial) {
    const int k = std::uniform_int_distribution<int>(7, 300)(rng);
    std::vector<Counts> held;
    InvertedIndex index = randomIndex(rng, k, std::uniform_int_distribution<int>(0, 400)(rng), held);
    std::vector<IncrementalNorms::Moments> earlier;
    for (const ScoringOptions& options : options_sets)
      earlier.push_back(IncrementalNorms(IndexEditor::data(index), options).moments());
    // Since then: images added (some with the word no image had), and removed from before and since.
    const std::size_t before = held.size();
    const int added = trial == 0 ? 0 : std::uniform_int_distribution<int>(1, 300)(rng);
    for (int i = 0; i < added; ++i) {
      Counts counts = randomCounts(rng, k, std::uniform_int_distribution<int>(0, 80)(rng));
      if (std::bernoulli_distribution(0.1)(rng)) counts[static_cast<std::size_t>(k - 1)] = 2;
      index.add(imageName(held.size()), view(counts));
      held.push_back(counts);
    }
    for (std::size_t id = 0; id < held.size(); ++id)
      if (trial > 0 && std::bernoulli_distribution(id < before ? 0.1 : 0.2)(rng)) index.remove(imageName(id));
    SCOPED_TRACE("K = " + std::to_string(k) + ", " + std::to_string(before) + " images, then " +
                 std::to_string(added) + " added and some removed");
    const index_detail::IndexData& now = IndexEditor::data(index);
    for (std::size_t o = 0; o < options_sets.size(); ++o) {
      SCOPED_TRACE("options set " + std::to_string(o));
      const IncrementalNorms resumed(now, options_sets[o], earlier[o]);
      const IncrementalNorms fresh(now, options_sets[o]);
      expectSameMoments(resumed, fresh);
    }
    // The default scoring's L1 norm against its definition: sum_w c_dw (C - ln(1 + n_w)), C = 1 + ln(1 + N).
    const IncrementalNorms resumed(now, ScoringOptions{}, earlier[0]);
    std::vector<double> frequency(static_cast<std::size_t>(k), 0);
    std::size_t live = 0;
    for (std::size_t id = 0; id < held.size(); ++id) {
      if (!index.find(imageName(id))) continue;
      ++live;
      for (int w = 0; w < k; ++w) frequency[static_cast<std::size_t>(w)] += held[id][static_cast<std::size_t>(w)] > 0;
    }
    const double offset = 1.0 + std::log1p(static_cast<double>(live));
    for (std::size_t id = 0; id < held.size(); ++id) {
      const auto found = index.find(imageName(id));
      if (!found) continue;
      double norm = 0;
      for (int w = 0; w < k; ++w)
        norm += held[id][static_cast<std::size_t>(w)] * (offset - std::log1p(frequency[static_cast<std::size_t>(w)]));
      EXPECT_NEAR(resumed.norm(*found, IncrementalNorms::offset(live)), norm, 1e-12 * std::max(1.0, norm)) << "image " << id;
    }
  }
}

// Over several blocks of the moments' passes (32,768 images for L1, 16,384 for L2) and ranges of
// threads: words that every block holds (dense lists), words held only in a few stretches of ids with
// whole blocks between them (lists that a block passes over), and the rest at random; the L1 and L2
// norms computed afresh and resumed from the first half, against their definitions in double.
TEST(IncrementalNorms, OverSeveralBlocksAreTheirDefinition) {
  BOVW_SEEDED_RNG(rng);
  const int k = 41;
  const std::size_t images = std::uniform_int_distribution<std::size_t>(70000, 75000)(rng);
  std::vector<Counts> held;
  InvertedIndex index(VocabularySignature{k, 64, DescriptorType::parse("surf64"), 0});
  std::vector<IncrementalNorms::Moments> half;
  const std::vector<ScoringOptions> options_sets = {ScoringOptions{}, {Scoring::Cosine, TermWeighting::Count, 1.0}};
  for (std::size_t id = 0; id < images; ++id) {
    if (id == images / 2)
      for (const ScoringOptions& options : options_sets) half.push_back(IncrementalNorms(IndexEditor::data(index), options).moments());
    Counts counts(static_cast<std::size_t>(k), 0);
    for (int w = 0; w < 4; ++w)  // dense: most images
      if (std::bernoulli_distribution(0.7)(rng)) counts[static_cast<std::size_t>(w)] = std::uniform_int_distribution<int>(1, 300)(rng);
    for (int w = 4; w < 12; ++w) {  // in stretches of 50 ids a word, 20,000 apart
      const std::size_t start = static_cast<std::size_t>(w) * 977 % 20000;
      if ((id + 20000 - start) % 20000 < 50) counts[static_cast<std::size_t>(w)] = std::uniform_int_distribution<int>(1, 4)(rng);
    }
    for (int j = 0; j < 3; ++j) counts[std::uniform_int_distribution<std::size_t>(12, k - 1)(rng)] += 1;
    index.add(imageName(id), view(counts));
    held.push_back(counts);
  }
  const index_detail::IndexData& now = IndexEditor::data(index);
  std::vector<double> frequency(static_cast<std::size_t>(k), 0);
  for (const Counts& counts : held)
    for (int w = 0; w < k; ++w) frequency[static_cast<std::size_t>(w)] += counts[static_cast<std::size_t>(w)] > 0;
  const double offset = 1.0 + std::log1p(static_cast<double>(images));
  const int threads = omp_get_max_threads();
  omp_set_num_threads(3);
  for (std::size_t o = 0; o < options_sets.size(); ++o) {
    SCOPED_TRACE("options set " + std::to_string(o));
    const bool squared = options_sets[o].similarity == Scoring::Cosine;
    const IncrementalNorms fresh(now, options_sets[o]);
    const IncrementalNorms resumed(now, options_sets[o], half[o]);
    expectSameMoments(resumed, fresh);
    std::size_t wrong = 0;
    for (std::size_t id = 0; id < images; ++id) {
      double sum = 0;
      for (int w = 0; w < k; ++w) {
        const double term = held[id][static_cast<std::size_t>(w)] * (offset - std::log1p(frequency[static_cast<std::size_t>(w)]));
        sum += squared ? term * term : term;
      }
      const double norm = squared ? std::sqrt(sum) : sum;
      if (std::abs(fresh.norm(static_cast<ImageId>(id), IncrementalNorms::offset(images)) - norm) > 1e-12 * std::max(1.0, norm) &&
          ++wrong <= 5)
        ADD_FAILURE() << "image " << id << ": " << fresh.norm(static_cast<ImageId>(id), IncrementalNorms::offset(images))
                      << " against " << norm;
    }
    EXPECT_EQ(wrong, 0u);
  }
  omp_set_num_threads(threads);
}

TEST(IncrementalNorms, ResumedWithNothingChangedOrIntoAnEmptyIndex) {
  BOVW_SEEDED_RNG(rng);
  std::vector<Counts> held;
  InvertedIndex index = randomIndex(rng, 50, 0, held);
  const IncrementalNorms::Moments empty = IncrementalNorms(IndexEditor::data(index), ScoringOptions{}).moments();
  EXPECT_TRUE(empty.m0.empty());
  for (int i = 0; i < 40; ++i) {
    const Counts counts = randomCounts(rng, 50, 30);
    index.add(imageName(held.size()), view(counts));
    held.push_back(counts);
  }
  const index_detail::IndexData& now = IndexEditor::data(index);
  const IncrementalNorms fresh(now, ScoringOptions{});
  expectSameMoments(IncrementalNorms(now, ScoringOptions{}, empty), fresh);
  expectSameMoments(IncrementalNorms(now, ScoringOptions{}, fresh.moments()), fresh);
}

// A write moved through the norms before it is applied (after(): what a live database's writer and
// a growing index do) against the norms computed afresh once it is applied. Large enough (3.3
// million postings) that after() splits the images into ranges over three threads, with a write that
// moves every word's frequency.
TEST(IncrementalNorms, MovedByAWriteOnSeveralThreadsAreTheFreshNormsBitForBit) {
  BOVW_SEEDED_RNG(rng);
  const int k = 97;
  std::vector<Counts> held;
  InvertedIndex index = randomIndex(rng, k, 100000, held);
  const std::vector<ScoringOptions> options_sets = {ScoringOptions{}, {Scoring::Cosine, TermWeighting::Log, 1.0}};
  std::vector<IncrementalNorms> before;
  for (const ScoringOptions& options : options_sets) before.emplace_back(IndexEditor::data(index), options);

  index_detail::IndexChange change;
  for (std::size_t id = 0; id < held.size(); ++id) {
    if (!std::bernoulli_distribution(0.002)(rng)) continue;
    change.removed.push_back(static_cast<ImageId>(id));
    std::vector<std::uint32_t> words;
    for (int w = 0; w < k; ++w)
      if (held[id][static_cast<std::size_t>(w)] > 0) words.push_back(static_cast<std::uint32_t>(w));
    change.removed_words.push_back(std::move(words));
  }
  for (int i = 0; i < 2000; ++i) {
    index_detail::SparseImage image{static_cast<ImageId>(held.size() + static_cast<std::size_t>(i)), imageName(held.size() + static_cast<std::size_t>(i)), {}};
    const Counts counts = randomCounts(rng, k, std::uniform_int_distribution<int>(1, 120)(rng));
    for (int w = 0; w < k; ++w)
      if (counts[static_cast<std::size_t>(w)] > 0) image.words.push_back({static_cast<std::uint32_t>(w), counts[static_cast<std::size_t>(w)]});
    change.added.push_back(std::move(image));
  }
  change.next_id = held.size() + change.added.size();
  SCOPED_TRACE(std::to_string(change.removed.size()) + " removed, " + std::to_string(change.added.size()) + " added");

  const int threads = omp_get_max_threads();
  omp_set_num_threads(3);
  std::vector<IncrementalNorms> moved;
  for (const IncrementalNorms& norms : before) moved.push_back(norms.after(IndexEditor::data(index), change));
  omp_set_num_threads(threads);
  IndexEditor::apply(index, change);
  for (std::size_t o = 0; o < options_sets.size(); ++o) {
    SCOPED_TRACE("options set " + std::to_string(o));
    expectSameMoments(moved[o], IncrementalNorms(IndexEditor::data(index), options_sets[o]));
  }
}

TEST(IncrementalNorms, MomentsOfAnotherIndexAreRefused) {
  BOVW_SEEDED_RNG(rng);
  std::vector<Counts> held;
  InvertedIndex small = randomIndex(rng, 50, 10, held);
  std::vector<Counts> more;
  InvertedIndex large = randomIndex(rng, 50, 20, more);
  InvertedIndex other_k = randomIndex(rng, 60, 5, more);
  const IncrementalNorms::Moments of_large = IncrementalNorms(IndexEditor::data(large), ScoringOptions{}).moments();
  EXPECT_THROW(IncrementalNorms(IndexEditor::data(small), ScoringOptions{}, of_large), std::invalid_argument);
  const IncrementalNorms::Moments of_other_k = IncrementalNorms(IndexEditor::data(other_k), ScoringOptions{}).moments();
  EXPECT_THROW(IncrementalNorms(IndexEditor::data(large), ScoringOptions{}, of_other_k), std::invalid_argument);
  // L1 moments resumed as L2 ones (no m2).
  const IncrementalNorms::Moments of_small = IncrementalNorms(IndexEditor::data(small), ScoringOptions{}).moments();
  EXPECT_THROW(IncrementalNorms(IndexEditor::data(small), ScoringOptions{Scoring::Cosine}, of_small), std::invalid_argument);
}

}  // namespace
}  // namespace bovw::test
