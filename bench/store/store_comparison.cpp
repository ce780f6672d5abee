// `bovw-store-bench`: the two candidate stores of the live database (issue 21), LMDB and SQLite in WAL
// mode, measured on the live database's own access pattern; docs/STORAGE.md is written from its output.
// It measures the stores only, so it links them and not the bovw library.
//
// The program reads top to bottom: synthetic images, their durable records, the two store adapters
// behind one interface, the measurements (rates, sizes, open + load, a reader beside a writer, damaged
// files), and the report.
#include <CLI/CLI.hpp>
#include <lmdb.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Synthetic images, as in issue 21: K words, each image 500 distinct words drawn with popularity
// 1/rank^0.8, counts 1 + geometric(0.6). An image is a pure function of its id, so a reader process
// and the damage check can regenerate what was written without being told.

constexpr uint32_t kWords = 65536;
constexpr int kWordsPerImage = 500;
constexpr double kZipfExponent = 0.8;
constexpr double kGeometricP = 0.6;

// SplitMix64: a tiny generator that is cheap to seed per image (mt19937_64's seeding alone would cost
// seconds at a million images).
struct SplitMix64 {
  using result_type = uint64_t;
  uint64_t state;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t{0}; }
  uint64_t operator()() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Walker's alias method: one draw from the 65,536-word popularity law in O(1), so that generating a
