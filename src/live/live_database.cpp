// LiveDatabase: every write is one LMDB transaction (the images' records, their names, the change
// feed entry and the generation counter), and every process's in-memory copy is brought up to date
// by replaying the feed's entries it has not seen. A process's own writes reach its copy the same
// way, so there is one path from the store to memory.
#include <bovw/live_database.hpp>

#include "index/incremental_norms.hpp"
#include "index/index_data.hpp"
#include "index/index_editor.hpp"
#include "io/byte_order.hpp"
#include "io/vocabulary_formats.hpp"
#include "live/checkpoint.hpp"
#include "live/image_record.hpp"
#include "live/list_region.hpp"
#include "live/lmdb_store.hpp"
#include "retrieval/database_editor.hpp"

#include <bovw/error.hpp>
#include <bovw/image_names.hpp>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_set>

namespace bovw {

using live_detail::ImageRecord;
using live_detail::LmdbEnvironment;
using live_detail::LmdbTransaction;
using retrieval_detail::DatabaseChange;
using retrieval_detail::DatabaseEditor;

namespace {

constexpr std::string_view kFormat = "bovw live database 1";

// A writer writes a checkpoint (live/checkpoint.hpp) once the images added and removed since the
// last one reach an eighth of the images held, and at least kCheckpointAfter: an open then replays
// at most that share of the images from their records, while the checkpoints cost the writers about
// 8 times the index's bytes per image added (20 KB for an image of 500 words; its record is 1.5 KB).
// Small databases open fast from their records alone.
constexpr std::uint64_t kCheckpointAfter = 10000;
constexpr std::uint64_t kCheckpointShare = 8;

// Whether a write that leaves `held` images, `since` of them added or removed since the last
// checkpoint, reaches the share at which writers write one.
bool shareReached(std::uint64_t since, std::uint64_t held) {
  return since >= std::max(kCheckpointAfter, held / kCheckpointShare);
}

std::string u64Bytes(std::uint64_t value) {
  std::string bytes(8, '\0');
  detail::encodeLittleEndian(value, reinterpret_cast<unsigned char*>(bytes.data()));
  return bytes;
}

std::uint64_t u64Of(std::string_view bytes, const std::string& path, const std::string& what) {
  if (bytes.size() != 8) throw InvalidInput(path, "is damaged: its " + what + " is " + std::to_string(bytes.size()) + " bytes, not 8");
  return detail::decodeLittleEndian<std::uint64_t>(reinterpret_cast<const unsigned char*>(bytes.data()));
}

// The counter `name` of the `meta` table in `txn` (0 where it was never written).
std::uint64_t counterIn(const LmdbEnvironment& store, const LmdbTransaction& txn, const char* name) {
  const auto value = txn.get(store.tables().meta, name);
  return value ? u64Of(*value, store.path(), std::string("'") + name + "' counter") : 0;
}

std::size_t entriesIn(const LmdbEnvironment& store, const LmdbTransaction& txn, MDB_dbi table) {
  MDB_stat stat;
  store.check(mdb_stat(txn.get(), table, &stat), "counting a table's entries");
  return stat.ms_entries;
}

// Whether the checkpoint's state in `txn` is refused (its own checksum, the byte order: what an open
// would refuse it for before reading a list), or missing at `held` >= kCheckpointAfter images: the
// next write is to write one, whatever the share.
bool checkpointWanted(const LmdbEnvironment& store, const LmdbTransaction& txn, std::size_t held) {
  try {
    return !live_detail::checkpointGeneration(txn, store.tables().checkpoint, store.path()) && held >= kCheckpointAfter;
  } catch (const InvalidInput&) {
    return true;
  }
}

// A change feed entry (little-endian u32s): the count and ids of the images added, the count and ids
// of those removed, then each removed image's word count and words, so that every process takes it
// out of just those posting lists.
struct FeedEntry {
  std::vector<ImageId> added, removed;
  std::vector<std::vector<std::uint32_t>> removed_words;  // parallel to removed
};

std::string encodeFeed(const FeedEntry& entry) {
  std::string bytes;
  auto put = [&](std::uint32_t v) {
    unsigned char b[4];
    detail::encodeLittleEndian(v, b);
    bytes.append(reinterpret_cast<const char*>(b), 4);
  };
  auto list = [&](const std::vector<std::uint32_t>& values) {
    put(static_cast<std::uint32_t>(values.size()));
    for (std::uint32_t v : values) put(v);
  };
  list(entry.added);
  list(entry.removed);
  for (const auto& words : entry.removed_words) list(words);
  return bytes;
}

FeedEntry decodeFeed(std::string_view bytes, const std::string& path) {
  FeedEntry entry;
  std::size_t at = 0;
  auto take = [&]() {
    if (bytes.size() - at < 4) throw InvalidInput(path, "is damaged: a change feed entry is truncated");
    const auto v = detail::decodeLittleEndian<std::uint32_t>(reinterpret_cast<const unsigned char*>(bytes.data() + at));
    at += 4;
    return v;
  };
  auto list = [&](std::vector<std::uint32_t>& values) {
    const std::uint32_t n = take();
    if (n > (bytes.size() - at) / 4) throw InvalidInput(path, "is damaged: a change feed entry is truncated");
    for (std::uint32_t i = 0; i < n; ++i) values.push_back(take());
  };
  list(entry.added);
  list(entry.removed);
  entry.removed_words.resize(entry.removed.size());
  for (auto& words : entry.removed_words) list(words);
  if (at != bytes.size()) throw InvalidInput(path, "is damaged: a change feed entry has trailing bytes");
  return entry;
}

// What a database's settings look like in its `meta` table.
struct Settings {
  FeatureSpec features;
  Vocabulary vocabulary;
  bool keypoints;
};

void writeSettings(LmdbTransaction& txn, const live_detail::Tables& t, const ImageDatabase& database) {
  std::ostringstream vocabulary;
  detail::writeVocabularyBinary(vocabulary, database.vocabulary());
  txn.put(t.meta, "format", kFormat);
  txn.put(t.meta, "features", database.features().toString());
  txn.put(t.meta, "vocabulary", vocabulary.str());
  txn.put(t.meta, "keypoints", database.storesKeypoints() ? "1" : "0");
}

// The setting `name` of the `meta` table in `txn`; throws InvalidInput naming `path` where it has none.
std::string_view setting(const LmdbTransaction& txn, const live_detail::Tables& t, const std::string& path, const char* name) {
  const auto value = txn.get(t.meta, name);
  if (!value) throw InvalidInput(path, std::string("is not a bovw live database (no '") + name + "' setting)");
  return *value;
}

// Throws InvalidInput naming `path` unless `txn` holds a live database of the format this bovw reads.
void checkFormat(const LmdbTransaction& txn, const live_detail::Tables& t, const std::string& path) {
  const std::string_view format = setting(txn, t, path, "format");
  if (format != kFormat)
    throw InvalidInput(path, "is a live database of another format ('" + std::string(format) + "'; this bovw reads '" +
                                 std::string(kFormat) + "')");
}

Settings readSettings(const LmdbTransaction& txn, const live_detail::Tables& t, const std::string& path) {
  const auto field = [&](const char* name) { return setting(txn, t, path, name); };
  checkFormat(txn, t, path);
  const std::string_view vocabulary = field("vocabulary");
  const std::string_view keypoints = field("keypoints");
  if (keypoints != "0" && keypoints != "1") throw InvalidInput(path, "is damaged: its 'keypoints' setting is not 0 or 1");
  return namingFile(path, [&] {
    return Settings{normalizeFeatureSpec(FeatureSpec::parse(std::string(field("features")))),
                    detail::decodeVocabularyBinary(vocabulary.data(), vocabulary.size(), path + " (vocabulary)"),
                    keypoints == "1"};
  });
}

// Counts of the words an image holds, ascending; throws InvalidInput naming the image for a word
// outside the vocabulary.
std::vector<index_detail::WordCount> countWords(const NamedImageWords& image, int k) {
  std::vector<std::int32_t> sorted = image.words.words;
  std::sort(sorted.begin(), sorted.end());
  std::vector<index_detail::WordCount> words;
  for (std::size_t i = 0; i < sorted.size();) {
    const std::int32_t w = sorted[i];
    if (w < 0 || w >= k)
      throw InvalidInput("image '" + image.name + "': word " + std::to_string(w) + " outside the vocabulary's " +
                         std::to_string(k) + " words");
    const std::size_t first = i;
    while (i < sorted.size() && sorted[i] == w) ++i;
    words.push_back({static_cast<std::uint32_t>(w), static_cast<std::int32_t>(i - first)});
  }
  return words;
}

// Runs work(part) for every part in 0 .. parts - 1, one thread each (the calling thread takes part 0),
// and rethrows the first failure once all have finished.
template <typename Work>
void inParts(std::size_t parts, Work&& work) {
  std::vector<std::future<void>> others;
  for (std::size_t part = 1; part < parts; ++part) others.push_back(std::async(std::launch::async, work, part));
  work(0);
  for (auto& other : others) other.get();
}

std::size_t coreCount() { return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64); }

}  // namespace

