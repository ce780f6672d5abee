// LiveDatabase: random sequences of adds, puts (replacements) and removes rank exactly as a database indexed afresh from
// the final images (every scoring, scores to 1e-9), before and after reopening (also one of several
// thousand images, which opens in pieces); keypoints follow
// their images; a write that fails changes nothing; searches in other threads see whole writes
// only; damaged or foreign folders are refused naming the folder. Other processes (kill -9,
// readers, two writers) are tested through the `bovw` program (tests/cli/test_live_database.py).
#include "live/live_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/live_database.hpp>

#include <atomic>
#include <cstring>
#include <map>
#include <optional>
#include <thread>

namespace bovw::test {
namespace {

// The images a database must hold after a run of changes, each name with its words, in the order of
// their last add (a replaced image moves to the end): what a fresh index is built from.
struct ExpectedImages {
  std::map<std::string, ImageWords> words;
  std::vector<std::string> order;

  bool empty() const { return words.empty(); }
  std::size_t size() const { return words.size(); }
  // Added or put.
  void took(const std::vector<NamedImageWords>& batch) {
    for (const auto& image : batch) {
      words[image.name] = image.words;
      const auto held = std::find(order.begin(), order.end(), image.name);
      if (held != order.end()) order.erase(held);
      order.push_back(image.name);
    }
  }
  void removed(const std::vector<std::string>& names) {
    for (const auto& name : names) {
      words.erase(name);
      order.erase(std::find(order.begin(), order.end(), name));
    }
  }
  // About `share` of the names held, at least one (the database holds one).
  std::vector<std::string> someNames(std::mt19937_64& rng, double share) const {
    std::vector<std::string> names;
    for (const auto& [name, held] : words)
      if (std::bernoulli_distribution(share)(rng)) names.push_back(name);
    if (names.empty()) names.push_back(words.begin()->first);
    return names;
  }
  ImageDatabase fresh(const Vocabulary& vocabulary) const {
    ImageDatabase database(vocabulary, kSurf);
    for (const auto& name : order) database.add(name, words.at(name));
    return database;
  }
};

TEST(LiveDatabase, AddsPutsAndRemovesRankAsADatabaseIndexedAfreshFromTheFinalImages) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(17, 301)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("photos.bovwlive");
  ExpectedImages expected;
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    EXPECT_EQ(live.database().index().size(), 0u);
    int next_name = 0;
    for (int step = 0; step < 60; ++step) {
      if (expected.empty() || std::bernoulli_distribution(0.65)(rng)) {
        std::vector<NamedImageWords> batch;
        const int n = std::uniform_int_distribution<int>(1, 12)(rng);
        for (int i = 0; i < n; ++i) {
          // Now and then a name that was removed comes back.
          std::string name = "img" + std::to_string(next_name++) + ".jpg";
          batch.push_back({name, randomWords(rng, k, std::uniform_int_distribution<int>(0, 80)(rng))});
        }
        live.add(batch);
        expected.took(batch);
      } else if (std::bernoulli_distribution(0.4)(rng)) {
        // put: some names held (their images replaced, in the same write), some new.
        std::vector<NamedImageWords> batch;
        for (const auto& name : expected.someNames(rng, 0.25)) batch.push_back({name, {}});
        batch.push_back({"img" + std::to_string(next_name++) + ".jpg", {}});
        for (auto& image : batch) image.words = randomWords(rng, k, std::uniform_int_distribution<int>(0, 80)(rng));
        const std::size_t before = live.database().index().size();
        const std::size_t replaced = batch.size() - 1;
        live.put(batch);
        EXPECT_EQ(live.database().index().size(), before + 1) << replaced << " replaced";
        expected.took(batch);
      } else {
        const std::vector<std::string> names = expected.someNames(rng, 0.2);
        live.remove(names);
        expected.removed(names);
      }
      if (step % 15 == 14 && !expected.empty())  // queried between writes too (norms kept up to date)
        expectSameRankings(live.database(), expected.fresh(vocabulary), rng, k);
    }
    ASSERT_FALSE(expected.empty());
    expectSameRankings(live.database(), expected.fresh(vocabulary), rng, k);
  }
  // Reopened, it holds the same images.
  const LiveDatabase reopened = LiveDatabase::open(path);
  expectSameRankings(reopened.database(), expected.fresh(vocabulary), rng, k);
  EXPECT_EQ(reopened.generation(), 60u);
}