// million images takes seconds. Ranks map to word ids through a fixed permutation: in a trained
// vocabulary the popular words are scattered over the ids, which matters for the delta encoding.
class WordSampler {
 public:
  WordSampler() : probability_(kWords), alias_(kWords), word_of_rank_(kWords) {
    std::vector<double> weight(kWords);
    for (uint32_t r = 0; r < kWords; ++r) weight[r] = 1.0 / std::pow(r + 1.0, kZipfExponent);
    const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
    std::vector<uint32_t> small, large;
    for (uint32_t r = 0; r < kWords; ++r) {
      weight[r] *= kWords / total;
      (weight[r] < 1.0 ? small : large).push_back(r);
    }
    while (!small.empty() && !large.empty()) {
      const uint32_t s = small.back(), l = large.back();
      small.pop_back();
      probability_[s] = weight[s];
      alias_[s] = l;
      weight[l] -= 1.0 - weight[s];
      if (weight[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (uint32_t r : small) probability_[r] = 1.0;
    for (uint32_t r : large) probability_[r] = 1.0;
    std::iota(word_of_rank_.begin(), word_of_rank_.end(), 0u);
    std::shuffle(word_of_rank_.begin(), word_of_rank_.end(), SplitMix64{20261126});
  }
  uint32_t draw(SplitMix64& rng) const {
    const uint64_t bits = rng();
    const uint32_t column = static_cast<uint32_t>(bits & (kWords - 1));
    const double u = static_cast<double>(bits >> 11 & ((1ull << 53) - 1)) * 0x1p-53;  // bits 11..63
    return word_of_rank_[u < probability_[column] ? column : alias_[column]];
  }

 private:
  std::vector<double> probability_;
  std::vector<uint32_t> alias_;
  std::vector<uint32_t> word_of_rank_;
};

struct Pair {
  uint32_t word;
  uint32_t count;
  bool operator==(const Pair& o) const { return word == o.word && count == o.count; }
};

struct Image {
  std::string name;
  std::vector<Pair> pairs;  // sorted by word, words distinct
};

const WordSampler& sampler() {
  static const WordSampler instance;
  return instance;
}

std::string imageName(uint32_t id) {
  char name[32];
  std::snprintf(name, sizeof name, "images/%06u.jpg", id);
  return name;
}

Image makeImage(uint32_t id) {
  SplitMix64 rng{0xB0B0'0000'0000ull + id};
  std::geometric_distribution<uint32_t> extra(kGeometricP);
  std::vector<bool> seen(kWords);
  Image image{imageName(id), {}};
  image.pairs.reserve(kWordsPerImage);
  while (image.pairs.size() < kWordsPerImage) {
    const uint32_t word = sampler().draw(rng);
    if (seen[word]) continue;
    seen[word] = true;
    image.pairs.push_back({word, 1 + extra(rng)});
  }
  std::sort(image.pairs.begin(), image.pairs.end(), [](Pair a, Pair b) { return a.word < b.word; });
  return image;
}

// ---------------------------------------------------------------------------------------------
// The durable record of an image: its name and its sparse histogram. Two encodings, because record
// size decides where each store puts a record: "raw" (u32 pairs, about 4,030 bytes) is just under a
// 4 KiB page, so LMDB gives each its own overflow page and SQLite its own leaf page (its largest cell
// on a 4 KiB page is 4,061 bytes); "compact" (varint word deltas and counts, about 1,200 bytes) is
// stored inline, two or three to a leaf page, in both.

enum class Encoding { Raw, Compact };
const char* encodingName(Encoding e) { return e == Encoding::Raw ? "raw" : "compact"; }

void putU32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void putVarint(std::string& out, uint32_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::string encode(const Image& image, Encoding encoding) {
  std::string out;
  if (encoding == Encoding::Raw) {
    out.reserve(8 + image.name.size() + 8 * image.pairs.size());
    putU32(out, static_cast<uint32_t>(image.name.size()));
    out += image.name;
    putU32(out, static_cast<uint32_t>(image.pairs.size()));
    for (const Pair& p : image.pairs) {
      putU32(out, p.word);
      putU32(out, p.count);
    }
  } else {
    putVarint(out, static_cast<uint32_t>(image.name.size()));
    out += image.name;
    putVarint(out, static_cast<uint32_t>(image.pairs.size()));
    uint32_t previous = 0;
    for (const Pair& p : image.pairs) {
      putVarint(out, p.word - previous);  // the first word is its own delta from 0
      putVarint(out, p.count - 1);
      previous = p.word;
    }
  }
  return out;
}

// Reads a record back, checking everything the bytes could get wrong (lengths past the end, words out
// of order or out of range, zero counts, bytes left over): what the live database must do at open to
// refuse a damaged record instead of indexing garbage.
class RecordReader {
 public:
  RecordReader(std::string_view bytes, Encoding encoding) : bytes_(bytes), encoding_(encoding) {}

  std::string_view name() {
    const uint32_t length = length32();
    if (length == 0 || length > 4096 || length > remaining()) fail("bad name length");
    const std::string_view name = bytes_.substr(at_, length);
    at_ += length;
    return name;
  }

  void pairs(std::vector<Pair>& out) {
    const uint32_t n = length32();
    if (n > kWords) fail("more pairs than words");
    out.resize(n);
    uint32_t word = 0;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t count;
      if (encoding_ == Encoding::Raw) {
        word = u32();
        count = u32();
      } else {
        const uint32_t delta = varint();
        if (i > 0 && delta == 0) fail("words not increasing");
        word += delta;
        count = varint() + 1;
      }
      if (word >= kWords || count == 0 || (i > 0 && word <= out[i - 1].word)) fail("bad pair");
      out[i] = {word, count};
    }
    if (at_ != bytes_.size()) fail("bytes after the histogram");
  }

 private:
  size_t remaining() const { return bytes_.size() - at_; }
  [[noreturn]] void fail(const char* problem) const {
    throw std::runtime_error(std::string("record malformed: ") + problem);
  }
  uint32_t length32() { return encoding_ == Encoding::Raw ? u32() : varint(); }
  uint32_t u32() {
    if (remaining() < 4) fail("truncated");
    uint32_t v;
    std::memcpy(&v, bytes_.data() + at_, 4);
    at_ += 4;
    return v;
  }
  uint32_t varint() {
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (remaining() < 1) fail("truncated");
      const auto byte = static_cast<uint8_t>(bytes_[at_++]);
      v |= static_cast<uint32_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    fail("varint too long");
  }

  std::string_view bytes_;
  Encoding encoding_;
  size_t at_ = 0;
};

// The change feed's entry of one write transaction: (op, id) for each change, 5 bytes each.
std::string feedEntry(char op, const std::vector<uint32_t>& ids) {
  std::string out;
  for (uint32_t id : ids) {
    out.push_back(op);
    putU32(out, id);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The store interface: exactly the live database's transactions. Every write transaction touches the
// images table (id -> record), the names table (name -> id), appends one change-feed entry
// (generation -> list of (op, id)) and rewrites the meta row holding the generation counter; it is
// durable when the call returns.

struct NewImage {
  uint32_t id;
  std::string name;
  std::string record;
};

class Store {
 public:
  virtual ~Store() = default;
  virtual void add(const std::vector<NewImage>& batch) = 0;
  // Reads each record (the live database must know the image to take it out of its in-memory index),
  // deletes record and name, appends the feed entry.
  virtual void remove(const std::vector<uint32_t>& ids) = 0;
  // Every record in id order, in one read transaction; `bytes` is valid during the call only.
  virtual void scan(const std::function<void(uint32_t id, std::string_view bytes)>& visit) = 0;
  // One reader's transaction: the generation, then the records of `ids`, each touched in its middle
  // (LMDB hands out a pointer into its map: the page is read only when touched). Returns the
  // generation the transaction saw, and a sum of the bytes touched so that nothing is optimised away.
  struct Probe {
    uint64_t generation;
    uint64_t touched;
  };
  virtual Probe probe(const std::vector<uint32_t>& ids) = 0;
  // Times a reader waited for a lock during probe() (SQLite's busy handler; LMDB readers take none).
  virtual uint64_t readerWaits() const { return 0; }
};

enum class Kind { Lmdb, Sqlite };
const char* kindName(Kind k) { return k == Kind::Lmdb ? "lmdb" : "sqlite"; }

std::string nameInRecord(std::string_view bytes, Encoding encoding) {
  return std::string(RecordReader(bytes, encoding).name());
}

// ---- LMDB: one environment directory (data.mdb + lock.mdb), four named databases. Default flags:
// every commit is synchronous (no MDB_NOSYNC / MDB_NOMETASYNC), as the live database will run it.

void lmdbCheck(int rc, const char* call) {
  if (rc != MDB_SUCCESS) throw std::runtime_error(std::string(call) + ": " + mdb_strerror(rc));
}

class LmdbTxn {  // aborts unless committed, so an exception never leaves a transaction open
 public:
  LmdbTxn(MDB_env* env, unsigned flags) { lmdbCheck(mdb_txn_begin(env, nullptr, flags, &txn_), "mdb_txn_begin"); }
  ~LmdbTxn() {
    if (txn_) mdb_txn_abort(txn_);
  }
  LmdbTxn(const LmdbTxn&) = delete;
  LmdbTxn& operator=(const LmdbTxn&) = delete;
  MDB_txn* get() const { return txn_; }
  void commit() {
    MDB_txn* txn = std::exchange(txn_, nullptr);
    lmdbCheck(mdb_txn_commit(txn), "mdb_txn_commit");
  }

 private:
  MDB_txn* txn_ = nullptr;
};

// --lmdb-append: put new images with MDB_APPEND. Ids only grow (the live database counts them), and
// appending fills leaf pages completely instead of splitting them in half; off by default, as a plain
// put is what a first implementation writes.
bool lmdb_append_images = false;

MDB_val val(const void* data, size_t size) { return MDB_val{size, const_cast<void*>(data)}; }
MDB_val val(std::string_view s) { return val(s.data(), s.size()); }
std::string_view view(const MDB_val& v) { return {static_cast<const char*>(v.mv_data), v.mv_size}; }

class LmdbStore final : public Store {
 public:
  // check_size: refuse a data file shorter than the last page its meta page names. LMDB does not check
  // this itself, and reading a page past the end of a mapped file is SIGBUS (see the damage tests).
  LmdbStore(const fs::path& dir, Encoding encoding, bool check_size) : encoding_(encoding) {
    fs::create_directories(dir);
    lmdbCheck(mdb_env_create(&env_), "mdb_env_create");
    try {
      lmdbCheck(mdb_env_set_maxdbs(env_, 4), "mdb_env_set_maxdbs");
      // The map's ceiling, not a file size: the file grows as pages are used. 64 GiB holds a million
      // raw records (about 4.5 GB, one overflow page each) with room to spare.
      lmdbCheck(mdb_env_set_mapsize(env_, size_t{64} << 30), "mdb_env_set_mapsize");
      lmdbCheck(mdb_env_open(env_, dir.c_str(), 0, 0644), "mdb_env_open");
      if (check_size) refuseTruncated(dir / "data.mdb");
      LmdbTxn txn(env_, 0);
      // Integer keys in native order: the ids and generations sort numerically, so a scan is in id order.
      lmdbCheck(mdb_dbi_open(txn.get(), "images", MDB_CREATE | MDB_INTEGERKEY, &images_), "mdb_dbi_open images");
      lmdbCheck(mdb_dbi_open(txn.get(), "names", MDB_CREATE, &names_), "mdb_dbi_open names");
      lmdbCheck(mdb_dbi_open(txn.get(), "feed", MDB_CREATE | MDB_INTEGERKEY, &feed_), "mdb_dbi_open feed");
      lmdbCheck(mdb_dbi_open(txn.get(), "meta", MDB_CREATE, &meta_), "mdb_dbi_open meta");
      txn.commit();
    } catch (...) {
      mdb_env_close(env_);
      throw;
    }
  }
  ~LmdbStore() override { mdb_env_close(env_); }

  void add(const std::vector<NewImage>& batch) override {
    LmdbTxn txn(env_, 0);
    std::vector<uint32_t> ids;
    for (const NewImage& image : batch) {
      MDB_val key = val(&image.id, 4), record = val(image.record);
      lmdbCheck(mdb_put(txn.get(), images_, &key, &record, lmdb_append_images ? MDB_APPEND : MDB_NOOVERWRITE),
                "mdb_put images");
      MDB_val name = val(image.name);
      lmdbCheck(mdb_put(txn.get(), names_, &name, &key, MDB_NOOVERWRITE), "mdb_put names");
      ids.push_back(image.id);
    }
    appendFeed(txn, feedEntry('+', ids));
    txn.commit();
  }

  void remove(const std::vector<uint32_t>& ids) override {
    LmdbTxn txn(env_, 0);
    for (uint32_t id : ids) {
      MDB_val key = val(&id, 4), record;
      lmdbCheck(mdb_get(txn.get(), images_, &key, &record), "mdb_get images");
      const std::string name = nameInRecord(view(record), encoding_);
      MDB_val name_key = val(name);
      lmdbCheck(mdb_del(txn.get(), names_, &name_key, nullptr), "mdb_del names");
      lmdbCheck(mdb_del(txn.get(), images_, &key, nullptr), "mdb_del images");
    }
    appendFeed(txn, feedEntry('-', ids));
    txn.commit();
  }

  void scan(const std::function<void(uint32_t, std::string_view)>& visit) override {
    LmdbTxn txn(env_, MDB_RDONLY);
    MDB_cursor* cursor;
    lmdbCheck(mdb_cursor_open(txn.get(), images_, &cursor), "mdb_cursor_open");
    std::unique_ptr<MDB_cursor, void (*)(MDB_cursor*)> closer(cursor, mdb_cursor_close);
    MDB_val key, record;
    int rc = mdb_cursor_get(cursor, &key, &record, MDB_FIRST);
    for (; rc == MDB_SUCCESS; rc = mdb_cursor_get(cursor, &key, &record, MDB_NEXT)) {
      uint32_t id;
      if (key.mv_size != 4) throw std::runtime_error("images: a key is not 4 bytes");
      std::memcpy(&id, key.mv_data, 4);
      visit(id, view(record));  // a pointer into the map: no copy until the decoder's
    }
    if (rc != MDB_NOTFOUND) lmdbCheck(rc, "mdb_cursor_get");
  }

  Probe probe(const std::vector<uint32_t>& ids) override {
    LmdbTxn txn(env_, MDB_RDONLY);
    Probe p{generation(txn), 0};
    for (uint32_t id : ids) {
      MDB_val key = val(&id, 4), record;
      lmdbCheck(mdb_get(txn.get(), images_, &key, &record), "mdb_get images");
      p.touched += static_cast<const uint8_t*>(record.mv_data)[record.mv_size / 2];
    }
    return p;
  }

 private:
  static constexpr std::string_view kGenerationKey = "generation";

  void refuseTruncated(const fs::path& file) {
    MDB_envinfo info;
    MDB_stat stat;
    lmdbCheck(mdb_env_info(env_, &info), "mdb_env_info");
    lmdbCheck(mdb_env_stat(env_, &stat), "mdb_env_stat");
    const uint64_t needed = (static_cast<uint64_t>(info.me_last_pgno) + 1) * stat.ms_psize, size = fs::file_size(file);
    if (size < needed)
      throw std::runtime_error(file.string() + ": truncated (" + std::to_string(size) + " bytes, its pages end at " +
                               std::to_string(needed) + ")");
  }

  uint64_t generation(const LmdbTxn& txn) {
    MDB_val key = val(kGenerationKey), value;
    const int rc = mdb_get(txn.get(), meta_, &key, &value);
    if (rc == MDB_NOTFOUND) return 0;
    lmdbCheck(rc, "mdb_get meta");
    if (value.mv_size != 8) throw std::runtime_error("meta: the generation is not 8 bytes");
    uint64_t g;
    std::memcpy(&g, value.mv_data, 8);
    return g;
  }

  void appendFeed(LmdbTxn& txn, const std::string& entry) {
    const uint64_t next = generation(txn) + 1;
    MDB_val key = val(&next, 8), value = val(entry);
    // Generations only grow: MDB_APPEND fills feed pages completely instead of splitting them in half.
    lmdbCheck(mdb_put(txn.get(), feed_, &key, &value, MDB_APPEND), "mdb_put feed");
    MDB_val meta_key = val(kGenerationKey), meta_value = val(&next, 8);
    lmdbCheck(mdb_put(txn.get(), meta_, &meta_key, &meta_value, 0), "mdb_put meta");
  }

  Encoding encoding_;
  MDB_env* env_ = nullptr;
  MDB_dbi images_{}, names_{}, feed_{}, meta_{};
};

// ---- SQLite: one database file in WAL mode with synchronous=FULL (a commit is fsynced to the WAL),
// the four tables, prepared statements. Readers run deferred transactions; the busy handler counts
// every time one had to wait for a lock.

class SqliteStore final : public Store {
 public:
  SqliteStore(const fs::path& dir, Encoding encoding) : encoding_(encoding) {
    fs::create_directories(dir);
    const std::string file = (dir / "store.sqlite").string();
    const int rc = sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw std::runtime_error("sqlite3_open_v2: " + message);
    }
    try {
      sqlite3_busy_handler(db_, &SqliteStore::onBusy, this);
      exec("PRAGMA journal_mode=WAL");
      exec("PRAGMA synchronous=FULL");
      exec("CREATE TABLE IF NOT EXISTS images(id INTEGER PRIMARY KEY, record BLOB NOT NULL)");
      exec("CREATE TABLE IF NOT EXISTS names(name TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID");
      exec("CREATE TABLE IF NOT EXISTS feed(generation INTEGER PRIMARY KEY, changes BLOB NOT NULL)");
      exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID");
      insert_image_ = prepare("INSERT INTO images(id, record) VALUES(?1, ?2)");
      insert_name_ = prepare("INSERT INTO names(name, id) VALUES(?1, ?2)");
      insert_feed_ = prepare("INSERT INTO feed(generation, changes) VALUES(?1, ?2)");
      set_generation_ = prepare("INSERT OR REPLACE INTO meta(key, value) VALUES('generation', ?1)");
      get_generation_ = prepare("SELECT value FROM meta WHERE key = 'generation'");
      get_record_ = prepare("SELECT record FROM images WHERE id = ?1");
      delete_image_ = prepare("DELETE FROM images WHERE id = ?1");
      delete_name_ = prepare("DELETE FROM names WHERE name = ?1");
      scan_ = prepare("SELECT id, record FROM images ORDER BY id");
    } catch (...) {
      close();
      throw;
    }
  }
  ~SqliteStore() override { close(); }

  void add(const std::vector<NewImage>& batch) override {
    Transaction txn(*this, "BEGIN IMMEDIATE");
    std::vector<uint32_t> ids;
    for (const NewImage& image : batch) {
      sqlite3_bind_int64(insert_image_, 1, image.id);
      sqlite3_bind_blob(insert_image_, 2, image.record.data(), static_cast<int>(image.record.size()), SQLITE_STATIC);
      run(insert_image_);
      sqlite3_bind_text(insert_name_, 1, image.name.data(), static_cast<int>(image.name.size()), SQLITE_STATIC);
      sqlite3_bind_int64(insert_name_, 2, image.id);
      run(insert_name_);
      ids.push_back(image.id);
    }
    appendFeed(feedEntry('+', ids));
    txn.commit();
  }

  void remove(const std::vector<uint32_t>& ids) override {
    Transaction txn(*this, "BEGIN IMMEDIATE");
    for (uint32_t id : ids) {
      const std::string name = nameInRecord(record(id), encoding_);
      sqlite3_reset(get_record_);
      sqlite3_bind_text(delete_name_, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
      run(delete_name_);
      sqlite3_bind_int64(delete_image_, 1, id);
      run(delete_image_);
    }
    appendFeed(feedEntry('-', ids));
    txn.commit();
  }

  void scan(const std::function<void(uint32_t, std::string_view)>& visit) override {
    Transaction txn(*this, "BEGIN");
    int rc;
    while ((rc = sqlite3_step(scan_)) == SQLITE_ROW) visit(static_cast<uint32_t>(sqlite3_column_int64(scan_, 0)), blob(scan_, 1));
    sqlite3_reset(scan_);
    if (rc != SQLITE_DONE) fail("scan");
    txn.commit();
  }

  Probe probe(const std::vector<uint32_t>& ids) override {
    Transaction txn(*this, "BEGIN");
    Probe p{generation(), 0};
    for (uint32_t id : ids) {
      const std::string_view r = record(id);
      p.touched += static_cast<uint8_t>(r[r.size() / 2]);
      sqlite3_reset(get_record_);
    }
    txn.commit();
    return p;
  }

  uint64_t readerWaits() const override { return busy_waits_; }

 private:
  // BEGIN ... COMMIT, rolled back if an exception leaves it open.
  class Transaction {
   public:
    Transaction(SqliteStore& store, const char* begin) : store_(store) { store_.exec(begin); }
    ~Transaction() {
      if (open_) sqlite3_exec(store_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit() {
      store_.exec("COMMIT");
      open_ = false;
    }

   private:
    SqliteStore& store_;
    bool open_ = true;
  };

  static int onBusy(void* self, int) {
    ++static_cast<SqliteStore*>(self)->busy_waits_;
    usleep(100);
    return 1;  // keep waiting: the count, not a failure, is what the benchmark reports
  }

  [[noreturn]] void fail(const char* what) const { throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db_)); }
  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr) != SQLITE_OK) fail(sql);
    statements_.push_back(statement);
    return statement;
  }
  void run(sqlite3_stmt* statement) {
    const int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    if (rc != SQLITE_DONE) fail(sqlite3_sql(statement));
  }
  static std::string_view blob(sqlite3_stmt* statement, int column) {
    const void* data = sqlite3_column_blob(statement, column);
    return {static_cast<const char*>(data), static_cast<size_t>(sqlite3_column_bytes(statement, column))};
  }
  // The record of `id`, valid until get_record_ is reset.
  std::string_view record(uint32_t id) {
    sqlite3_reset(get_record_);
    sqlite3_bind_int64(get_record_, 1, id);
    if (sqlite3_step(get_record_) != SQLITE_ROW) fail("SELECT record");
    return blob(get_record_, 0);
  }
  uint64_t generation() {
    const int rc = sqlite3_step(get_generation_);
    const uint64_t g = rc == SQLITE_ROW ? static_cast<uint64_t>(sqlite3_column_int64(get_generation_, 0)) : 0;
    sqlite3_reset(get_generation_);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail("SELECT generation");
    return g;
  }
  void appendFeed(const std::string& entry) {
    const uint64_t next = generation() + 1;
    sqlite3_bind_int64(insert_feed_, 1, static_cast<sqlite3_int64>(next));
    sqlite3_bind_blob(insert_feed_, 2, entry.data(), static_cast<int>(entry.size()), SQLITE_STATIC);
    run(insert_feed_);
    sqlite3_bind_int64(set_generation_, 1, static_cast<sqlite3_int64>(next));
    run(set_generation_);
  }
  void close() {
    for (sqlite3_stmt* s : statements_) sqlite3_finalize(s);
    statements_.clear();
    sqlite3_close(db_);  // the last connection checkpoints the WAL into the file and deletes it
    db_ = nullptr;
  }

  Encoding encoding_;
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> statements_;
  sqlite3_stmt *insert_image_ = nullptr, *insert_name_ = nullptr, *insert_feed_ = nullptr, *set_generation_ = nullptr,
               *get_generation_ = nullptr, *get_record_ = nullptr, *delete_image_ = nullptr,
               *delete_name_ = nullptr, *scan_ = nullptr;
  uint64_t busy_waits_ = 0;
};

std::unique_ptr<Store> openStore(Kind kind, const fs::path& dir, Encoding encoding, bool lmdb_size_check = true) {
  if (kind == Kind::Lmdb) return std::make_unique<LmdbStore>(dir, encoding, lmdb_size_check);
  return std::make_unique<SqliteStore>(dir, encoding);
}

// The file that holds the data (the one the damage tests overwrite).
fs::path dataFile(Kind kind, const fs::path& dir) {
  return dir / (kind == Kind::Lmdb ? "data.mdb" : "store.sqlite");
}

// ---------------------------------------------------------------------------------------------
// Measuring helpers.

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double quantile(std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size())))];
}

