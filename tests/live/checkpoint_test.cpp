// A live database's checkpoint (src/live/checkpoint.hpp): a database opened from its checkpoint and
// the writes after it ranks exactly as one indexed afresh from the final images; writers write one
// on their own at the documented share of changes; a damaged checkpoint, or one of the other byte
// order, is refused by name and the records are read instead, nothing lost, and the next write
// replaces it; a writer killed with SIGKILL at random moments while it alternates adds and
// checkpoints leaves a database that opens from a checkpoint, holds each add whole or not at all,
// and ranks as indexed afresh. Lists are copied or read in place from the checkpoint
// (PostingMemory), and read in place they follow each new one without making the file grow with
// every write. The default scoring's norms it keeps are those of every posting after the writes
// after it; a checkpoint without them (written before bovw kept them) still opens.
#include "live/live_test_support.hpp"

#include "index/incremental_norms.hpp"
#include "index/index_editor.hpp"
#include "io/byte_order.hpp"
#include "live/lmdb_store.hpp"

#include <bovw/live_database.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bovw::test {
namespace {

using live_detail::LmdbEnvironment;
using live_detail::LmdbTransaction;

// The images a test's database holds, and the order they were added in (a fresh index's ids).
struct Images {
  std::map<std::string, ImageWords> words;
  std::vector<std::string> order;

  void add(const std::vector<NamedImageWords>& batch) {
    for (const auto& image : batch) {
      if (words.count(image.name)) order.erase(std::find(order.begin(), order.end(), image.name));
      words[image.name] = image.words;
      order.push_back(image.name);
    }
  }
  void remove(const std::vector<std::string>& names) {
    for (const auto& name : names) {
      words.erase(name);
      order.erase(std::find(order.begin(), order.end(), name));
    }
  }
  ImageDatabase fresh(const Vocabulary& vocabulary) const {
    ImageDatabase database(vocabulary, kSurf);
    for (const auto& name : order) database.add(name, words.at(name));
    return database;
  }
};

std::vector<NamedImageWords> randomBatch(std::mt19937_64& rng, int k, const std::string& prefix, int first, int n) {
  std::vector<NamedImageWords> batch;
  for (int i = first; i < first + n; ++i)
    batch.push_back({prefix + std::to_string(i), randomWords(rng, k, std::uniform_int_distribution<int>(0, 60)(rng))});
  return batch;
}

// Rewrites the value of `key` in the database's checkpoint table with `edit` (the database closed).
void editCheckpoint(const std::string& path, const std::string& key, const std::function<void(std::string&)>& edit) {
  LmdbEnvironment store(path, false);
  LmdbTransaction txn(store, true);
  const auto value = txn.get(store.tables().checkpoint, key);
  ASSERT_TRUE(value) << "no checkpoint entry '" << key << "'";
  std::string bytes(*value);
  edit(bytes);
  txn.put(store.tables().checkpoint, key, bytes);
  txn.commit();
}

std::string listKey(std::uint32_t word) {
  return std::string{'w', static_cast<char>(word >> 24), static_cast<char>(word >> 16 & 0xff),
                     static_cast<char>(word >> 8 & 0xff), static_cast<char>(word & 0xff)};
}

// The default scoring's norms the database's index holds are those computed afresh from its lists.
void expectNormsOfEveryPosting(const LiveDatabase& live) {
  const InvertedIndex& index = live.database().index();
  const index_detail::IncrementalNorms::Moments held = index_detail::IndexEditor::defaultNorms(index)->moments();
  const index_detail::IncrementalNorms::Moments fresh =
      index_detail::IncrementalNorms(index_detail::IndexEditor::data(index), ScoringOptions{}).moments();
  EXPECT_EQ(held.log_frequency, fresh.log_frequency);
  EXPECT_EQ(held.m0, fresh.m0);
  EXPECT_TRUE(held.m1 == fresh.m1) << "the norms' m1 differ from every posting's";
}

TEST(LiveCheckpoint, OpensFromItAndTheWritesAfterItAsIndexedAfresh) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(40, 300)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images images;
  std::uint64_t checkpointed = 0;
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    for (int b = 0; b < 4; ++b) {
      auto batch = randomBatch(rng, k, "a", b * 500, std::uniform_int_distribution<int>(1, 500)(rng));
      for (auto& image : batch)  // the last word first appears after the checkpoint: a list it has none of
        image.words.words.erase(std::remove(image.words.words.begin(), image.words.words.end(), k - 1),
                                image.words.words.end());
      live.add(batch);
      images.add(batch);
    }
    ImageWords bursty = randomWords(rng, k, 30);  // counts beyond the lists' 8- and 16-bit fields
    bursty.words.insert(bursty.words.end(), 70000, 1);
    bursty.words.insert(bursty.words.end(), 300, 2);
    live.add({{"bursty", bursty}});
    images.add({{"bursty", bursty}});
    std::vector<std::string> gone;
    for (const auto& name : images.order)
      if (std::bernoulli_distribution(0.1)(rng) && name != "bursty") gone.push_back(name);
    live.remove(gone);
    images.remove(gone);
    live.checkpoint();
    checkpointed = live.generation();
    // After it: adds, replacements and removals, some of images the checkpoint holds.
    auto more = randomBatch(rng, k, "b", 0, 300);
    more.front().words.words.insert(more.front().words.words.end(), 3, k - 1);
    live.add(more);
    images.add(more);
    std::vector<NamedImageWords> replaced;
    for (const auto& name : images.order)
      if (std::bernoulli_distribution(0.05)(rng)) replaced.push_back({name, randomWords(rng, k, 20)});
    live.put(replaced);
    images.add(replaced);
    std::vector<std::string> removed;
    for (const auto& name : images.order)
      if (std::bernoulli_distribution(0.05)(rng) && name != "bursty") removed.push_back(name);
    live.remove(removed);
    images.remove(removed);
  }
  {
    LiveDatabase reopened = LiveDatabase::open(path, PostingMemory::Mapped);
    ASSERT_EQ(reopened.opening().checkpoint, std::optional<std::uint64_t>(checkpointed)) << reopened.opening().refused;
    EXPECT_EQ(reopened.opening().refused, "");
    EXPECT_EQ(reopened.generation(), checkpointed + 3);
    // The norms it kept, brought up to the writes after it: those of every posting now.
    EXPECT_TRUE(reopened.opening().kept_norms);
    expectNormsOfEveryPosting(reopened);
    const ImageDatabase fresh = images.fresh(vocabulary);
    EXPECT_EQ(reopened.database().index().postingCount(), fresh.index().postingCount());
    expectSameRankings(reopened.database(), fresh, rng, k);
    // Its copy takes writes as one opened from the records does.
    const auto last = randomBatch(rng, k, "c", 0, 40);
    reopened.add(last);
    images.add(last);
    expectSameRankings(reopened.database(), images.fresh(vocabulary), rng, k);
  }
  const LiveDatabase again = LiveDatabase::open(path);
  expectSameRankings(again.database(), images.fresh(vocabulary), rng, k);
}