// Opening reads the store in pieces of 1,024 images, decoding each while the one before is applied:
// a database of several pieces, with removed ids inside pieces and at their edges, opens ranking as a
// database indexed afresh from its images.
TEST(LiveDatabase, OpensADatabaseOfManyPiecesAsIndexedAfresh) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(40, 120)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("large.bovwlive");
  std::map<std::string, ImageWords> images;
  std::vector<std::string> order;
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    const int total = std::uniform_int_distribution<int>(2100, 3500)(rng);
    for (int begin = 0; begin < total; begin += 700) {
      std::vector<NamedImageWords> batch;
      for (int i = begin; i < std::min(total, begin + 700); ++i)
        batch.push_back({"p" + std::to_string(i), randomWords(rng, k, std::uniform_int_distribution<int>(0, 60)(rng))});
      live.add(batch);
      for (const auto& image : batch) {
        images[image.name] = image.words;
        order.push_back(image.name);
      }
    }
    std::vector<std::string> gone;  // ids 0, 1023, 1024, 2047, 2048 (piece edges) and a random tenth
    for (int i = 0; i < total; ++i)
      if (i == 0 || i % 1024 == 1023 || i % 1024 == 0 || std::bernoulli_distribution(0.1)(rng))
        gone.push_back("p" + std::to_string(i));
    live.remove(gone);
    for (const auto& name : gone) {
      images.erase(name);
      order.erase(std::find(order.begin(), order.end(), name));
    }
  }
  const LiveDatabase reopened = LiveDatabase::open(path);
  ImageDatabase fresh(vocabulary, kSurf);
  for (const auto& name : order) fresh.add(name, images.at(name));
  expectSameRankings(reopened.database(), fresh, rng, k);
  for (const std::string name : {"p0", "p1023", "p1024", "p1"})
    EXPECT_EQ(reopened.database().index().find(name).has_value(), images.count(name) > 0) << name;
}

// Another process's many writes (adds, removes, names removed and added back) brought in by one
// refresh, as one change: the database then ranks as one indexed afresh from the final images.
TEST(LiveDatabase, OneRefreshBringsInManyWritesOfAnotherProcess) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 53;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
  std::vector<NamedImageWords> first;
  for (int i = 0; i < 30; ++i) first.push_back({"a" + std::to_string(i), randomWords(rng, k, 40)});
  live.add(first);
  live.database().index().query(histogramOf(first[0].words, k), 5);  // the kept norms exist
  // The other process's writes, drawn here so that both sides know them.
  std::vector<std::vector<NamedImageWords>> adds;
  std::vector<std::vector<std::string>> removes;
  for (int w = 0; w < 8; ++w) {
    adds.emplace_back();
    for (int i = 0; i < 3; ++i) adds.back().push_back({"b" + std::to_string(w) + "_" + std::to_string(i), randomWords(rng, k, 30)});
    removes.push_back({"a" + std::to_string(2 * w), "a" + std::to_string(2 * w + 1)});
  }
  adds.back().push_back({"a0", randomWords(rng, k, 25)});  // a name removed, then added back
  ASSERT_TRUE(succeedsInChildProcess([&] {
    LiveDatabase other = LiveDatabase::open(path);
    for (std::size_t w = 0; w < adds.size(); ++w) {
      other.remove(removes[w]);
      other.add(adds[w]);
    }
  }));
  // What a search calls: with no write of this process in progress it catches up like refresh().
  EXPECT_TRUE(live.refreshUnlessBusy());
  EXPECT_EQ(live.generation(), 1u + 2u * adds.size());
  ImageDatabase fresh(vocabulary, kSurf);
  for (std::size_t i = 16; i < first.size(); ++i) fresh.add(first[i].name, first[i].words);
  for (const auto& batch : adds)
    for (const auto& image : batch) fresh.add(image.name, image.words);
  expectSameRankings(live.database(), fresh, rng, k);
  EXPECT_FALSE(live.refresh());
  EXPECT_FALSE(live.refreshUnlessBusy());
}