struct LiveDatabase::Impl {
  Impl(std::unique_ptr<LmdbEnvironment> s, ImageDatabase d, PostingMemory l)
      : store(std::move(s)), lists(l), database(std::move(d)) {}
  // The copy of the lists (copyLists) is stopped between two lists, not waited for to the end (its
  // normalisers are: 1.4-2.1 s at a million images).
  ~Impl() {
    abandon = true;
    if (copying.valid()) copying.wait();
  }

  std::unique_ptr<LmdbEnvironment> store;
  PostingMemory lists;
  // The snapshot whose checkpoint the lists read in place (null when none does: opened from the
  // records, storing keypoints, or PostingMemory::Copied once copyLists is done), and where that
  // checkpoint's state lies in the map. LMDB reuses no page freed after a held snapshot, so a kept
  // one would make the file grow with every write: each refresh moves it to the newest state
  // (holdSnapshot). Declared before `database`, whose lists read it, so that it outlives them.
  std::unique_ptr<LmdbTransaction> snapshot;
  const void* snapshot_checkpoint = nullptr;
  // The memory of the lists read from the checkpoint last (live/checkpoint.hpp): those the writes
  // after it changed and, once copyLists is done (PostingMemory::Copied), the others; a region is
  // dropped once writes have copied every list of it out. Declared before `database`, whose lists
  // read them.
  std::vector<live_detail::RegionLists> regions;
  ImageDatabase database;
  std::atomic<std::uint64_t> generation{0};  // of `database`
  // Whether `database` holds the images: from the open on, except for PostingMemory::Deferred, whose
  // `database` holds the settings alone until loadLocked() (writes go to the store meanwhile).
  std::atomic<bool> loaded{false};
  Opening opening;
  bool checkpoint_due = false;                // the next write writes one, whatever changed since
  bool checkpoint_failed = false;             // this process writes none after a failure (a full disk)
  bool checkpoint_looked_at = false;          // checkCheckpointState ran (a Deferred open's first write)
  std::mutex writing;                         // one write or refresh of this process at a time
  // PostingMemory::Copied: copyLists, started once the open is done (invalid when there was nothing to
  // copy); true once every list reads the copy.
  std::shared_future<bool> copying;
  std::atomic<bool> abandon{false};  // set when the database is closed