// Bytes of every file in the store's directory: LMDB's data.mdb (lock.mdb is a few KiB of reader
// slots) or SQLite's file, measured closed (the WAL is checkpointed into the file and removed).
uint64_t storeBytes(const fs::path& dir) {
  uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file()) total += entry.file_size();
  return total;
}

// Drops the store's files from the page cache, so that the next open reads from the disk: a cold open
// without /proc/sys/vm/drop_caches (which would empty the cache of every other program on the machine).
// The files are clean (both stores fsync their commits), so POSIX_FADV_DONTNEED can evict every page.
// Returns the fraction of pages still resident, by mincore, to say how cold the open really was.
double evictFromPageCache(const fs::path& dir) {
  size_t pages = 0, resident = 0;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.file_size() == 0) continue;
    const int fd = ::open(entry.path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    const size_t size = entry.file_size();
    void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map != MAP_FAILED) {
      std::vector<unsigned char> in_core((size + page - 1) / page);
      if (mincore(map, size, in_core.data()) == 0) {
        pages += in_core.size();
        for (unsigned char c : in_core) resident += c & 1;
      }
      munmap(map, size);
    }
    ::close(fd);
  }
  return pages ? static_cast<double>(resident) / static_cast<double>(pages) : 0.0;
}

std::vector<NewImage> makeBatch(uint32_t first, uint32_t count, Encoding encoding) {
  std::vector<NewImage> batch;
  batch.reserve(count);
  for (uint32_t id = first; id < first + count; ++id) {
    Image image = makeImage(id);
    std::string record = encode(image, encoding);
    batch.push_back({id, std::move(image.name), std::move(record)});
  }
  return batch;
}