// A Deferred open (bovw add, bovw remove) writes the store alone until its copy is needed: random
// adds, puts and removes with the store's size() and holds() following them and the same refusals
// as a loaded copy's, no copy made meanwhile (opening() stays empty); then database() ranks as a
// database indexed afresh from the final images, and so does a reopening.
TEST(LiveDatabase, DeferredOpenWritesTheStoreAloneUntilItsCopyIsNeeded) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(17, 301)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("photos.bovwlive");
  ExpectedImages expected;
  int next_name = 0;
  auto batchOf = [&](int n) {
    std::vector<NamedImageWords> batch;
    for (int i = 0; i < n; ++i)
      batch.push_back({"img" + std::to_string(next_name++) + ".jpg",
                       randomWords(rng, k, std::uniform_int_distribution<int>(0, 80)(rng))});
    return batch;
  };
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    const auto first = batchOf(std::uniform_int_distribution<int>(1, 40)(rng));
    live.add(first);
    expected.took(first);
    live.checkpoint();  // so that the copy, once made, says it was made from it
  }
  LiveDatabase live = LiveDatabase::open(path, PostingMemory::Deferred);
  EXPECT_EQ(live.vocabulary().size(), k);
  EXPECT_EQ(live.size(), expected.size());
  for (int step = 0; step < 40; ++step) {
    const int kind = std::uniform_int_distribution<int>(0, 2)(rng);
    if (kind == 0 || expected.empty()) {
      const auto batch = batchOf(std::uniform_int_distribution<int>(1, 12)(rng));
      live.add(batch);
      expected.took(batch);
    } else if (kind == 1) {
      auto batch = batchOf(1);
      for (const auto& name : expected.someNames(rng, 0.25)) batch.push_back({name, randomWords(rng, k, 20)});
      live.put(batch);
      expected.took(batch);
    } else {
      const std::vector<std::string> names = expected.someNames(rng, 0.2);
      live.remove(names);
      expected.removed(names);
    }
    ASSERT_EQ(live.size(), expected.size());
    if (!expected.empty()) {
      const std::string held = expected.order.front();
      EXPECT_TRUE(live.holds(held));
      // The refusals a loaded copy makes, from the store: nothing changes.
      expectInvalidInput([&] { live.add({{held, randomWords(rng, k, 3)}}); }, path, "already holds an image named");
    }
    expectInvalidInput([&] { live.remove({"never.jpg"}); }, path, "holds no image named 'never.jpg'");
    EXPECT_FALSE(live.holds("never.jpg"));
    ASSERT_EQ(live.size(), expected.size());
    std::vector<std::string> listed;  // by id: the order of the adds, a replaced image last
    for (const auto& [id, name] : live.names()) listed.push_back(name);
    ASSERT_EQ(listed, expected.order);
  }
  EXPECT_FALSE(live.opening().checkpoint) << "a copy was made before one was needed";
  expectSameRankings(live.database(), expected.fresh(vocabulary), rng, k);  // the copy, made now
  EXPECT_TRUE(live.opening().checkpoint);
  // Loaded, its writes reach the copy as a loaded open's do.
  const auto more = batchOf(5);
  live.add(more);
  expected.took(more);
  expectSameRankings(live.database(), expected.fresh(vocabulary), rng, k);
  EXPECT_EQ(live.size(), expected.size());
}