// The writes after a checkpoint can change a list's form: a word every image held falls below a sixth
// of the ids (dense to sparse), a rare one reaches a fifth (sparse to dense), a word gains large
// counts. The lists they change are made in memory of the open's own, sized from a bound of their
// bytes (live/checkpoint.cpp): an open that made a list beyond its bound would fail. Opened either
// way, the lists have their new forms and the database ranks as indexed afresh.
TEST(LiveCheckpoint, ListsWhoseFormTheWritesAfterItChangeOpenAsIndexedAfresh) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(20, 90)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  constexpr std::int32_t kEveryImage = 0, kRare = 1, kBursty = 2;
  const int before = std::uniform_int_distribution<int>(200, 400)(rng);
  Images images;
  auto image = [&](bool every, bool rare, bool bursty) {
    ImageWords words = randomWords(rng, k, std::uniform_int_distribution<int>(0, 40)(rng));
    auto& w = words.words;
    w.erase(std::remove_if(w.begin(), w.end(), [](std::int32_t x) { return x <= kBursty; }), w.end());
    if (every) w.push_back(kEveryImage);
    if (rare) w.push_back(kRare);
    if (bursty) w.insert(w.end(), 256 + rng() % 500, kBursty);
    return words;
  };
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    std::vector<NamedImageWords> batch;
    for (int i = 0; i < before; ++i) batch.push_back({"a" + std::to_string(i), image(true, i % 50 == 0, i % 7 == 0)});
    live.add(batch);
    images.add(batch);
    live.checkpoint();
    // After it: 5 x as many images, every one holding the rare word and none the common one, some
    // with large counts; a few of the first removed.
    std::vector<NamedImageWords> more;
    for (int i = 0; i < 5 * before + 10; ++i) more.push_back({"b" + std::to_string(i), image(false, true, i % 5 == 0)});
    live.add(more);
    images.add(more);
    std::vector<std::string> gone;
    for (int i = 0; i < before; i += 9) gone.push_back("a" + std::to_string(i));
    live.remove(gone);
    images.remove(gone);
  }
  for (const PostingMemory memory : {PostingMemory::Mapped, PostingMemory::Copied}) {
    SCOPED_TRACE(memory == PostingMemory::Mapped ? "mapped" : "copied");
    const ImageDatabase fresh = images.fresh(vocabulary);
    const index_detail::IndexData& fresh_data = index_detail::IndexEditor::data(fresh.index());
    LiveDatabase reopened = LiveDatabase::open(path, memory);
    reopened.waitForCopiedLists();
    ASSERT_TRUE(reopened.opening().checkpoint.has_value()) << reopened.opening().refused;
    const index_detail::IndexData& data = index_detail::IndexEditor::data(reopened.database().index());
    // The checkpoint's lists, and the added images' in a segment of their own. (A fresh index need
    // not have these forms: a list is only put in its form when it changes.)
    ASSERT_EQ(data.segments.size(), 2u);
    EXPECT_FALSE(data.segments[0].lists[kEveryImage].dense()) << "the common word's list should have turned sparse";
    EXPECT_TRUE(data.segments[1].lists[kRare].dense()) << "the added images' rare word's list should be dense";
    EXPECT_TRUE(data.segments[0].lists[kBursty].hasLargeCounts());
    EXPECT_TRUE(data.segments[1].lists[kBursty].hasLargeCounts());
    ASSERT_EQ(data.words(), fresh_data.words());
    for (std::size_t w = 0; w < data.words(); ++w) EXPECT_EQ(data.frequency(w), fresh_data.frequency(w)) << "word " << w;
    expectSameRankings(reopened.database(), fresh, rng, k);
    // Writes copy the lists they change out of the open's memory.
    const std::vector<NamedImageWords> last = {{"c" + std::to_string(static_cast<int>(memory)), image(true, true, true)}};
    reopened.add(last);
    images.add(last);
    expectSameRankings(reopened.database(), images.fresh(vocabulary), rng, k);
  }
}