// What the live database builds at open: every record decoded into its name and pairs.
struct LoadedImage {
  uint32_t id;
  std::string name;
  std::vector<Pair> pairs;
};

std::vector<LoadedImage> loadAll(Store& store, Encoding encoding) {
  std::vector<LoadedImage> images;
  store.scan([&](uint32_t id, std::string_view bytes) {
    RecordReader reader(bytes, encoding);
    LoadedImage& image = images.emplace_back();
    image.id = id;
    image.name = reader.name();
    reader.pairs(image.pairs);
  });
  return images;
}

// ---------------------------------------------------------------------------------------------
// One reader process beside the writer (5): the child opens the store itself (neither store may be
// used across fork, so the parent closes its handle before forking and reopens it after), then loops
// "begin a read transaction, read the generation, read 10 random records, end" for kReaderSeconds and
// writes its latency summary down a pipe. The parent either idles or adds images one per durable
// commit, the live database's most common write, the one that commits most often.

constexpr double kReaderSeconds = 2.0;
constexpr int kRecordsPerRead = 10;

struct ReaderSummary {
  double reads = 0, p50_us = 0, p99_us = 0, max_us = 0, waits = 0;
  uint64_t touched = 0;
  char error[200] = {};
};

struct ReaderResult {
  ReaderSummary summary;
  uint32_t commits = 0;  // the writer's, during the reader's run
};