// A Deferred open's write that is due to write the checkpoint (here 10,000 images since the last
// one) makes the copy and writes it: the next open reads it with no write after it. And a database
// storing keypoints (no checkpoint) takes a Deferred open's writes with their keypoints.
TEST(LiveDatabase, DeferredWritesCheckpointWhenDueAndKeepKeypoints) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 50;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  LiveDatabase::create(dir.file("db"), vocabulary, kSurf);
  std::uint64_t written = 0;
  {
    LiveDatabase live = LiveDatabase::open(dir.file("db"), PostingMemory::Deferred);
    std::vector<NamedImageWords> many;
    for (int i = 0; i < 10001; ++i) many.push_back({"m" + std::to_string(i), randomWords(rng, k, 4)});
    live.add(many);
    written = live.generation();
  }
  const LiveDatabase reopened = LiveDatabase::open(dir.file("db"), PostingMemory::Mapped);
  ASSERT_TRUE(reopened.opening().checkpoint);
  EXPECT_EQ(*reopened.opening().checkpoint, written);
  EXPECT_EQ(reopened.database().index().size(), 10001u);

  DatabaseOptions options;
  options.store_keypoints = true;
  const ImageWords a = withKeypoints(rng, randomWords(rng, k, 50)), b = withKeypoints(rng, randomWords(rng, k, 30));
  LiveDatabase::create(dir.file("kp"), vocabulary, kSurf, options);
  {
    LiveDatabase live = LiveDatabase::open(dir.file("kp"), PostingMemory::Deferred);
    EXPECT_TRUE(live.storesKeypoints());
    live.add({{"a.png", a}, {"b.png", b}});
    live.remove({"a.png"});
    EXPECT_EQ(live.size(), 1u);
  }
  const LiveDatabase kp = LiveDatabase::open(dir.file("kp"));
  ImageDatabase memory(vocabulary, kSurf, options);
  const ImageId reference = memory.add("b.png", b);
  const auto id = kp.database().index().find("b.png");
  ASSERT_TRUE(id);
  const auto stored = kp.database().keypoints(*id), expected = memory.keypoints(reference);
  ASSERT_TRUE(stored && expected);
  EXPECT_EQ(stored->words, expected->words);
  EXPECT_EQ(stored->signatures, expected->signatures);
  EXPECT_FALSE(kp.database().index().find("a.png"));
}