// The documented rule: a write writes a checkpoint once the images added and removed since the last
// reach an eighth of the images held and at least 10,000.
TEST(LiveCheckpoint, WritersWriteOneAtTheDocumentedShareOfChanges) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 50;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images images;
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    for (int b = 0; b < 9; ++b) {  // 8 x 1,250 = 10,000 at write 8
      std::vector<NamedImageWords> batch;
      for (int i = 0; i < 1250; ++i) batch.push_back({"i" + std::to_string(b * 1250 + i), randomWords(rng, k, 3)});
      live.add(batch);
      images.add(batch);
    }
  }
  {
    const LiveDatabase live = LiveDatabase::open(path);
    EXPECT_EQ(live.opening().checkpoint, std::optional<std::uint64_t>(8));
    EXPECT_EQ(live.generation(), 9u);
    expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  }
  // Removing 1,250 more makes 2,500 since write 8: below 10,000, so still write 8's.
  {
    LiveDatabase live = LiveDatabase::open(path);
    std::vector<std::string> gone(images.order.begin(), images.order.begin() + 1250);
    live.remove(gone);
    images.remove(gone);
  }
  const LiveDatabase live = LiveDatabase::open(path);
  EXPECT_EQ(live.opening().checkpoint, std::optional<std::uint64_t>(8));
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
}