ReaderSummary readerLoop(Kind kind, const fs::path& dir, Encoding encoding, const std::vector<uint32_t>& live, int ready_fd) {
  ReaderSummary s;
  auto store = openStore(kind, dir, encoding);
  const char ready = 'r';
  if (write(ready_fd, &ready, 1) != 1) throw std::runtime_error("pipe");
  SplitMix64 rng{42};
  std::vector<uint32_t> ids(kRecordsPerRead);
  std::vector<double> latencies;
  uint64_t last_generation = 0;
  const auto start = Clock::now();
  while (secondsSince(start) < kReaderSeconds) {
    for (uint32_t& id : ids) id = live[rng() % live.size()];
    const auto t0 = Clock::now();
    const Store::Probe p = store->probe(ids);
    latencies.push_back(secondsSince(t0) * 1e6);
    // Snapshots only move forward: a reader that saw a generation never sees an older one.
    if (p.generation < last_generation) throw std::runtime_error("the generation went backwards");
    last_generation = p.generation;
    s.touched += p.touched;
  }
  std::sort(latencies.begin(), latencies.end());
  s.reads = static_cast<double>(latencies.size());
  s.p50_us = quantile(latencies, 0.5);
  s.p99_us = quantile(latencies, 0.99);
  s.max_us = latencies.empty() ? NAN : latencies.back();
  s.waits = static_cast<double>(store->readerWaits());
  return s;
}

ReaderResult measureReader(Kind kind, const fs::path& dir, Encoding encoding, const std::vector<uint32_t>& live,
                           bool writing, uint32_t& next_id) {
  int ready[2], result[2];
  if (pipe(ready) != 0 || pipe(result) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    ReaderSummary s;
    try {
      s = readerLoop(kind, dir, encoding, live, ready[1]);
    } catch (const std::exception& e) {
      std::snprintf(s.error, sizeof s.error, "%s", e.what());
      const char ready_anyway = 'e';
      (void)!write(ready[1], &ready_anyway, 1);
    }
    (void)!write(result[1], &s, sizeof s);
    _exit(0);  // no destructors or atexit handlers of the parent's state
  }
  close(ready[1]);
  close(result[1]);
  char byte;
  if (read(ready[0], &byte, 1) != 1) throw std::runtime_error("reader process died before it was ready");
  ReaderResult r;
  if (writing) {
    auto store = openStore(kind, dir, encoding);
    int status;
    while (waitpid(child, &status, WNOHANG) == 0) {
      store->add(makeBatch(next_id++, 1, encoding));
      ++r.commits;
    }
  } else {
    waitpid(child, nullptr, 0);
  }
  if (read(result[0], &r.summary, sizeof r.summary) != sizeof r.summary) throw std::runtime_error("reader process sent no result");
  close(ready[0]);
  close(result[0]);
  if (r.summary.error[0]) throw std::runtime_error(std::string("reader: ") + r.summary.error);
  return r;
}