  const std::string& path() const { return store->path(); }
  const live_detail::Tables& tables() const { return store->tables(); }

  std::uint64_t counter(const LmdbTransaction& txn, const char* name) const { return counterIn(*store, txn, name); }
  std::size_t entries(const LmdbTransaction& txn, MDB_dbi table) const { return entriesIn(*store, txn, table); }

  std::string_view storedRecord(const LmdbTransaction& txn, ImageId id) const {
    const auto bytes = txn.get(tables().images, live_detail::idKey(id));
    if (!bytes) throw InvalidInput(path(), "is damaged: image id " + std::to_string(id) + " has no record");
    return *bytes;
  }

  ImageRecord record(const LmdbTransaction& txn, ImageId id) const { return decode({id, storedRecord(txn, id)}); }

  static void addTo(DatabaseChange& change, ImageId id, ImageRecord record) {
    change.index.added.push_back({id, std::move(record.name), std::move(record.words)});
    change.keypoints.push_back(std::move(record.keypoints));
  }

  // Stored records by id, read where LMDB maps them (valid while `txn` lasts).
  using Records = std::vector<std::pair<ImageId, std::string_view>>;

  // The net effect of some writes: images added and removed in between are in neither list.
  struct Writes {
    std::vector<ImageId> added;  // ascending
    std::vector<ImageId> removed;
    std::vector<std::vector<std::uint32_t>> removed_words;  // parallel to removed
    std::uint64_t next_id = 0;                              // after them
  };

  ImageRecord decode(const std::pair<ImageId, std::string_view>& stored) const {
    return live_detail::decodeRecord(stored.second, database.vocabulary().size(),
                                     path() + " (image " + std::to_string(stored.first) + ")");
  }

  // Each word's postings in `records`, counted on every core: what lists about to take them need room
  // for, so that each is allocated once instead of growing by copies. Also by part, for a counting sort.
  // counted[part][w]: the postings of word w in part `part` of `records` (of `parts` equal parts).
  std::vector<std::vector<std::uint64_t>> countPostings(const Records& records, std::size_t parts) const {
    std::vector<std::vector<std::uint64_t>> counted(parts, std::vector<std::uint64_t>(database.vocabulary().size(), 0));
    inParts(parts, [&](std::size_t part) {
      for (std::size_t i = records.size() * part / parts; i < records.size() * (part + 1) / parts; ++i)
        for (const index_detail::WordCount& w : decode(records[i]).words) ++counted[part][w.word];
    });
    return counted;
  }

  // Adds the images of `records` (ids ascending, above every id held) in pieces of 1,024, so that
  // the decoded records never take as much memory as the index they make, each piece decoded while
  // the one before is applied (applying is most of the work: 28 ns a posting, its stores missing the
  // cache). Then the next id is `next_id`. Only for a copy no search sees yet (open()): a search
  // could see some pieces without the others.
  void addRecords(const Records& records, std::uint64_t next_id) {
    constexpr std::size_t kPiece = 1024;
    std::future<void> applying;  // the piece before, applied while the next is decoded
    std::size_t begin = 0;
    do {
      const std::size_t end = std::min(records.size(), begin + kPiece);
      DatabaseChange change;
      for (std::size_t i = begin; i < end; ++i) addTo(change, records[i].first, decode(records[i]));
      change.index.next_id = end < records.size() ? std::uint64_t{records[end - 1].first} + 1 : next_id;
      if (applying.valid()) applying.get();
      applying = std::async(std::launch::async, [this, piece = std::move(change)]() mutable {
        namingFile(path(), [&] { DatabaseEditor::apply(database, std::move(piece)); });
      });
      begin = end;
    } while (begin < records.size());
    applying.get();
  }

  // Everything in the store: what open() applies to an empty database without a checkpoint.
  void loadRecords() {
    LmdbTransaction txn(*store, false);
    Records records;
    txn.forEach(tables().images, {}, [&](std::string_view key, std::string_view bytes) {
      records.emplace_back(static_cast<ImageId>(live_detail::decodeKey(key, path())), bytes);
    });
    std::vector<std::vector<std::uint64_t>> counted = countPostings(records, coreCount());
    for (std::size_t part = 1; part < counted.size(); ++part)
      for (std::size_t w = 0; w < counted[0].size(); ++w) counted[0][w] += counted[part][w];
    DatabaseEditor::reserve(database, counted[0]);
    addRecords(records, counter(txn, "next_id"));
    DatabaseEditor::trim(database);
    if (entries(txn, tables().names) != records.size())
      throw InvalidInput(path(), "is damaged: it names " + std::to_string(entries(txn, tables().names)) + " images but holds " +
                                     std::to_string(records.size()));
    generation = counter(txn, "generation");
  }