// Each way a checkpoint can be wrong is refused naming the database and the problem; the records
// are read instead (the same rankings), and the next write writes a new checkpoint.
TEST(LiveCheckpoint, ADamagedOneIsRefusedAndTheRecordsRead) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 60;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images images;
  std::uint32_t word = 0;  // one with a list
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    const auto batch = randomBatch(rng, k, "a", 0, 300);
    live.add(batch);
    images.add(batch);
    live.checkpoint();
    word = static_cast<std::uint32_t>(batch.front().words.words.empty() ? batch[1].words.words[0] : batch[0].words.words[0]);
  }
  struct Damage {
    std::string key, problem;
    std::function<void(std::string&)> edit;
  };
  const std::vector<Damage> damages = {
      {listKey(word), "checksum", [](std::string& b) { b[b.size() / 2] ^= 0x10; }},
      // Four bytes short, with a valid checksum (XXH3-64 seeded with the word): refused by the list's own checks.
      {listKey(word), "bytes where its header declares",
       [word](std::string& b) {
         b.erase(b.size() - 12, 4);
         const std::uint64_t sum = XXH3_64bits_withSeed(b.data(), b.size() - 8, word);
         detail::encodeLittleEndian(sum, reinterpret_cast<unsigned char*>(&b[b.size() - 8]));
       }},
      {"names", "names do not match", [](std::string& b) { b[b.size() - 1] ^= 0x01; }},
      {"norms", "norms do not match their checksum", [](std::string& b) { b[b.size() / 2] ^= 0x04; }},
      // Another write's norms, with a valid checksum.
      {"norms", "norms are of another state",
       [](std::string& b) {
         b[0] ^= 0x01;
         detail::encodeLittleEndian(XXH3_64bits(b.data(), b.size() - 8), reinterpret_cast<unsigned char*>(&b[b.size() - 8]));
       }},
      {"state", "state does not match", [](std::string& b) { b[20] ^= 0x01; }},
      // The other byte order, with a valid checksum: as a host of that order wrote it.
      {"state", "other byte order",
       [](std::string& b) {
         std::reverse(b.begin() + 12, b.begin() + 16);
         detail::encodeLittleEndian(XXH3_64bits(b.data(), b.size() - 8), reinterpret_cast<unsigned char*>(&b[b.size() - 8]));
       }},
  };
  int generation = 1;
  for (const Damage& damage : damages) {
    SCOPED_TRACE(damage.problem);
    editCheckpoint(path, damage.key, damage.edit);
    {
      LiveDatabase live = LiveDatabase::open(path);
      EXPECT_FALSE(live.opening().checkpoint);
      EXPECT_NE(live.opening().refused.find(path), std::string::npos) << live.opening().refused;
      EXPECT_NE(live.opening().refused.find(damage.problem), std::string::npos) << live.opening().refused;
      expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
      const auto one = randomBatch(rng, k, "d", generation, 1);  // the next write replaces it
      live.add(one);
      images.add(one);
      ++generation;
    }
    const LiveDatabase live = LiveDatabase::open(path);
    EXPECT_EQ(live.opening().checkpoint, std::optional<std::uint64_t>(generation));
    EXPECT_EQ(live.opening().refused, "");
    expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  }
}

// Makes a live database at `path` of `count` images of 1 to `most` words (in one add, into `images`)
// and writes its checkpoint.
void makeCheckpointed(const std::string& path, const Vocabulary& vocabulary, int count, int most,
                      std::mt19937_64& rng, Images& images) {
  const int k = vocabulary.size();
  LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
  std::vector<NamedImageWords> batch;
  for (int i = 0; i < count; ++i)
    batch.push_back({"a" + std::to_string(i), randomWords(rng, k, std::uniform_int_distribution<int>(1, most)(rng))});
  live.add(batch);
  images.add(batch);
  live.checkpoint();
}

// A checkpoint written before bovw kept the norms (no "norms" entry) opens from it as before; the
// first query computes them, and the next checkpoint keeps them.
TEST(LiveCheckpoint, OneWithoutNormsOpensAndTheNextKeepsThem) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(30, 200)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images images;
  makeCheckpointed(path, vocabulary, 400, 60, rng, images);
  {
    LmdbEnvironment store(path, false);
    LmdbTransaction txn(store, true);
    ASSERT_TRUE(txn.erase(store.tables().checkpoint, "norms"));
    txn.commit();
  }
  {
    LiveDatabase live = LiveDatabase::open(path);
    ASSERT_TRUE(live.opening().checkpoint) << live.opening().refused;
    EXPECT_EQ(live.opening().refused, "");
    EXPECT_FALSE(live.opening().kept_norms);
    expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
    const auto more = randomBatch(rng, k, "b", 0, 50);
    live.add(more);
    images.add(more);
    live.checkpoint();
  }
  const LiveDatabase live = LiveDatabase::open(path);
  EXPECT_TRUE(live.opening().kept_norms);
  expectNormsOfEveryPosting(live);
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
}