// ---------------------------------------------------------------------------------------------
// One run of one store at N images: every figure of the comparison but the damage tests.

constexpr uint32_t kBigBatch = 1000;
constexpr uint32_t kSingles = 200;  // single-image commits timed per run (each is an fsync or more)

struct RunFigures {
  std::map<std::string, double> values;
  double& operator[](const std::string& key) { return values[key]; }
};

// Adds ids [first, first + count) in batches of `batch`; returns images per second. Only the stores'
// transactions are timed: making the synthetic images costs more than encoding them, and the live
// database receives its histograms already made.
double timedAdd(Store& store, uint32_t first, uint32_t count, uint32_t batch, Encoding encoding) {
  double seconds = 0;
  for (uint32_t id = first; id < first + count; id += batch) {
    const auto images = makeBatch(id, std::min(batch, first + count - id), encoding);
    const auto start = Clock::now();
    store.add(images);
    seconds += secondsSince(start);
  }
  return count / seconds;
}

double timedRemove(Store& store, const std::vector<uint32_t>& ids, uint32_t batch) {
  const auto start = Clock::now();
  for (size_t i = 0; i < ids.size(); i += batch)
    store.remove(std::vector<uint32_t>(ids.begin() + static_cast<long>(i), ids.begin() + static_cast<long>(std::min(ids.size(), i + batch))));
  return static_cast<double>(ids.size()) / secondsSince(start);
}

RunFigures runOnce(Kind kind, Encoding encoding, uint32_t n, const fs::path& dir, uint32_t seed) {
  RunFigures f;
  fs::remove_all(dir);
  std::vector<uint32_t> live(n);
  std::iota(live.begin(), live.end(), 0u);
  uint32_t next_id = n;
  {
    auto store = openStore(kind, dir, encoding);
    // (1) The bulk add that fills the store, then single-image commits on the full store.
    f["add_1000_per_s"] = timedAdd(*store, 0, n, kBigBatch, encoding);
    f["add_1_per_s"] = timedAdd(*store, next_id, kSingles, 1, encoding);
    std::vector<uint32_t> singles(kSingles);
    std::iota(singles.begin(), singles.end(), next_id);
    next_id += kSingles;
    // (2) Removes: the singles one per commit, then a random 10% of the store in batches of 1,000.
    f["remove_1_per_s"] = timedRemove(*store, singles, 1);
  }
  f["bytes_per_image_full"] = static_cast<double>(storeBytes(dir)) / n;
  std::vector<uint32_t> removed;
  {
    auto store = openStore(kind, dir, encoding);
    std::shuffle(live.begin(), live.end(), SplitMix64{seed});
    removed.assign(live.end() - n / 10, live.end());
    live.resize(n - n / 10);
    std::sort(removed.begin(), removed.end());  // the live database removes whatever users ask; sorted or not, one txn
    f["remove_1000_per_s"] = timedRemove(*store, removed, kBigBatch);
  }
  // (4) Size after the removals, and after adding as many new images: the same size means freed pages
  // were reused.
  f["bytes_per_image_after_remove"] = static_cast<double>(storeBytes(dir)) / n;
  {
    auto store = openStore(kind, dir, encoding);
    timedAdd(*store, next_id, n / 10, kBigBatch, encoding);
    for (uint32_t id = next_id; id < next_id + n / 10; ++id) live.push_back(id);
    next_id += n / 10;
  }
  f["bytes_per_image_after_readd"] = static_cast<double>(storeBytes(dir)) / n;

  // (3) Open + full load: cold (files evicted from the page cache), then warm.
  f["resident_after_evict"] = evictFromPageCache(dir);
  for (const char* temperature : {"cold", "warm"}) {
    const auto start = Clock::now();
    auto store = openStore(kind, dir, encoding);
    const double open_s = secondsSince(start);
    const auto images = loadAll(*store, encoding);
    const double total_s = secondsSince(start);
    if (images.size() != live.size()) throw std::runtime_error("load found " + std::to_string(images.size()) + " images, expected " + std::to_string(live.size()));
    f[std::string("open_ms_") + temperature] = open_s * 1e3;
    f[std::string("open_load_ms_") + temperature] = total_s * 1e3;
  }

  // (5) A reader process, idle and beside one writer.
  for (bool writing : {false, true}) {
    const ReaderResult r = measureReader(kind, dir, encoding, live, writing, next_id);
    const std::string phase = writing ? "writing" : "idle";
    f["reader_p50_us_" + phase] = r.summary.p50_us;
    f["reader_p99_us_" + phase] = r.summary.p99_us;
    f["reader_max_us_" + phase] = r.summary.max_us;
    f["reader_reads_" + phase] = r.summary.reads;
    f["reader_waits_" + phase] = r.summary.waits;
    if (writing) f["writer_commits_per_s_beside_reader"] = r.commits / kReaderSeconds;
  }
  fs::remove_all(dir);
  return f;
}

// ---------------------------------------------------------------------------------------------
// Damaged files (6): a small store is built, copied, damaged in one way, and then opened and loaded in a
// child process, so that a crash (LMDB maps its file: a read past a truncated end is SIGBUS) is seen
// and named instead of ending the benchmark. The child compares every record with the image it was
// made from, to tell a refusal from silently wrong data.

constexpr uint32_t kDamageImages = 2000;