  // `writes`, for the checkpoint to apply as it is read: the added images of `added` (their records,
  // ids ascending) with their postings by word, a counting sort on every core (each part of the
  // records counts its postings by word, then writes them where the counts of the parts before it
  // end, so each word's postings are in id order), and the removed images with the words they leave.
  live_detail::WritesAfter writesAfter(const Writes& writes, const Records& records) const {
    const std::size_t words = static_cast<std::size_t>(database.vocabulary().size());
    const std::size_t parts = coreCount();
    std::vector<std::vector<std::uint64_t>> at = countPostings(records, parts);
    live_detail::WritesAfter after;
    after.next_id = writes.next_id;
    after.removed = writes.removed;
    after.removed_from.assign(words, 0);
    for (const auto& held : writes.removed_words)
      for (std::uint32_t w : held) after.removed_from[w] = 1;
    after.starts.assign(words + 1, 0);
    std::uint64_t total = 0;
    for (std::size_t w = 0; w < words; ++w) {
      after.starts[w] = total;
      for (std::size_t part = 0; part < parts; ++part) {
        const std::uint64_t n = at[part][w];
        at[part][w] = total;  // where the part's postings of word w go
        total += n;
      }
    }
    after.starts[words] = total;
    after.memory = live_detail::HugePages(total * sizeof(live_detail::WritesAfter::Posting));
    after.postings = reinterpret_cast<live_detail::WritesAfter::Posting*>(after.memory.data());  // written whole below
    after.added.resize(records.size());
    after.names.resize(records.size());
    inParts(parts, [&](std::size_t part) {
      for (std::size_t i = records.size() * part / parts; i < records.size() * (part + 1) / parts; ++i) {
        ImageRecord record = decode(records[i]);
        for (const index_detail::WordCount& w : record.words) {
          after.postings[at[part][w.word]++] = {records[i].first, w.count};
        }
        after.added[i] = records[i].first;
        after.names[i] = std::move(record.name);
      }
    });
    return after;
  }

  // Whether the copy was made from the checkpoint and the writes after it, applied to each list as
  // it is copied. A database storing keypoints has none: its records are read for them anyway.
  bool loadCheckpoint() {
    if (database.storesKeypoints()) return false;
    auto txn = std::make_unique<LmdbTransaction>(*store, false);
    const std::uint64_t latest = counter(*txn, "generation");
    std::optional<live_detail::Checkpoint> checkpoint;
    std::shared_ptr<const index_detail::IncrementalNorms> norms;
    try {
      checkpoint = checkpointWithWritesAfter(*txn, latest, live_detail::ListReading::InPlace);
      if (!checkpoint) return false;
      norms = live_detail::readCheckpointNorms(*txn, tables().checkpoint, checkpoint->index, path());
    } catch (const InvalidInput& e) {
      opening.refused = e.what();
      return false;
    }
    regions = std::move(checkpoint->regions);
    InvertedIndex index = index_detail::IndexEditor::make(std::move(checkpoint->index));
    opening.kept_norms = norms != nullptr;
    if (norms) index_detail::IndexEditor::adoptNorms(index, std::move(norms));
    DatabaseEditor::replaceIndex(database, std::move(index));
    opening.checkpoint = checkpoint->generation;
    DatabaseEditor::trim(database);
    generation = latest;
    snapshot_checkpoint = live_detail::checkpointAddress(*txn, tables().checkpoint);
    snapshot = std::move(txn);
    return true;
  }

  // PostingMemory::Copied, beside searches and writes once the open is done: the checkpoint read
  // again with its lists copied into the process's memory (a ListRegion), put in place of the lists
  // read in LMDB's map (the same postings: searches see no change), and the snapshot they read let
  // go. The read takes no lock, so writes go on meanwhile; where one came in between, it is read
  // again, the last time holding `writing` (this process's writers wait for it then). False when
  // abandoned or it failed: the lists stay in place, as with PostingMemory::Mapped.
  bool copyLists() noexcept {
    constexpr int kTries = 3;
    try {
      // First the default scoring's normalisers where the checkpoint kept none, which the first query
      // would otherwise compute (O(postings): 1.4-2.1 s at a million images on the 2-core VM); one
      // that comes meanwhile waits for them instead of computing them beside them.
      database.index().norms({}, ScoringOptions{});
      for (int attempt = 1; attempt <= kTries && !abandon; ++attempt) {
        std::unique_lock<std::mutex> guard(writing, std::defer_lock);
        if (attempt == kTries) guard.lock();
        std::optional<live_detail::Checkpoint> checkpoint;
        std::uint64_t at;
        {
          const LmdbTransaction txn(*store, false);
          at = counter(txn, "generation");
          checkpoint = checkpointWithWritesAfter(txn, at, live_detail::ListReading::Copy, &abandon);
        }
        if (!checkpoint) return false;
        if (!guard.owns_lock()) guard.lock();
        refreshLocked();
        if (generation != at) continue;
        // Freed after the index's lock, with the snapshot they read still held.
        std::vector<index_detail::Segment> old = DatabaseEditor::replaceLists(database, std::move(checkpoint->index.segments));
        DatabaseEditor::trim(database);
        old.clear();
        regions = std::move(checkpoint->regions);
        snapshot.reset();
        snapshot_checkpoint = nullptr;
#ifdef __GLIBC__
        // The lists short enough to lie in LMDB's leaf pages were copied at the open, and are freed
        // now: their pages go back to the system instead of staying in the heap (at 100,000 images
        // 1.3 bytes a posting, a fifth of the process's own memory).
        ::malloc_trim(0);
#endif
        return true;
      }
    } catch (const std::exception&) {
    }
    return false;
  }