// The database's posting lists that are read in place (from LMDB's map, or the process's copy of
// the checkpoint), not from memory of their own.
std::size_t listsReadInPlace(const LiveDatabase& live) {
  std::size_t n = 0;
  index_detail::IndexEditor::data(live.database().index()).forEachList([&](std::size_t, const index_detail::PostingList& l) {
    n += l.readsInPlace() ? 1 : 0;
  });
  return n;
}
// The words whose lists are read in place, of any segment.
std::set<std::int32_t> wordsReadInPlace(const LiveDatabase& live) {
  std::set<std::int32_t> words;
  index_detail::IndexEditor::data(live.database().index()).forEachList([&](std::size_t w, const index_detail::PostingList& l) {
    if (l.readsInPlace()) words.insert(static_cast<std::int32_t>(w));
  });
  return words;
}
bool readsListsInPlace(const LiveDatabase& live) { return listsReadInPlace(live) > 0; }

// Opened with PostingMemory::Mapped, a database reads the checkpoint's lists in place (Copied, the
// default, does so too until it has copied them into a region of its own: the tests after this one);
// writes copy the lists they change; a new
// checkpoint, this process's or another's (a child process writes one while this one holds the
// old), moves the lists onto it, in place again. Rankings as indexed afresh throughout.
TEST(LiveCheckpoint, ListsAreReadInPlaceAndFollowEachNewCheckpoint) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(20, 40)(rng);  // long lists: on LMDB's own pages
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images images;
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    const auto batch = randomBatch(rng, k, "a", 0, 3001);
    live.add(batch);
    images.add(batch);
    live.checkpoint();
  }
  LiveDatabase live = LiveDatabase::open(path, PostingMemory::Mapped);
  ASSERT_TRUE(live.opening().checkpoint) << live.opening().refused;
  const std::set<std::int32_t> at_open = wordsReadInPlace(live);
  EXPECT_FALSE(at_open.empty());
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  // Writes of this process: the added images' lists are made beside the checkpoint's, which stay in
  // place; a removal copies the lists it changes, those of the removed images' words.
  const auto more = randomBatch(rng, k, "b", 0, 40);
  live.add(more);
  images.add(more);
  EXPECT_EQ(wordsReadInPlace(live), at_open);
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  const std::vector<std::string> gone(images.order.begin() + 5, images.order.begin() + 9);
  std::set<std::int32_t> kept = at_open;
  for (const std::string& name : gone)
    for (std::int32_t w : images.words.at(name).words) kept.erase(w);
  live.remove(gone);
  images.remove(gone);
  EXPECT_EQ(wordsReadInPlace(live), kept);
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  live.checkpoint();
  EXPECT_TRUE(readsListsInPlace(live));
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  // Another process's checkpoint, and writes after it, while this one holds the old one's pages.
  const auto before = randomBatch(rng, k, "c", 0, 100);
  const std::vector<NamedImageWords> after = {{"d", randomWords(rng, k, 3)}};
  ASSERT_TRUE(succeedsInChildProcess([&] {
    LiveDatabase other = LiveDatabase::open(path, PostingMemory::Mapped);
    other.add(before);
    other.checkpoint();
    other.add(after);
  }));
  images.add(before);
  images.add(after);
  EXPECT_TRUE(live.refresh());
  EXPECT_TRUE(readsListsInPlace(live));
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
}

