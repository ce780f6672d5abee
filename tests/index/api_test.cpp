// The index's bad inputs (each one a clear InvalidInput, the index left unchanged), add/remove
// bookkeeping, vocabulary checks, and queries running concurrently with adds and removes.
#include "index/index_test_support.hpp"

#include <bovw/error.hpp>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

namespace bovw::test {
namespace {

VocabularySignature signature(int words) { return {words, 64, DescriptorType::parse("surf64"), 0}; }

// Runs `call`, expecting `Exception` whose message contains every one of `parts`.
template <typename Exception, typename Call>
void expectThrowsWith(Call call, const std::vector<std::string>& parts) {
  try {
    call();
    ADD_FAILURE() << "no exception";
  } catch (const Exception& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(IndexInput, QueryBeforeAnythingIsIndexed) {
  InvertedIndex index(signature(4));
  const Counts q{1, 0, 0, 0};
  expectThrowsWith<InvalidInput>([&] { index.query(view(q), 5); }, {"index is empty"});
  const ImageId id = index.add("a", view(q));
  EXPECT_EQ(index.query(view(q), 5).size(), 1u);
  index.remove(id);
  expectThrowsWith<InvalidInput>([&] { index.query(view(q), 5, Scoring::Intersection); }, {"index is empty"});
}

TEST(IndexInput, WrongLengthHistogramsNameBothLengths) {
  InvertedIndex index(signature(4));
  const Counts three{1, 2, 3}, four{1, 0, 0, 0};
  expectThrowsWith<InvalidInput>([&] { index.add("a", view(three)); }, {"3", "4", "'a'"});
  EXPECT_EQ(index.size(), 0u);
  index.add("b", view(four));
  const Counts five{1, 0, 0, 0, 0};
  expectThrowsWith<InvalidInput>([&] { index.query(view(five), 1); }, {"5", "4", "query"});
  const Counts none;
  expectThrowsWith<InvalidInput>([&] { index.query(view(none), 1); }, {"0", "4"});
}

TEST(IndexInput, NegativeCountsEmptyNamesAndZeroTopK) {
  InvertedIndex index(signature(3));
  const Counts negative{1, -2, 0}, good{1, 2, 0};
  expectThrowsWith<InvalidInput>([&] { index.add("a", view(negative)); }, {"negative", "-2"});
  expectThrowsWith<InvalidInput>([&] { index.add("", view(good)); }, {"empty"});
  EXPECT_EQ(index.size(), 0u);
  index.add("a", view(good));
  expectThrowsWith<InvalidInput>([&] { index.query(view(negative), 1); }, {"negative"});
  expectThrowsWith<InvalidInput>([&] { index.query(view(good), 0); }, {"top_k"});
}

TEST(IndexInput, DuplicateNamesAreRefusedAndLeaveTheIndexUnchanged) {
  InvertedIndex index(signature(3));
  const Counts a{1, 0, 0}, b{0, 1, 0};
  index.add("same", view(a));
  expectThrowsWith<InvalidInput>([&] { index.add("same", view(b)); }, {"'same'", "already indexed", "id 0"});
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(index.postingCount(), 1u);
  EXPECT_TRUE(index.query(view(b), 5).empty());  // b's words were not indexed
  const ImageId next = index.add("other", view(b));
  EXPECT_EQ(next, 1u);  // the refused add used no id
}

TEST(IndexInput, ConstructorAndVocabularyChecks) {
  expectThrowsWith<InvalidInput>([] { InvertedIndex index(signature(0)); }, {"K = 0"});
  expectThrowsWith<InvalidInput>([] { InvertedIndex index(VocabularySignature{3, 0, DescriptorType::parse("x"), 0}); }, {"D = 0"});
  expectThrowsWith<CapacityError>([] { InvertedIndex index(signature((1 << 24) + 1)); }, {"16777217"});
  expectThrowsWith<InvalidInput>([] { InvertedIndex index(VocabularySignature{3, 2, DescriptorType(std::string(300, 't'), 0), 0}); },
                                 {"300"});

  Descriptors centroids(3, 2);
  centroids << 0, 0, 1, 1, 2, 2;
  const Vocabulary vocabulary(centroids, DescriptorType("surf", 2));
  InvertedIndex index(vocabulary);
  EXPECT_EQ(index.vocabulary().words, 3);
  EXPECT_EQ(index.vocabulary().dimension, 2);
  EXPECT_EQ(index.vocabulary().descriptor_type.toString(), "surf2");
  EXPECT_EQ(index.vocabulary().fingerprint, vocabulary.fingerprint());
  EXPECT_NO_THROW(index.checkVocabulary(vocabulary));
  EXPECT_NO_THROW(index.checkVocabulary(Vocabulary(centroids, DescriptorType("surf", 2))));  // equal contents, equal print

  Descriptors moved = centroids;
  moved(1, 1) = 1.5f;
  expectThrowsWith<InvalidInput>([&] { index.checkVocabulary(Vocabulary(moved, DescriptorType("surf", 2))); }, {"fingerprint"});
  expectThrowsWith<InvalidInput>([&] { index.checkVocabulary(Vocabulary(centroids, DescriptorType("sift", 2))); },
                                 {"'surf2'", "'sift2'"});
  expectThrowsWith<InvalidInput>([&] { index.checkVocabulary(Vocabulary(Descriptors::Zero(4, 2), DescriptorType("surf", 2))); },
                                 {"K = 3", "4"});
  expectThrowsWith<InvalidInput>([&] { index.checkVocabulary(VocabularySignature{3, 5, DescriptorType("surf", 2), 0}); },
                                 {"D = 2", "5"});
  // A fingerprint of 0 means "not recorded": only K, D and the type are compared.
  EXPECT_NO_THROW(index.checkVocabulary(VocabularySignature{3, 2, DescriptorType("surf", 2), 0}));
}

TEST(IndexInput, ScoringNames) {
  EXPECT_EQ(toString(Scoring::Cosine), "cosine");
  EXPECT_EQ(toString(Scoring::Intersection), "intersection");
  EXPECT_EQ(parseScoring("intersection"), Scoring::Intersection);
  EXPECT_EQ(parseScoring("cosine"), Scoring::Cosine);
  expectThrowsWith<InvalidInput>([] { parseScoring("l3"); }, {"'l3'", "cosine, intersection"});
}

TEST(IndexAddRemove, RemovedImagesAreNeverReturnedAndIdsAreNotReused) {
  InvertedIndex index(signature(3));
  const Counts a{1, 1, 0}, b{1, 0, 1}, c{0, 1, 1};
  const ImageId ia = index.add("a", view(a));
  const ImageId ib = index.add("b", view(b));
  const ImageId ic = index.add("c", view(c));
  EXPECT_EQ(index.ids(), (std::vector<ImageId>{ia, ib, ic}));
  EXPECT_EQ(index.query(view(a), 10).size(), 3u);

  index.remove("b");
  index.remove(ic);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(index.ids(), (std::vector<ImageId>{ia}));
  EXPECT_EQ(index.postingCount(), 2u);
  for (const Counts* q : {&a, &b, &c})
    for (const auto& result : index.query(view(*q), 10)) EXPECT_EQ(result.id, ia);
  EXPECT_TRUE(index.query(view(Counts{0, 0, 1}), 10).empty());  // only removed images had word 2

  expectThrowsWith<InvalidInput>([&] { index.remove("b"); }, {"no image named 'b'"});
  expectThrowsWith<InvalidInput>([&] { index.remove(ic); }, {"id 2", "removed"});
  expectThrowsWith<InvalidInput>([&] { index.remove(ImageId{77}); }, {"id 77"});
  expectThrowsWith<InvalidInput>([&] { index.name(ib); }, {"id 1"});
  EXPECT_FALSE(index.find("b").has_value());
  EXPECT_EQ(index.find("a"), ia);
  EXPECT_EQ(index.name(ia), "a");

  const ImageId again = index.add("b", view(b));  // a removed name may come back, with a new id
  EXPECT_EQ(again, 3u);
  EXPECT_EQ(index.query(view(b), 1)[0].id, again);
}

// Three threads query while one adds and removes images. Every answer must be internally
// consistent (sorted, finite, names matching ids, the query image itself first with score 1), and
// at the end the index must answer exactly like one built by the same calls on one thread.
TEST(IndexConcurrency, QueriesDuringAddsAndRemoves) {
  BOVW_SEEDED_RNG(rng);
  constexpr int kWords = 64;
  constexpr int kBase = 40;
  constexpr int kAdded = 300;
  std::vector<Counts> histograms;
  std::uniform_int_distribution<int> size(20, 120);
  for (int i = 0; i < kBase + kAdded; ++i) histograms.push_back(randomCounts(rng, kWords, size(rng)));

  InvertedIndex index(signature(kWords));
  for (int i = 0; i < kBase; ++i) index.add(imageName(i), view(histograms[i]));

  std::atomic<bool> writing{true};
  std::atomic<long> queries{0};
  std::atomic<long> during_writes{0};  // queries answered while the writer was still working
  std::atomic<int> started{0};
  std::atomic<long> problems{0};
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
    while (writing.load() || done < 50) {
      const std::size_t q = static_cast<std::size_t>((thread * 7 + done) % 4);  // base images, never removed
      const Scoring scoring = done % 2 == 0 ? Scoring::Cosine : Scoring::Intersection;
      try {
        const auto results = index.query(view(histograms[q]), 8, scoring);
        if (results.empty() || results[0].id != q || std::abs(results[0].score - 1.0) > 1e-9)
          report("query image " + std::to_string(q) + " is not first with score 1");
        for (std::size_t r = 0; r < results.size(); ++r) {
          if (!std::isfinite(results[r].score) || results[r].score <= 0 || results[r].score > 1 + 1e-9)
            report("score out of (0, 1]: " + std::to_string(results[r].score));
          if (results[r].name != imageName(results[r].id)) report("name " + results[r].name + " for id " +
                                                               std::to_string(results[r].id));
          if (r > 0 && (results[r].score > results[r - 1].score ||
                        (results[r].score == results[r - 1].score && results[r].id < results[r - 1].id)))
            report("results out of order");
        }
        if (index.size() < static_cast<std::size_t>(kBase) / 2) report("size went down unexpectedly");
      } catch (const std::exception& e) {
        report(std::string("exception: ") + e.what());
      }
      if (done++ == 0) started.fetch_add(1);
      if (writing.load()) during_writes.fetch_add(1);
    }
    queries.fetch_add(done);
  };

  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) readers.emplace_back(reader, t);
  while (started.load() < 3) std::this_thread::yield();  // the writes must meet running queries
  addAndRemove(index, histograms, kBase, kBase + kAdded, 50);
  writing.store(false);
  for (auto& t : readers) t.join();

  EXPECT_EQ(problems.load(), 0) << "first: " << first_problem;
  RecordProperty("queries", std::to_string(queries.load()));
  RecordProperty("queries_during_writes", std::to_string(during_writes.load()));
  std::printf("[ bovw     ] %ld queries, %ld of them while adds/removes ran\n", queries.load(),
              during_writes.load());
  EXPECT_GE(queries.load(), 150);

  InvertedIndex serial(signature(kWords));
  for (int i = 0; i < kBase; ++i) serial.add(imageName(i), view(histograms[i]));
  addAndRemove(serial, histograms, kBase, kBase + kAdded);
  ASSERT_EQ(index.ids(), serial.ids());
  for (std::size_t q = 0; q < histograms.size(); q += 13) {
    for (Scoring scoring : {Scoring::Cosine, Scoring::Intersection}) {
      const auto got = index.query(view(histograms[q]), 20, scoring);
      const auto expected = serial.query(view(histograms[q]), 20, scoring);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t r = 0; r < got.size(); ++r) {
        EXPECT_EQ(got[r].id, expected[r].id);
        EXPECT_EQ(got[r].score, expected[r].score);
      }
    }
  }
}

}  // namespace
}  // namespace bovw::test