  // The checkpoint in `txn` with the writes after it up to `latest` (the last in `txn`) applied, its
  // unchanged lists taken as `reading` says (in place: valid while `txn` lasts); none when there is
  // no checkpoint or once `abandon` is set. Throws InvalidInput for a checkpoint that is damaged or
  // later than `latest`.
  std::optional<live_detail::Checkpoint> checkpointWithWritesAfter(const LmdbTransaction& txn, std::uint64_t latest,
                                                                   live_detail::ListReading reading,
                                                                   const std::atomic<bool>* abandon = nullptr) const {
    const auto held = live_detail::checkpointGeneration(txn, tables().checkpoint, path());
    if (!held) return std::nullopt;
    if (*held > latest)
      throw InvalidInput(path(), "its checkpoint is of write " + std::to_string(*held) + ", after the last one (" +
                                     std::to_string(latest) + ")");
    const Writes since = writesSince(txn, *held, latest);
    Records added;
    for (ImageId id : since.added) added.emplace_back(id, storedRecord(txn, id));
    const live_detail::WritesAfter after = writesAfter(since, added);
    return live_detail::readCheckpoint(txn, tables().checkpoint, database.index().vocabulary(), path(), &after, reading,
                                       abandon);
  }

  // Moves the lists read in place to `txn`, a newer snapshot whose last write the copy holds (else
  // nothing changes), and lets go of the one they were read from. Where the checkpoint is the same
  // one on the same pages that is all; where a writer replaced it since, the lists are first read again from the new one
  // (with the writes after it), in place, and put where the old ones were: the same postings, so
  // searches see no change. A new checkpoint that cannot be read, or any failure here, keeps the old
  // snapshot (and the file grows until a later refresh succeeds): it follows a committed write, which
  // must not look failed. Called holding `writing`.
  void holdSnapshot(std::unique_ptr<LmdbTransaction> txn) noexcept {
    try {
      if (!snapshot || counter(*txn, "generation") != generation) return;
      const void* checkpoint_at = live_detail::checkpointAddress(*txn, tables().checkpoint);
      if (checkpoint_at != snapshot_checkpoint) {
        std::optional<live_detail::Checkpoint> checkpoint =
            checkpointWithWritesAfter(*txn, generation, live_detail::ListReading::InPlace);
        if (!checkpoint) return;
        // Freed after the index's lock, with the snapshot and the regions they read still held.
        std::vector<index_detail::Segment> old =
            DatabaseEditor::replaceLists(database, std::move(checkpoint->index.segments));
        DatabaseEditor::trim(database);
        old.clear();
        regions = std::move(checkpoint->regions);
      }
      snapshot = std::move(txn);
      snapshot_checkpoint = checkpoint_at;
    } catch (const std::exception&) {
    }
  }