// Opened with PostingMemory::Copied, the lists are read in place from the process's copy of them
// (live/list_region.hpp), many small lists to a page; each write copies out the lists it changes
// and the copy's pages that no list reads any more are given back. Rankings as indexed afresh after
// every write: a page given back while a list still read it would read as zeros.
TEST(LiveCheckpoint, CopiedListsGiveBackTheirPagesAsWritesChangeThem) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  // Lists from a few bytes (tens to a page) to a few pages (the common words').
  const int k = std::uniform_int_distribution<int>(300, 600)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images images;
  makeCheckpointed(path, vocabulary, 6000, 40, rng, images);
  LiveDatabase live = LiveDatabase::open(path);
  ASSERT_TRUE(live.opening().checkpoint) << live.opening().refused;
  ASSERT_TRUE(live.waitForCopiedLists());
  const auto& lists = index_detail::IndexEditor::data(live.database().index()).segments.front().lists;
  const auto nonEmpty = static_cast<std::size_t>(std::count_if(lists.begin(), lists.end(), [](const auto& l) { return !l.empty(); }));
  EXPECT_EQ(listsReadInPlace(live), nonEmpty);
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  // Writes of images of a few rare words, made beside the checkpoint's lists, and removals of the
  // checkpoint's images, each of which copies the lists of its words out of the region: the other
  // lists stay in the copy, beside pages given back.
  std::uniform_int_distribution<int> rare(k / 2, k - 1);
  for (int write = 0; write < 12; ++write) {
    if (write % 3 == 2) {
      std::size_t i = 0;  // the first image left with words (at most 40 of them: k >= 300 stay in place)
      while (images.words.at(images.order[i]).words.empty()) ++i;
      const std::vector<std::string> gone{images.order[i]};
      live.remove(gone);
      images.remove(gone);
    } else {
      std::vector<NamedImageWords> batch;
      for (int i = 0; i < 3; ++i) {
        ImageWords words;
        for (int j = std::uniform_int_distribution<int>(1, 4)(rng); j > 0; --j) words.words.push_back(rare(rng));
        batch.push_back({"w" + std::to_string(write) + "-" + std::to_string(i), words});
      }
      live.put(batch);
      images.add(batch);
    }
    expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  }
  EXPECT_GT(listsReadInPlace(live), 0u);
  EXPECT_LT(listsReadInPlace(live), nonEmpty);
  // A removal of many images, which passes over every list: every list copied out of the region.
  const std::vector<std::string> many(images.order.begin(), images.order.begin() + 20);
  live.remove(many);
  images.remove(many);
  EXPECT_EQ(listsReadInPlace(live), 0u);
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
}

// A PostingMemory::Copied open is searchable at once, its lists read in LMDB's map while a thread
// copies them and puts the copy in their place: writes and searches right after the open, during
// the copy, rank as indexed afresh, before, during and after the copy is put in place (each write
// that lands during the copy makes it read the checkpoint again); a database closed during its copy
// stops it. Timing decides where the copy lands among the writes: run often, it lands everywhere.
TEST(LiveCheckpoint, CopiedOpenSearchesAndWritesWhileItCopies) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = std::uniform_int_distribution<int>(200, 500)(rng);
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images images;
  makeCheckpointed(path, vocabulary, 8000, 60, rng, images);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    LiveDatabase live = LiveDatabase::open(path);
    ASSERT_TRUE(live.opening().checkpoint) << live.opening().refused;
    for (int write = 0; write < 4; ++write) {
      std::vector<NamedImageWords> batch;
      for (int i = 0; i < 3; ++i)
        batch.push_back({"r" + std::to_string(round) + "-" + std::to_string(write) + "-" + std::to_string(i),
                         randomWords(rng, k, std::uniform_int_distribution<int>(1, 60)(rng))});
      live.put(batch);
      images.add(batch);
      const std::vector<std::string> gone{images.order[std::uniform_int_distribution<std::size_t>(0, 999)(rng)]};
      live.remove(gone);
      images.remove(gone);
      expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
    }
    EXPECT_TRUE(live.waitForCopiedLists());
    expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
  }
  // Closed at once, often: the copy stopped, nothing changed.
  for (int i = 0; i < 20; ++i) LiveDatabase::open(path);
  const LiveDatabase live = LiveDatabase::open(path, PostingMemory::Mapped);
  EXPECT_FALSE(live.waitForCopiedLists());
  expectSameRankings(live.database(), images.fresh(vocabulary), rng, k);
}

// LMDB reuses no page freed after a snapshot someone holds: lists read in place hold one, which
// each write moves on, so that a writer's durable writes reuse the pages of those before them
// instead of making the file grow by every page they copy (about ten pages, 40 KB, a write); and a
// reader killed while holding one does not hold it for ever.
TEST(LiveCheckpoint, ListsReadInPlaceDoNotMakeTheFileGrowWithEveryWrite) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 30;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    live.add(randomBatch(rng, k, "a", 0, 3000));
    live.checkpoint();
  }
  LiveDatabase live = LiveDatabase::open(path, PostingMemory::Mapped);
  ASSERT_TRUE(readsListsInPlace(live));
  // Another reader that holds its snapshot and is killed with -9: its reader slot stays taken until a
  // writer clears the slots of dead processes.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t reader = ::fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    try {
      const LiveDatabase other = LiveDatabase::open(path, PostingMemory::Mapped);
      if (::write(ready[1], "r", 1) != 1) ::_exit(1);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(1);
    }
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ::close(ready[1]);
  ::kill(reader, SIGKILL);
  ASSERT_EQ(::waitpid(reader, nullptr, 0), reader);
  const auto file = path + "/data.mdb";
  const auto size_before = std::filesystem::file_size(file);
  const int writes = 300;
  for (int i = 0; i < writes; ++i) live.add(randomBatch(rng, k, "w", i, 1));
  const auto grown = std::filesystem::file_size(file) - size_before;
  std::printf("data file grown by %ju bytes over %d writes of one image\n", static_cast<std::uintmax_t>(grown), writes);
  EXPECT_LT(grown, std::uintmax_t{writes} * 4096) << "more than a page a write";
}