// LiveDatabase::checkpointDue, asked before each write of a process that then opens the database
// (Deferred, as `bovw add` and `bovw remove` do), against what the write did: whether a fresh open
// after it reads a checkpoint of exactly that write. Below 10,000 images none is due; the write that
// passes 10,000 is (none yet), and so is the one that brings the changes since the last one to
// 10,000 (an eighth of so few images is less), removals counting; a checkpoint whose state is damaged
// makes the next write due whatever its size; a database storing keypoints keeps none.
TEST(LiveDatabase, CheckpointDueSaysWhichWriteWritesOne) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 50;
  const std::string path = dir.file("db");
  LiveDatabase::create(path, randomVocabulary(rng, k), kSurf);
  int named = 0;
  std::vector<std::string> held;
  const auto write = [&](std::size_t adds, std::size_t removes) {
    SCOPED_TRACE("adding " + std::to_string(adds) + ", removing " + std::to_string(removes) + " of " +
                 std::to_string(held.size()));
    const bool due = LiveDatabase::checkpointDue(path, adds, removes);
    std::uint64_t generation = 0;
    {
      LiveDatabase live = LiveDatabase::open(path, PostingMemory::Deferred);
      if (adds > 0) {
        std::vector<NamedImageWords> images;
        for (std::size_t i = 0; i < adds; ++i) images.push_back({"i" + std::to_string(named++), randomWords(rng, k, 4)});
        live.add(images);
        for (const auto& image : images) held.push_back(image.name);
      } else {
        std::shuffle(held.begin(), held.end(), rng);
        live.remove(std::vector<std::string>(held.end() - static_cast<std::ptrdiff_t>(removes), held.end()));
        held.resize(held.size() - removes);
      }
      generation = live.generation();
    }
    const LiveDatabase after = LiveDatabase::open(path, PostingMemory::Mapped);
    EXPECT_EQ(after.database().index().size(), held.size());
    const bool written = after.opening().checkpoint && *after.opening().checkpoint == generation;
    EXPECT_EQ(due, written);
    return due;
  };
  EXPECT_FALSE(write(4000, 0));
  EXPECT_FALSE(write(5000, 0));
  EXPECT_TRUE(write(1500, 0));   // 10,500 images, none checkpointed
  EXPECT_FALSE(write(6000, 0));  // 6,000 since
  EXPECT_FALSE(write(0, 3000));  // 9,000 since
  EXPECT_TRUE(write(0, 1000));   // 10,000 since
  EXPECT_FALSE(write(2000, 0));

  // The checkpoint's state made unreadable: the next write writes a new one, however small.
  std::vector<char> data = readBytes(path + "/data.mdb");
  const std::string magic = "BOVWCKPT";
  const auto state = std::search(data.begin(), data.end(), magic.begin(), magic.end());
  ASSERT_NE(state, data.end());
  *(state + 20) ^= 0x01;  // inside its generation: its checksum no longer holds
  writeBytes(path + "/data.mdb", data);
  EXPECT_TRUE(write(3, 0));
  EXPECT_FALSE(write(3, 0));

  DatabaseOptions options;
  options.store_keypoints = true;
  LiveDatabase::create(dir.file("kp"), randomVocabulary(rng, k), kSurf, options);
  EXPECT_FALSE(LiveDatabase::checkpointDue(dir.file("kp"), 20000, 0));
  expectInvalidInput([&] { LiveDatabase::checkpointDue(dir.file("none"), 1, 0); }, dir.file("none"), "");
}

TEST(LiveDatabase, KeepsKeypointsWithTheirImages) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 40;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  DatabaseOptions options;
  options.store_keypoints = true;
  const ImageWords a = withKeypoints(rng, randomWords(rng, k, 50)), b = withKeypoints(rng, randomWords(rng, k, 30));
  {
    LiveDatabase live = LiveDatabase::create(dir.file("db"), vocabulary, kSurf, options);
    live.add({{"a.png", a}, {"b.png", b}});
    live.remove({"a.png"});
  }
  const LiveDatabase live = LiveDatabase::open(dir.file("db"));
  ASSERT_TRUE(live.database().storesKeypoints());
  const auto id = live.database().index().find("b.png");
  ASSERT_TRUE(id);
  // The reference: the same image through an in-memory database (same quantisation and order).
  ImageDatabase memory(vocabulary, kSurf, options);
  const ImageId reference = memory.add("b.png", b);
  const auto stored = live.database().keypoints(*id), expected = memory.keypoints(reference);
  ASSERT_TRUE(stored && expected);
  EXPECT_EQ(stored->words, expected->words);
  EXPECT_EQ(stored->signatures, expected->signatures);
  ASSERT_EQ(stored->points.size(), expected->points.size());
  for (std::size_t i = 0; i < stored->points.size(); ++i) EXPECT_EQ(stored->points[i], expected->points[i]);
  EXPECT_FALSE(live.database().index().find("a.png"));
}

