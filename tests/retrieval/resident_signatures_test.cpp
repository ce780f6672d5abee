// Hamming-embedding scoring with the signature lists on an OpenCL device (ResidentSignatures,
// ImageDatabase::scanSignaturesOn; the first GPU, else PoCL's CPU device) against the host's own scan
// of the same lists: the same images and the same scores bit for bit, for fresh random collections,
// after adds, removes and replacements that the copy follows (the arena growing past its room), and
// while the copy holds only the first part of a list or an old layout of it, which the host then
// scores itself.
#include "support/hamming_collection.hpp"
#include "support/retrieval_test_support.hpp"

#include "opencl/opencl_resident_signatures.hpp"
#include "retrieval/hamming_scorer.hpp"
#include "retrieval/signature_postings.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/scoring.hpp>
#include <bovw/tfidf_model.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

namespace bovw::test {
namespace {

using retrieval_detail::HammingScorer;
using retrieval_detail::ResidentSignatures;
using retrieval_detail::SignaturePostings;

ScoringOptions hamming(int threshold, TermWeighting term) {
  ScoringOptions options;
  options.similarity = Scoring::Hamming;
  options.term = term;
  options.hamming_threshold = threshold;
  return options;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every image either database ranks, in the same order and with the same scores to the bit.
void expectSameRanking(const ImageDatabase& on_device, const ImageDatabase& on_host, const ImageWords& query,
                       const ScoringOptions& options) {
  const std::size_t all = on_host.index().idCount() + 1;
  const auto device = on_device.query(query, all, options), host = on_host.query(query, all, options);
  ASSERT_EQ(device.size(), host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(device[i].id, host[i].id) << "rank " << i;
    EXPECT_TRUE(sameBits(device[i].score, host[i].score))
        << "rank " << i << ": " << device[i].score << " on the device, " << host[i].score << " on the host";
  }
}

// The signatures of a collection's images filed by word, as a database files them (image n under id n).
void file(SignaturePostings& postings, const std::vector<ImageWords>& images, ImageId first_id) {
  for (std::size_t n = 0; n < images.size(); ++n) {
    std::map<std::uint32_t, std::vector<std::uint64_t>> by_word;
    for (std::size_t i = 0; i < images[n].words.size(); ++i)
      by_word[static_cast<std::uint32_t>(images[n].words[i])].push_back(images[n].signatures[i]);
    for (const auto& [word, signatures] : by_word)
      postings.insert(first_id + static_cast<ImageId>(n), word, signatures.data(), signatures.size());
  }
}

TfIdfModel modelOf(const std::vector<ImageWords>& images, int words) {
  std::vector<std::uint64_t> frequencies(static_cast<std::size_t>(words), 0);
  for (const ImageWords& image : images)
    for (const int w : std::set<int>(image.words.begin(), image.words.end())) ++frequencies[static_cast<std::size_t>(w)];
  return TfIdfModel(images.size(), frequencies);
}

std::vector<SignaturePostings::Snapshot> listsOf(const SignaturePostings& postings, const HammingScorer& scorer) {
  std::vector<SignaturePostings::Snapshot> lists;
  for (const std::uint32_t w : scorer.words()) lists.push_back(postings.snapshot(w));
  return lists;
}

// The sums by id, sorted, compared to the bit.
void expectSameSums(std::vector<std::pair<ImageId, double>> device, std::vector<std::pair<ImageId, double>> host) {
  std::sort(device.begin(), device.end());
  std::sort(host.begin(), host.end());
  ASSERT_EQ(device.size(), host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(device[i].first, host[i].first);
    EXPECT_TRUE(sameBits(device[i].second, host[i].second)) << "image " << host[i].first;
  }
}

TEST(ResidentSignatures, RanksAsTheHostBitForBit) {
  std::mt19937_64 rng(seedForCurrentTest());
  SCOPED_TRACE(seedText());
  for (const int words : {3, 17, 64}) {
    SCOPED_TRACE(std::to_string(words) + " words");
    const Collection c = randomCollection(rng, words, 40 + static_cast<int>(rng() % 200));
    const ImageDatabase on_host = databaseOf(c), on_device = databaseOf(c);
    on_device.scanSignaturesOn("");
    ASSERT_FALSE(on_device.signatureScan().device.empty());
    EXPECT_TRUE(on_host.signatureScan().device.empty());
    for (const int threshold : {0, 12, 20, 40, 64})
      for (const TermWeighting term : {TermWeighting::Log, TermWeighting::Sqrt, TermWeighting::Count})
        expectSameRanking(on_device, on_host, c.query, hamming(threshold, term));
    ImageWords unrelated = c.query;  // features of no stored image's signatures
    for (std::uint64_t& signature : unrelated.signatures) signature = ~signature;
    expectSameRanking(on_device, on_host, unrelated, hamming(4, TermWeighting::Log));
  }
}

TEST(ResidentSignatures, FollowsAddsRemovesAndReplacements) {
  std::mt19937_64 rng(seedForCurrentTest());
  SCOPED_TRACE(seedText());
  const Collection c = randomCollection(rng, 9, 300);
  ImageDatabase on_host(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  ImageDatabase on_device(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  on_device.scanSignaturesOn("");  // empty: the arena's least room, so that adds outgrow it
  const auto both = [&](auto&& change) {
    change(on_host);
    change(on_device);
  };
  const ScoringOptions options = hamming(20, TermWeighting::Log);
  for (std::size_t n = 0; n < c.images.size(); ++n) {
    both([&](ImageDatabase& d) { d.add("image" + std::to_string(n), c.images[n]); });
    if (n % 7 == 3) {  // a removal, sometimes of an image added just before
      const std::string gone = "image" + std::to_string(rng() % (n + 1));
      if (on_host.index().find(gone)) both([&](ImageDatabase& d) { d.remove(gone); });
    }
    if (n % 11 == 5) {  // a replacement under the same name
      const std::string name = "image" + std::to_string(rng() % (n + 1));
      const ImageWords& other = c.images[rng() % c.images.size()];
      if (on_host.index().find(name))
        both([&](ImageDatabase& d) {
          d.remove(name);
          d.add(name, other);
        });
    }
    if (n % 25 == 0) expectSameRanking(on_device, on_host, c.query, options);
  }
  expectSameRanking(on_device, on_host, c.query, options);
  EXPECT_FALSE(on_device.signatureScan().device.empty());
  EXPECT_EQ(on_device.signatureScan().dropped_because, "");
}

TEST(ResidentSignatures, SearchesBesideAWriterNeverFailAndEndAsTheHost) {
  std::mt19937_64 rng(seedForCurrentTest());
  SCOPED_TRACE(seedText());
  const Collection c = randomCollection(rng, 11, 240);
  ImageDatabase on_host(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  ImageDatabase on_device(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (std::size_t n = 0; n < 40; ++n) {
    on_host.add("image" + std::to_string(n), c.images[n]);
    on_device.add("image" + std::to_string(n), c.images[n]);
  }
  on_device.scanSignaturesOn("");
  const ScoringOptions options = hamming(20, TermWeighting::Log);
  std::atomic<bool> writing{true};
  std::atomic<int> searches{0};
  std::vector<std::string> failures(3);
  std::vector<std::thread> searchers;
  for (std::size_t t = 0; t < failures.size(); ++t)
    searchers.emplace_back([&, t] {
      try {
        while (writing.load()) {
          if (on_device.query(c.query, 10, options).empty()) throw std::runtime_error("no result");
          ++searches;
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (std::size_t n = 40; n < c.images.size(); ++n) {
    on_device.add("image" + std::to_string(n), c.images[n]);
    on_host.add("image" + std::to_string(n), c.images[n]);
    if (n % 5 == 0) {
      on_device.remove("image" + std::to_string(n - 30));
      on_host.remove("image" + std::to_string(n - 30));
    }
  }
  writing = false;
  for (std::thread& t : searchers) t.join();
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");
  EXPECT_GT(searches.load(), 0);
  expectSameRanking(on_device, on_host, c.query, options);
}

TEST(ResidentSignatures, TheHostScoresWhatTheCopyDoesNotHold) {
  std::mt19937_64 rng(seedForCurrentTest());
  SCOPED_TRACE(seedText());
  const int words = 13;
  const Collection c = randomCollection(rng, words, 150);
  const std::vector<ImageWords> early(c.images.begin(), c.images.begin() + 100);
  SignaturePostings postings(words);
  file(postings, early, 0);
  const auto device = detail::makeResidentSignatures("", postings);
  const HammingScorer scorer(c.query, modelOf(c.images, words), hamming(20, TermWeighting::Log));
  const std::size_t ids = c.images.size();

  // Fresh: the device holds every list whole and finds runs in them.
  {
    const auto lists = listsOf(postings, scorer);
    std::vector<std::uint64_t> query;
    std::vector<ResidentSignatures::Word> asked;
    std::size_t list = 0;
    for (const std::uint32_t w : scorer.words()) asked.push_back({w, lists[list++], 0, 0});
    for (std::size_t i = 0; i < c.query.words.size(); ++i) query.push_back(c.query.signatures[i]);
    // Each word against every query feature: enough to see that runs come back and lists are held.
    for (ResidentSignatures::Word& w : asked) w.query_end = query.size();
    std::vector<double> weights(65, 1.0);
    std::vector<std::size_t> covered;
    std::vector<ResidentSignatures::Run> runs;
    device->pairSums(query, asked, ids, 64, weights.data(), covered, runs);
    for (std::size_t i = 0; i < asked.size(); ++i)
      EXPECT_EQ(covered[i], asked[i].list ? asked[i].list->ids.size() : 0) << "word " << asked[i].word;
    EXPECT_FALSE(runs.empty());
    expectSameSums(scorer.matchSums(lists, ids, device.get()), scorer.matchSums(lists, ids));
  }
  // Appended to, not followed: the device scores the first part, the host the rest.
  const std::vector<ImageWords> late(c.images.begin() + 100, c.images.begin() + 125);
  file(postings, late, 100);
  expectSameSums(scorer.matchSums(listsOf(postings, scorer), ids, device.get()),
                 scorer.matchSums(listsOf(postings, scorer), ids));
  // Appended to and followed word by word, past the regions' room.
  std::vector<std::uint32_t> every(static_cast<std::size_t>(words));
  for (int w = 0; w < words; ++w) every[static_cast<std::size_t>(w)] = static_cast<std::uint32_t>(w);
  for (std::size_t n = 125; n < c.images.size(); ++n) {
    file(postings, {c.images[n]}, static_cast<ImageId>(n));
    device->follow(postings, every);
  }
  expectSameSums(scorer.matchSums(listsOf(postings, scorer), ids, device.get()),
                 scorer.matchSums(listsOf(postings, scorer), ids));
  // A third of the lists' features erased, which compacts them (a new layout), not followed: the
  // host scores those lists whole.
  for (ImageId id = 0; id < 60; id += 1) {
    std::vector<std::uint32_t> all(static_cast<std::size_t>(words));
    for (int w = 0; w < words; ++w) all[static_cast<std::size_t>(w)] = static_cast<std::uint32_t>(w);
    postings.erase(id, all);
  }
  expectSameSums(scorer.matchSums(listsOf(postings, scorer), ids, device.get()),
                 scorer.matchSums(listsOf(postings, scorer), ids));
  // Followed word by word: whole again.
  device->follow(postings, every);
  expectSameSums(scorer.matchSums(listsOf(postings, scorer), ids, device.get()),
                 scorer.matchSums(listsOf(postings, scorer), ids));
  // Followed whole.
  device->follow(postings, {});
  expectSameSums(scorer.matchSums(listsOf(postings, scorer), ids, device.get()),
                 scorer.matchSums(listsOf(postings, scorer), ids));
}

TEST(ResidentSignatures, IsRefusedWithoutKeypointsOrADevice) {
  std::mt19937_64 rng(7);
  const Collection c = randomCollection(rng, 5, 3);
  const ImageDatabase without(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{false});
  try {
    without.scanSignaturesOn("");
    FAIL() << "a database without keypoints has no signatures to scan";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "stores no keypoints")) << e.what();
  }
  const ImageDatabase with = databaseOf(c);
  EXPECT_THROW(with.scanSignaturesOn("no such device anywhere"), InvalidInput);
  EXPECT_TRUE(with.signatureScan().device.empty());
}

}  // namespace
}  // namespace bovw::test