  // Makes the copy if it is not made yet (PostingMemory::Deferred). Called holding `writing`.
  void loadLocked() {
    if (loaded.load(std::memory_order_relaxed)) return;
    load();
    loaded.store(true, std::memory_order_release);
  }
  void ensureLoaded() {
    if (loaded.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> guard(writing);
    loadLocked();
  }

  // What open() does: the checkpoint and the writes after it, or every record.
  void load() {
    if (loadCheckpoint()) return;
    loadRecords();
    // One made before checkpoints existed, or whose checkpoint was refused.
    checkpoint_due = !opening.refused.empty() || database.index().size() >= kCheckpointAfter;
  }

  // Writes the checkpoint of the copy, brought up to the last write first. Called holding `writing`.
  void checkpointLocked() {
    if (database.storesKeypoints()) return;
    for (;;) {
      {
        // Before the write begins, which other processes' writers wait for: computed from every
        // posting where no query or writer of this process keeps them (1.4 s at a million images).
        const auto norms = index_detail::IndexEditor::defaultNorms(database.index());
        LmdbTransaction txn(*store, true);
        if (counter(txn, "generation") == generation) {
          live_detail::writeCheckpoint(txn, tables().checkpoint, index_detail::IndexEditor::data(database.index()),
                                       generation, counter(txn, "changes"), norms.get());
          txn.put(tables().meta, "checkpointed", u64Bytes(counter(txn, "changes")));
          txn.commit();
          checkpoint_due = false;
          if (snapshot) holdSnapshot(std::make_unique<LmdbTransaction>(*store, false));
          return;
        }
      }
      refreshLocked();  // another process wrote since: its writes go in first
    }
  }

  // Called holding `writing`. Before a Deferred open's copy is made there is none to bring up to
  // date: it will be made from the newest state.
  bool refreshLocked() {
    if (!loaded.load(std::memory_order_relaxed)) return false;
    auto held = std::make_unique<LmdbTransaction>(*store, false);
    const LmdbTransaction& txn = *held;
    const std::uint64_t latest = counter(txn, "generation");
    if (latest == generation) return false;
    if (latest < generation)
      throw InvalidInput(path(), "went back from write " + std::to_string(generation) + " to " + std::to_string(latest) +
                                     " (was the folder replaced while open?)");
    Writes writes = writesSince(txn, generation, latest);
    DatabaseChange change;  // one step: searches see the copy before all of it or after
    change.index.removed = std::move(writes.removed);
    change.index.removed_words = std::move(writes.removed_words);
    for (ImageId id : writes.added) addTo(change, id, record(txn, id));
    change.index.next_id = writes.next_id;
    namingFile(path(), [&] { DatabaseEditor::apply(database, std::move(change)); });
    generation = latest;
    holdSnapshot(std::move(held));
    releaseCopies();
    return true;
  }

  // Gives back the pages of the copied lists that no list reads any more: those the last change
  // copied out (changed lists read from memory of their own from then on). Called holding `writing`,
  // after the change: the lists that queries read are then the changed ones.
  void releaseCopies() noexcept {
    const index_detail::IndexData& data = index_detail::IndexEditor::data(database.index());
    for (live_detail::RegionLists& made : regions) {
      if (!made.region) continue;
      for (std::size_t i = 0; i < made.words.size(); ++i)
        if (made.region->holds(i) && !data.segments.front().lists[made.words[i]].readsInPlace()) made.region->release(i);
      if (made.region->held() > 0) continue;
      made.region.reset();
      made.words = {};
    }
  }

  // The writes after `from` up to `latest`, from the change feed read in `txn`.
  Writes writesSince(const LmdbTransaction& txn, std::uint64_t from, std::uint64_t latest) const {
    std::vector<ImageId> added;
    std::map<ImageId, std::vector<std::uint32_t>> removed;  // with their words
    txn.forEach(tables().changes, live_detail::generationKey(from + 1), [&](std::string_view key, std::string_view value) {
      if (live_detail::decodeKey(key, path()) > latest) return;
      FeedEntry entry = decodeFeed(value, path());
      added.insert(added.end(), entry.added.begin(), entry.added.end());
      for (std::size_t i = 0; i < entry.removed.size(); ++i) removed[entry.removed[i]] = std::move(entry.removed_words[i]);
    });
    Writes writes;
    const std::unordered_set<ImageId> fresh(added.begin(), added.end());
    for (auto& [id, words] : removed) {
      if (fresh.count(id)) continue;
      writes.removed.push_back(id);
      writes.removed_words.push_back(std::move(words));
    }
    std::sort(added.begin(), added.end());
    for (ImageId id : added)
      if (!removed.count(id)) writes.added.push_back(id);
    writes.next_id = counter(txn, "next_id");
    return writes;
  }

  // Whether the copy holds the last write committed by any process: one read of the store.
  bool upToDate() const {
    LmdbTransaction txn(*store, false);
    return counter(txn, "generation") == generation;
  }

  // Runs `write` in the store's write transaction, records `entry` as the next generation, commits
  // (durable from here on) and brings the copy up to date.
  template <typename Write>
  void commitWrite(Write&& write) {
    std::lock_guard<std::mutex> guard(writing);
    store->clearDeadReaders();
    LmdbTransaction txn(*store, true);
    FeedEntry entry;
    std::uint64_t next_id = counter(txn, "next_id");
    write(txn, entry, next_id);
    const std::uint64_t latest = counter(txn, "generation") + 1;
    const std::uint64_t changes = counter(txn, "changes") + entry.added.size() + entry.removed.size();
    txn.append(tables().changes, live_detail::generationKey(latest), encodeFeed(entry));
    txn.put(tables().meta, "generation", u64Bytes(latest));
    txn.put(tables().meta, "next_id", u64Bytes(next_id));
    txn.put(tables().meta, "changes", u64Bytes(changes));
    const std::uint64_t since = changes - counter(txn, "checkpointed");
    const std::size_t held = entries(txn, tables().names);  // the images after this write
    if (!loaded.load(std::memory_order_relaxed)) checkCheckpointState(txn, held);
    txn.commit();
    refreshLocked();
    if ((checkpoint_due || shareReached(since, held)) && !checkpoint_failed && !database.storesKeypoints()) {
      // The write is durable already: a checkpoint that fails must not make it look failed. A
      // Deferred open makes its copy for it (as of this write): the checkpoint is the index.
      try {
        loadLocked();
        checkpointLocked();
      } catch (const Error&) {
        checkpoint_failed = true;
      }
    }
  }

  // A Deferred open's writes do not read the checkpoint, but a damaged one must not stay (every open
  // would rebuild the index from the records): the first write looks at its state (its own checksum,
  // the byte order: what a copy would refuse it for before reading a list) and, where it is refused
  // or missing at kCheckpointAfter images, makes the copy to write a new one, as a loaded copy does.
  // Damage inside a list is found by the next copy made, which warns, and the write after it heals.
  void checkCheckpointState(const LmdbTransaction& txn, std::size_t held) {
    if (checkpoint_looked_at || database.storesKeypoints()) return;
    checkpoint_looked_at = true;
    if (checkpointWanted(*store, txn, held)) checkpoint_due = true;
  }

  // Removes the image `name` in the write `txn`, recording it in `entry`; false if there is none.
  bool removeIn(LmdbTransaction& txn, FeedEntry& entry, const std::string& name) {
    const auto key = txn.get(tables().names, name);
    if (!key) return false;
    const std::string id_key(*key);
    const auto id = static_cast<ImageId>(live_detail::decodeKey(id_key, path()));
    // LMDB keeps no checksums: the name's entry is checked against the record it points to.
    const ImageRecord held = record(txn, id);
    if (held.name != name)
      throw InvalidInput(path(), "is damaged: the name '" + name + "' points to image id " + std::to_string(id) +
                                     ", which holds another image");
    entry.removed.push_back(id);
    entry.removed_words.emplace_back();
    for (const index_detail::WordCount& w : held.words) entry.removed_words.back().push_back(w.word);
    txn.erase(tables().names, name);
    txn.erase(tables().images, id_key);
    return true;
  }

  // add() and put(): with `replace`, an image of a name already held takes that image's place.
  std::vector<ImageId> add(const std::vector<NamedImageWords>& images, bool replace) {
    if (images.empty()) return {};
    const int k = database.vocabulary().size();
    const retrieval_detail::KeypointStore* keypoints = DatabaseEditor::keypoints(database);
    // Everything that can be checked without the store is checked before its write starts.
    std::vector<std::string> records;
    std::unordered_set<std::string> names;
    for (const NamedImageWords& image : images) {
      if (const auto problem = imageNameProblem(image.name))
        throw InvalidInput("the image name '" + printableName(image.name) + "' " + *problem);
      if (!names.insert(image.name).second) throw InvalidInput("image '" + image.name + "' is given twice");
      ImageRecord record{image.name, countWords(image, k), std::nullopt};
      if (keypoints) record.keypoints = keypoints->prepare(image.words, image.name);
      records.push_back(live_detail::encodeRecord(record));
    }
    std::vector<ImageId> ids;
    commitWrite([&](LmdbTransaction& txn, FeedEntry& entry, std::uint64_t& next_id) {
      for (std::size_t i = 0; i < images.size(); ++i) {
        const bool held = replace ? removeIn(txn, entry, images[i].name) : txn.get(tables().names, images[i].name).has_value();
        if (held && !replace) throw InvalidInput(path(), "already holds an image named '" + images[i].name + "'");
        if (next_id >= index_detail::kMaxIds - 1)
          throw CapacityError("'" + path() + "': all " + std::to_string(index_detail::kMaxIds - 1) + " image ids are used");
        const auto id = static_cast<ImageId>(next_id++);
        txn.append(tables().images, live_detail::idKey(id), records[i]);
        txn.put(tables().names, images[i].name, live_detail::idKey(id));
        entry.added.push_back(id);
        ids.push_back(id);
      }
    });
    return ids;
  }
};

LiveDatabase::LiveDatabase(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LiveDatabase::~LiveDatabase() = default;
LiveDatabase::LiveDatabase(LiveDatabase&&) noexcept = default;
LiveDatabase& LiveDatabase::operator=(LiveDatabase&&) noexcept = default;

bool LiveDatabase::holdsLiveDatabase(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_directory(path, error) && std::filesystem::is_regular_file(path + "/data.mdb", error);
}

namespace {

// Writes a new live database at `path` with the settings of `settings` and the images of `parts`
// (in order, numbered from 0), under a temporary name renamed into place: the folder appears whole
// or not at all.
void writeNew(const std::string& path, const ImageDatabase& settings, const std::vector<const ImageDatabase*>& parts) {
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, error)))
    throw IoError("'" + path + "': exists already; a live database is made in a new folder");
  const std::string partial = path + ".partial-" + std::to_string(::getpid());
  try {
    {
      LmdbEnvironment store(partial, true);
      const auto& t = store.tables();
      LmdbTransaction txn(store, true);
      writeSettings(txn, t, settings);
      std::uint64_t next_id = 0;
      for (const ImageDatabase* part : parts) {
        const retrieval_detail::KeypointStore* keypoints = DatabaseEditor::keypoints(*part);
        for (index_detail::SparseImage& image : index_detail::IndexEditor::images(part->index())) {
          ImageRecord record{image.name, std::move(image.words), std::nullopt};
          if (keypoints) record.keypoints = keypoints->stored(image.id);
          const std::string key = live_detail::idKey(static_cast<ImageId>(next_id++));
          if (txn.get(t.names, image.name))
            throw InvalidInput(path, "cannot hold two images named '" + image.name + "'");
          txn.append(t.images, key, live_detail::encodeRecord(record));
          txn.put(t.names, image.name, key);
        }
      }
      txn.put(t.meta, "generation", u64Bytes(0));
      txn.put(t.meta, "next_id", u64Bytes(next_id));
      txn.commit();
    }
    std::filesystem::rename(partial, path);
  } catch (...) {
    std::filesystem::remove_all(partial, error);
    throw;
  }
}

}  // namespace