// A word seen 65,535 times or more in one image does not fit the in-memory lists' 16-bit counts: it
// is kept exactly beside them (src/index/posting_list.hpp), through the store and a reopen.
TEST(LiveDatabase, CountsBeyondSixteenBitsSurviveTheStore) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 23;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  ImageWords bursty = randomWords(rng, k, 40);
  bursty.words.insert(bursty.words.end(), 70000, 5);
  bursty.words.insert(bursty.words.end(), 65535, 9);
  const ImageWords plain = randomWords(rng, k, 60), other = randomWords(rng, k, 30);
  {
    LiveDatabase live = LiveDatabase::create(dir.file("db"), vocabulary, kSurf);
    live.add({{"bursty.png", bursty}, {"plain.png", plain}, {"other.png", other}});
  }
  const LiveDatabase live = LiveDatabase::open(dir.file("db"));
  ImageDatabase fresh(vocabulary, kSurf);
  fresh.add("bursty.png", bursty);
  fresh.add("plain.png", plain);
  fresh.add("other.png", other);
  const auto id = live.database().index().find("bursty.png");
  ASSERT_TRUE(id);
  EXPECT_EQ(live.database().index().postingCount(), fresh.index().postingCount());
  for (const ImageWords& query : {bursty, plain, randomWords(rng, k, 25)}) {
    const auto h = histogramOf(query, k);
    for (const ScoringOptions& scoring : {ScoringOptions{}, ScoringOptions{Scoring::Cosine, TermWeighting::Sqrt, 0.5}}) {
      const auto got = live.database().index().query(h, 3, scoring, QueryStrategy::Pruned);
      const auto expected = fresh.index().query(h, 3, scoring, QueryStrategy::Exhaustive);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t r = 0; r < got.size(); ++r) {
        EXPECT_EQ(got[r].name, expected[r].name);
        EXPECT_NEAR(got[r].score, expected[r].score, 1e-9) << toString(scoring);
      }
    }
  }
}

TEST(LiveDatabase, AWriteThatFailsChangesNothing) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 23;
  std::optional<LiveDatabase> opened(LiveDatabase::create(dir.file("db"), randomVocabulary(rng, k), kSurf));
  LiveDatabase& live = *opened;
  live.add({{"a.png", randomWords(rng, k, 10)}});
  // One name already held: none of the batch goes in.
  EXPECT_THROW(live.add({{"new.png", randomWords(rng, k, 5)}, {"a.png", randomWords(rng, k, 5)}}), InvalidInput);
  EXPECT_THROW(live.add({{"x.png", randomWords(rng, k, 5)}, {"x.png", randomWords(rng, k, 5)}}), InvalidInput);
  ImageWords outside;
  outside.words.push_back(k);
  EXPECT_THROW(live.add({{"y.png", outside}}), InvalidInput);
  EXPECT_THROW(live.add({{"", randomWords(rng, k, 5)}}), InvalidInput);
  // One unknown name: nothing removed.
  EXPECT_THROW(live.remove({"a.png", "nothere.png"}), InvalidInput);
  EXPECT_EQ(live.generation(), 1u);
  EXPECT_EQ(live.database().index().size(), 1u);
  EXPECT_FALSE(live.database().index().find("new.png"));
  opened.reset();  // one open per process
  const LiveDatabase reopened = LiveDatabase::open(dir.file("db"));
  EXPECT_EQ(reopened.database().index().size(), 1u);
  EXPECT_TRUE(reopened.database().index().find("a.png"));
}

TEST(LiveDatabase, SearchesInOtherThreadsSeeWholeWritesOnly) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 64;
  LiveDatabase live = LiveDatabase::create(dir.file("db"), randomVocabulary(rng, k), kSurf);
  // Write w adds four images that alone hold word w; a search for word w finds 0 or 4, never 1-3.
  std::atomic<bool> done{false};
  std::atomic<int> partial{0}, searches{0};
  std::thread reader([&] {
    while (!done) {
      for (int w = 0; w < k; ++w) {
        Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> q = Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>::Zero(k);
        q[w] = 1;
        if (live.database().index().size() == 0) continue;
        const std::size_t found = live.database().index().query(q, 10).size();
        if (found != 0 && found != 4) ++partial;
        ++searches;
      }
    }
  });
  for (int w = 0; w < k; ++w) {
    std::vector<NamedImageWords> batch;
    for (int i = 0; i < 4; ++i) {
      ImageWords words;
      words.words.assign(2, w);
      batch.push_back({"w" + std::to_string(w) + "_" + std::to_string(i), words});
    }
    live.add(batch);
  }
  done = true;
  reader.join();
  EXPECT_EQ(partial, 0);
  EXPECT_GT(searches, 0);
}