std::string damageOutcome(Kind kind, const fs::path& dir, Encoding encoding, bool lmdb_size_check) {
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child == 0) {
    std::string message;
    try {
      auto store = openStore(kind, dir, encoding, lmdb_size_check);
      size_t differ = 0, count = 0;
      try {
        store->scan([&](uint32_t id, std::string_view bytes) {
          ++count;
          const Image expected = makeImage(id);
          RecordReader reader(bytes, encoding);
          LoadedImage image{id, std::string(reader.name()), {}};
          reader.pairs(image.pairs);
          if (image.name != expected.name || image.pairs != expected.pairs) ++differ;
        });
      } catch (const std::exception& e) {
        throw std::runtime_error("load stopped after " + std::to_string(count) + " records: " + e.what());
      }
      message = count == kDamageImages && differ == 0
                    ? "not noticed: all " + std::to_string(count) + " records read back intact"
                    : "no error: read " + std::to_string(count) + " of " + std::to_string(kDamageImages) + " records, " +
                          std::to_string(differ) + " of them wrong";
    } catch (const std::exception& e) {
      message = std::string("error: ") + e.what();
    }
    (void)!write(out[1], message.data(), std::min<size_t>(message.size(), 4000));
    _exit(0);
  }
  close(out[1]);
  std::string message;
  char buffer[4096];
  ssize_t got;
  while ((got = read(out[0], buffer, sizeof buffer)) > 0) message.append(buffer, static_cast<size_t>(got));
  close(out[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) return std::string("crashed: ") + strsignal(WTERMSIG(status));
  return message;
}

json damageTests(Kind kind, Encoding encoding, const fs::path& work) {
  const fs::path pristine = work / (std::string(kindName(kind)) + "-pristine");
  fs::remove_all(pristine);
  {
    auto store = openStore(kind, pristine, encoding);
    for (uint32_t id = 0; id < kDamageImages; id += kBigBatch) store->add(makeBatch(id, kBigBatch, encoding));
  }
  // One record to damage on purpose. A copy-on-write store (LMDB) may still hold stale copies of its
  // page in free pages, so the targeted damages hit every place the record's bytes occur.
  const std::string target = encode(makeImage(kDamageImages / 2), encoding);
  auto occurrences = [&](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<uint64_t> at;
    for (size_t i = bytes.find(target); i != std::string::npos; i = bytes.find(target, i + 1)) at.push_back(i);
    if (at.empty()) throw std::runtime_error("damage: the target record is not stored contiguously");
    return at;
  };
  auto overwrite = [](const fs::path& file, uint64_t offset, size_t length) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    SplitMix64 rng{7};
    std::string garbage(length, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(garbage.data(), static_cast<std::streamsize>(length));
  };
  auto truncate = [](const fs::path& file) { fs::resize_file(file, fs::file_size(file) / 2 / 4096 * 4096); };
  struct Damage {
    const char* name;
    std::function<void(const fs::path& file)> apply;
    bool lmdb_size_check;
  };
  const std::vector<Damage> damages = {
      {"truncated to half its size", truncate, false},
      {"truncated to half its size, LMDB opened with the size check", truncate, true},
      {"first page (header) overwritten with random bytes", [&](const fs::path& file) { overwrite(file, 0, 4096); }, false},
      {"the page in the middle of the file overwritten with random bytes",
       [&](const fs::path& file) { overwrite(file, fs::file_size(file) / 2 / 4096 * 4096, 4096); }, false},
      {"the page(s) holding one record overwritten with random bytes",
       [&](const fs::path& file) {
         for (uint64_t at : occurrences(file)) overwrite(file, at / 4096 * 4096, 4096);
       },
       false},
      {"one byte flipped in the middle of one record",
       [&](const fs::path& file) {
         for (uint64_t at : occurrences(file)) {
           std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
           const auto flip = static_cast<std::streamoff>(at + target.size() / 2);
           f.seekg(flip);
           const char byte = static_cast<char>(f.get());
           f.seekp(flip);
           f.put(static_cast<char>(byte ^ 0x10));
         }
       },
       false},
  };
  json results = json::array();
  for (const Damage& damage : damages) {
    if (damage.lmdb_size_check && kind != Kind::Lmdb) continue;
    const fs::path copy = work / (std::string(kindName(kind)) + "-damaged");
    fs::remove_all(copy);
    fs::create_directories(copy);
    for (const auto& entry : fs::directory_iterator(pristine))
      if (entry.path().filename() != "lock.mdb") fs::copy_file(entry.path(), copy / entry.path().filename());
    damage.apply(dataFile(kind, copy));
    results.push_back({{"damage", damage.name}, {"outcome", damageOutcome(kind, copy, encoding, damage.lmdb_size_check)}});
    fs::remove_all(copy);
  }
  fs::remove_all(pristine);
  return results;
}

// ---------------------------------------------------------------------------------------------
// The report.

struct Row {
  const char* key;
  const char* label;
  int decimals;
};
const std::vector<Row> kRows = {
    {"add_1000_per_s", "add, batches of 1,000 (images/s)", 0},
    {"add_1_per_s", "add, batches of 1 (images/s)", 0},
    {"remove_1000_per_s", "remove, batches of 1,000 (images/s)", 0},
    {"remove_1_per_s", "remove, batches of 1 (images/s)", 0},
    {"open_ms_cold", "open, cold (ms)", 2},
    {"open_load_ms_cold", "open + full load, cold (ms)", 0},
    {"open_ms_warm", "open, warm (ms)", 2},
    {"open_load_ms_warm", "open + full load, warm (ms)", 0},
    {"resident_after_evict", "page cache resident after evict (fraction)", 3},
    {"bytes_per_image_full", "bytes/image after adds", 0},
    {"bytes_per_image_after_remove", "bytes/image after removing 10%", 0},
    {"bytes_per_image_after_readd", "bytes/image after adding 10% back", 0},
    {"reader_p50_us_idle", "reader p50, idle (us)", 1},
    {"reader_p99_us_idle", "reader p99, idle (us)", 1},
    {"reader_p50_us_writing", "reader p50, beside a writer (us)", 1},
    {"reader_p99_us_writing", "reader p99, beside a writer (us)", 1},
    {"reader_max_us_writing", "reader max, beside a writer (us)", 0},
    {"reader_waits_writing", "reader lock waits, beside a writer", 0},
    {"writer_commits_per_s_beside_reader", "writer commits/s beside the reader", 0},
};

struct Arguments {
  std::vector<uint32_t> images{10000, 100000};
  int runs = 3;
  std::string dir;
  std::string json_path;
  std::vector<std::string> encodings{"raw", "compact"};
  std::vector<std::string> stores{"lmdb", "sqlite"};
  bool skip_damage = false;
};

std::string filesystemOf(const fs::path& dir) {
  // The filesystem type matters (fsync cost, tmpfs has none): read it from /proc/self/mounts, longest
  // mount point that is a prefix of the directory.
  std::ifstream mounts("/proc/self/mounts");
  std::string device, point, type, rest, best_point, best_type = "unknown";
  const std::string path = fs::canonical(dir).string();
  while (mounts >> device >> point >> type && std::getline(mounts, rest)) {
    const bool prefix = path.compare(0, point.size(), point) == 0 && (path.size() == point.size() || point == "/" || path[point.size()] == '/');
    if (prefix && point.size() >= best_point.size()) {
      best_point = point;
      best_type = type + " (" + device + " on " + point + ")";
    }
  }
  return best_type;
}