LiveDatabase LiveDatabase::create(const std::string& path, Vocabulary vocabulary, FeatureSpec features,
                                  DatabaseOptions options) {
  writeNew(path, ImageDatabase(std::move(vocabulary), std::move(features), options), {});
  return open(path);
}

LiveDatabase LiveDatabase::create(const std::string& path, const ImageDatabase& images) {
  writeNew(path, images, {&images});
  LiveDatabase live = open(path);
  live.checkpoint();
  return live;
}

LiveDatabase LiveDatabase::convert(const std::string& source, const std::string& path) {
  const ShardedDatabase database = ShardedDatabase::load(source);
  std::vector<const ImageDatabase*> parts;
  for (std::size_t s = 0; s < database.shardCount(); ++s) {
    if (database.shard(s).storesKeypoints() != database.shard(0).storesKeypoints())
      throw InvalidInput(source, "has shards with and without keypoints");
    parts.push_back(&database.shard(s));
  }
  writeNew(path, database.shard(0), parts);
  LiveDatabase live = open(path);
  live.checkpoint();
  return live;
}

LiveDatabase LiveDatabase::open(const std::string& path, PostingMemory lists) {
  auto store = std::make_unique<LmdbEnvironment>(path, false);
  std::optional<Settings> settings;
  {
    LmdbTransaction txn(*store, false);
    settings.emplace(readSettings(txn, store->tables(), path));
  }
  DatabaseOptions options;
  options.store_keypoints = settings->keypoints;
  ImageDatabase database = namingFile(path, [&] {
    return ImageDatabase(std::move(settings->vocabulary), std::move(settings->features), options);
  });
  auto impl = std::make_unique<Impl>(std::move(store), std::move(database), lists);
  if (lists != PostingMemory::Deferred) {
    impl->load();
    impl->loaded = true;
  }
  if (lists == PostingMemory::Copied && impl->snapshot)
    impl->copying = std::async(std::launch::async, &Impl::copyLists, impl.get()).share();
  return LiveDatabase(std::move(impl));
}