TEST(LiveDatabase, RefusesFoldersThatAreNotLiveDatabases) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  std::filesystem::create_directory(dir.file("empty"));
  expectInvalidInput([&] { LiveDatabase::open(dir.file("empty")); }, dir.file("empty"), "not a bovw live database");
  EXPECT_FALSE(std::filesystem::exists(dir.file("empty") + "/data.mdb"));  // nothing made in it
  EXPECT_FALSE(LiveDatabase::holdsLiveDatabase(dir.file("empty")));
  EXPECT_THROW(LiveDatabase::open(dir.file("missing")), Error);
  // An existing path is never written over.
  LiveDatabase::create(dir.file("db"), randomVocabulary(rng, 5), kSurf);
  EXPECT_TRUE(LiveDatabase::holdsLiveDatabase(dir.file("db")));
  EXPECT_THROW(LiveDatabase::create(dir.file("db"), randomVocabulary(rng, 5), kSurf), IoError);
  EXPECT_THROW(LiveDatabase::create(dir.file("empty"), randomVocabulary(rng, 5), kSurf), IoError);
}

// LMDB's locks are per process: a second open in the same process (by any path to the folder) is
// refused, and allowed again once the first is closed.
TEST(LiveDatabase, IsOpenedOncePerProcess) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::string path = dir.file("db");
  std::optional<LiveDatabase> first(LiveDatabase::create(path, randomVocabulary(rng, 7), kSurf));
  expectInvalidInput([&] { LiveDatabase::open(path); }, path, "open already in this process");
  std::filesystem::create_symlink(path, dir.file("link"));
  expectInvalidInput([&] { LiveDatabase::open(dir.file("link")); }, dir.file("link"), "open already in this process");
  first.reset();
  const LiveDatabase again = LiveDatabase::open(dir.file("link"));
  EXPECT_EQ(again.database().index().size(), 0u);
}

TEST(LiveDatabase, RefusesDamagedStoresNamingTheFolder) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 31;
  const std::string path = dir.file("db");
  {
    LiveDatabase live = LiveDatabase::create(path, randomVocabulary(rng, k), kSurf);
    live.add({{"a_rather_distinctive_name.png", randomWords(rng, k, 40)}});
  }
  const std::vector<char> intact = readBytes(path + "/data.mdb");
  // LMDB keeps no checksums; bovw's records carry their own. The name occurs twice: as the key of
  // its entry in the names table (after LMDB's 2-byte key length, followed by the image's id) and in
  // the image's record (after its 1-byte length, followed by the words).
  const std::string needle = "a_rather_distinctive_name.png";
  std::size_t record = 0, name = 0;
  for (std::size_t at = 4; at + needle.size() <= intact.size(); ++at)
    if (std::memcmp(intact.data() + at, needle.data(), needle.size()) == 0)
      (static_cast<std::size_t>(intact[at - 1]) == needle.size() ? record : name) = at;
  ASSERT_TRUE(record > 0 && name > 0);
  std::vector<char> damaged = intact;
  damaged[record + needle.size() + 6] ^= 0x5a;  // inside the words
  writeBytes(path + "/data.mdb", damaged);
  expectInvalidInput([&] { LiveDatabase::open(path); }, path, "checksum");
  // The name's id changed: found when the name is used.
  damaged = intact;
  damaged[name + needle.size() + 3] ^= 0x01;
  writeBytes(path + "/data.mdb", damaged);
  {
    LiveDatabase live = LiveDatabase::open(path);
    expectInvalidInput([&] { live.remove({needle}); }, path, "damaged");
  }
  // Truncated data file.
  writeBytes(path + "/data.mdb", intact.data(), intact.size() / 2);
  expectInvalidInput([&] { LiveDatabase::open(path); }, path, "truncated");
  writeBytes(path + "/data.mdb", intact);
  EXPECT_NO_THROW(LiveDatabase::open(path));
}

}  // namespace
}  // namespace bovw::test