int runBenchmark(const Arguments& args) {
  const fs::path work = fs::path(args.dir) / "bovw-store-bench.work";
  fs::create_directories(work);
  json report = {{"program", "bovw-store-bench"},
                 {"lmdb", MDB_VERSION_STRING},
                 {"sqlite", sqlite3_libversion()},
                 {"filesystem", filesystemOf(work)},
                 {"nproc", sysconf(_SC_NPROCESSORS_ONLN)},
                 {"runs", args.runs},
                 {"lmdb_append_images", lmdb_append_images},
                 {"words", kWords},
                 {"words_per_image", kWordsPerImage},
                 {"batch_large", kBigBatch},
                 {"single_commits_per_run", kSingles},
                 {"reader_seconds", kReaderSeconds},
                 {"records_per_read", kRecordsPerRead},
                 {"results", json::array()}};
  std::cout << "bovw-store-bench: " << MDB_VERSION_STRING << ", SQLite " << sqlite3_libversion() << " (WAL, synchronous=FULL), "
            << report["filesystem"].get<std::string>() << ", " << report["nproc"] << " cores\n";

  std::vector<Kind> kinds;
  for (const std::string& s : args.stores) kinds.push_back(s == "lmdb" ? Kind::Lmdb : Kind::Sqlite);
  std::vector<Encoding> encodings;
  for (const std::string& e : args.encodings) encodings.push_back(e == "raw" ? Encoding::Raw : Encoding::Compact);

  // Warm-up: one small pass of each store, so the first timed run does not pay for cold code and the
  // directory's first allocation.
  for (Kind kind : kinds) runOnce(kind, encodings.front(), 2000, work / "warmup", 1);

  for (uint32_t n : args.images) {
    for (Encoding encoding : encodings) {
      const Image sample = makeImage(0);
      std::cout << "\nN = " << n << " images, " << encodingName(encoding) << " records (image 0: "
                << encode(sample, encoding).size() << " bytes), median of " << args.runs << " runs\n";
      // The stores alternate within each run, so both see the same state of a shared machine.
      std::vector<std::vector<RunFigures>> runs(kinds.size());
      for (int r = 0; r < args.runs; ++r)
        for (size_t k = 0; k < kinds.size(); ++k) {
          const auto start = Clock::now();
          runs[k].push_back(runOnce(kinds[k], encoding, n, work / kindName(kinds[k]), 1000 + static_cast<uint32_t>(r)));
          std::cerr << "  run " << r + 1 << " " << kindName(kinds[k]) << ": " << std::fixed << std::setprecision(1) << secondsSince(start) << " s\n";
        }
      std::cout << std::left << std::setw(46) << "";
      for (Kind kind : kinds) std::cout << std::right << std::setw(14) << kindName(kind);
      std::cout << "\n";
      json entry = {{"images", n}, {"encoding", encodingName(encoding)}, {"stores", json::object()}};
      for (size_t k = 0; k < kinds.size(); ++k) {
        json& store = entry["stores"][kindName(kinds[k])];
        for (const auto& [key, unused] : runs[k].front().values) {
          std::vector<double> values;
          for (RunFigures& run : runs[k]) values.push_back(run[key]);
          store[key] = {{"median", median(values)}, {"runs", values}};
        }
      }
      for (const Row& row : kRows) {
        std::cout << std::left << std::setw(46) << row.label;
        for (Kind kind : kinds)
          std::cout << std::right << std::setw(14) << std::fixed << std::setprecision(row.decimals)
                    << entry["stores"][kindName(kind)][row.key]["median"].get<double>();
        std::cout << "\n";
      }
      report["results"].push_back(entry);
    }
  }

  if (!args.skip_damage) {
    json damage = json::object();
    for (Encoding encoding : encodings)
      for (Kind kind : kinds) {
        std::cout << "\nDamaged " << kindName(kind) << " file, " << encodingName(encoding) << " records, " << kDamageImages << " images:\n";
        json results = damageTests(kind, encoding, work);
        for (const json& r : results) std::cout << "  " << r["damage"].get<std::string>() << ": " << r["outcome"].get<std::string>() << "\n";
        damage[encodingName(encoding)][kindName(kind)] = results;
      }
    report["damage"] = damage;
  }
  fs::remove_all(work);
  if (!args.json_path.empty()) {
    std::ofstream out(args.json_path);
    out << report.dump(2) << "\n";
    if (!out) throw std::runtime_error(args.json_path + ": cannot write");
    std::cout << "\nwrote " << args.json_path << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bovw-store-bench: LMDB and SQLite (WAL) on the live database's access pattern: add and remove "
               "rates, open + load, size, a reader beside a writer, damaged files (docs/STORAGE.md)"};
  Arguments args;
  app.add_option("--images", args.images, "store sizes, comma-separated")->delimiter(',')->check(CLI::Range(2000u, 4000000u))->capture_default_str();
  app.add_option("--runs", args.runs, "timed runs per size (the median is reported)")->check(CLI::Range(1, 100))->capture_default_str();
  app.add_option("--dir", args.dir, "a directory on the disk to measure (not tmpfs); the program works in a subdirectory it removes")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--json", args.json_path, "write every run's figures to this file");
  app.add_option("--encodings", args.encodings, "record encodings: raw (u32 pairs), compact (varint deltas)")
      ->delimiter(',')
      ->check(CLI::IsMember({"raw", "compact"}))
      ->capture_default_str();
  app.add_option("--stores", args.stores, "stores to measure")->delimiter(',')->check(CLI::IsMember({"lmdb", "sqlite"}))->capture_default_str();
  app.add_flag("--no-damage", args.skip_damage, "skip the damaged-file tests");
  app.add_flag("--lmdb-append", lmdb_append_images, "LMDB: add images with MDB_APPEND (ids only grow)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;  // exit status 2 for every usage error, as bovw
  }
  try {
    return runBenchmark(args);
  } catch (const std::exception& e) {
    std::cerr << "bovw-store-bench: " << e.what() << "\n";
    return 1;
  }
}