const std::string& LiveDatabase::path() const { return impl_->path(); }
// The settings never change after the open; a Deferred copy is made in the same object, whose
// vocabulary and features stay where they are.
const Vocabulary& LiveDatabase::vocabulary() const { return impl_->database.vocabulary(); }
const FeatureSpec& LiveDatabase::features() const { return impl_->database.features(); }
bool LiveDatabase::storesKeypoints() const { return impl_->database.storesKeypoints(); }

std::size_t LiveDatabase::size() const {
  const LmdbTransaction txn(*impl_->store, false);
  return impl_->entries(txn, impl_->tables().names);
}

bool LiveDatabase::holds(const std::string& name) const {
  const LmdbTransaction txn(*impl_->store, false);
  return txn.get(impl_->tables().names, name).has_value();
}

std::vector<std::pair<ImageId, std::string>> LiveDatabase::names() const {
  const LmdbTransaction txn(*impl_->store, false);
  std::vector<std::pair<ImageId, std::string>> names;
  names.reserve(impl_->entries(txn, impl_->tables().names));
  txn.forEach(impl_->tables().names, {}, [&](std::string_view name, std::string_view key) {
    names.emplace_back(static_cast<ImageId>(live_detail::decodeKey(key, impl_->path())), std::string(name));
  });
  std::sort(names.begin(), names.end());
  return names;
}

const ImageDatabase& LiveDatabase::database() const {
  impl_->ensureLoaded();
  return impl_->database;
}

std::uint64_t LiveDatabase::generation() const {
  impl_->ensureLoaded();
  return impl_->generation;
}

void LiveDatabase::checkpoint() {
  std::lock_guard<std::mutex> guard(impl_->writing);
  impl_->loadLocked();
  impl_->checkpointLocked();
}

// As the first write of a process that opened `path` now decides (commitWrite): its checkpoint_due
// is the state's (checkCheckpointState), nothing has failed yet.
bool LiveDatabase::checkpointDue(const std::string& path, std::size_t added, std::size_t removed) {
  LmdbEnvironment store(path, false);
  const LmdbTransaction txn(store, false);
  checkFormat(txn, store.tables(), path);
  if (setting(txn, store.tables(), path, "keypoints") == "1") return false;  // such a database keeps no checkpoint
  const std::size_t now = entriesIn(store, txn, store.tables().names);
  const std::size_t held = now + added - std::min(removed, now);
  const std::uint64_t since = counterIn(store, txn, "changes") + added + removed - counterIn(store, txn, "checkpointed");
  return checkpointWanted(store, txn, held) || shareReached(since, held);
}

const LiveDatabase::Opening& LiveDatabase::opening() const { return impl_->opening; }

bool LiveDatabase::waitForCopiedLists() const {
  if (impl_->lists != PostingMemory::Copied) return false;
  return !impl_->copying.valid() || impl_->copying.get();
}

// Both check without the lock first: when nothing changed, a search beside this process's writer
// must not wait for the writer's sync (LMDB's readers never wait).
bool LiveDatabase::refresh() {
  if (impl_->upToDate()) return false;
  std::lock_guard<std::mutex> guard(impl_->writing);
  return impl_->refreshLocked();
}

// The store's generation can be ahead of this copy's for a while during this process's own write
// (committed, not yet applied in memory): a search then goes on with the state before it.
bool LiveDatabase::refreshUnlessBusy() {
  if (impl_->upToDate()) return false;
  std::unique_lock<std::mutex> guard(impl_->writing, std::try_to_lock);
  return guard.owns_lock() && impl_->refreshLocked();
}

std::vector<ImageId> LiveDatabase::add(const std::vector<NamedImageWords>& images) {
  return impl_->add(images, false);
}

std::vector<ImageId> LiveDatabase::put(const std::vector<NamedImageWords>& images) {
  return impl_->add(images, true);
}

void LiveDatabase::remove(const std::vector<std::string>& names) {
  Impl& s = *impl_;
  if (names.empty()) return;
  s.commitWrite([&](LmdbTransaction& txn, FeedEntry& entry, std::uint64_t&) {
    for (const std::string& name : names)
      if (!s.removeIn(txn, entry, name)) throw InvalidInput(s.path(), "holds no image named '" + name + "'");
  });
}

}  // namespace bovw