// A writer that alternates adds and checkpoints, killed at random moments: every add it finished is
// there, the one it was in is whole or absent, and the database opens from a checkpoint that was
// never left half-written.
TEST(LiveCheckpoint, AWriterKilledWhileWritingOneLeavesTheOneBefore) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 200;
  const Vocabulary vocabulary = randomVocabulary(rng, k);
  const std::string path = dir.file("db");
  Images base;
  {
    LiveDatabase live = LiveDatabase::create(path, vocabulary, kSurf);
    const auto batch = randomBatch(rng, k, "base", 0, 3000);
    live.add(batch);
    base.add(batch);
    live.checkpoint();
  }
  // The writer's adds, drawn here so that both sides know them: add i holds images c<i>_0..2.
  std::vector<std::vector<NamedImageWords>> adds;
  for (int i = 0; i < 400; ++i) adds.push_back(randomBatch(rng, k, "c" + std::to_string(i) + "_", 0, 3));
  // The writer, in a child process: opens the database, then adds the adds it does not hold yet,
  // each followed by a checkpoint, up to `limit` of them.
  auto startWriter = [&](std::size_t limit) {
    const pid_t child = ::fork();
    if (child == 0) {
      try {
        LiveDatabase live = LiveDatabase::open(path, PostingMemory::Mapped);
        for (std::size_t i = 0, added = 0; i < adds.size() && added < limit; ++i) {
          if (live.database().index().find(adds[i][0].name)) continue;
          live.add(adds[i]);
          live.checkpoint();
          ++added;
        }
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    return child;
  };
  // How long a writer takes from its start to its first add and checkpoint (the fork's cost
  // included, most of it on some machines): the kills land within a few of them.
  const auto started = std::chrono::steady_clock::now();
  const pid_t timed = startWriter(1);
  ASSERT_GE(timed, 0);
  int timed_status = -1;
  ASSERT_EQ(::waitpid(timed, &timed_status, 0), timed);
  ASSERT_TRUE(WIFEXITED(timed_status) && WEXITSTATUS(timed_status) == 0);
  const double cycle = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  int killed_writing = 0;
  std::size_t completed = 1;  // adds known to be in (at least)
  for (int trial = 0; trial < 12; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const pid_t child = startWriter(adds.size());
    ASSERT_GE(child, 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(std::uniform_real_distribution<double>(0, 4 * cycle)(rng)));
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) << "the writer failed";
    killed_writing += WIFSIGNALED(status);
    const LiveDatabase live = LiveDatabase::open(path, trial % 2 ? PostingMemory::Mapped : PostingMemory::Copied);
    EXPECT_TRUE(live.opening().checkpoint) << live.opening().refused;
    EXPECT_EQ(live.opening().refused, "");
    // The adds present are a prefix of the writer's, each whole.
    Images expected = base;
    std::size_t present = 0;
    while (present < adds.size() && live.database().index().find(adds[present][0].name)) ++present;
    EXPECT_GE(present, completed);
    for (std::size_t i = 0; i < adds.size(); ++i)
      for (const auto& image : adds[i])
        ASSERT_EQ(live.database().index().find(image.name).has_value(), i < present) << image.name;
    for (std::size_t i = 0; i < present; ++i) expected.add(adds[i]);
    completed = present;
    ASSERT_EQ(live.database().index().size(), expected.order.size());
    expectSameRankings(live.database(), expected.fresh(vocabulary), rng, k);
  }
  EXPECT_GT(killed_writing, 0);
  std::printf("checkpoint kills: %d of 12 trials killed the writer; %zu adds in\n", killed_writing, completed);
}

}  // namespace
}  // namespace bovw::test
