// The few LMDB calls a live database makes, wrapped so that every handle is released and every
// failure becomes an IoError or InvalidInput naming the database: an environment (a folder holding
// data.mdb and lock.mdb), its named tables, and transactions. LMDB gives what a live database
// promises: a write is durable when its commit returns (fsync), a reader sees one committed state
// and never waits for the writer, writers of every process take turns on one lock, and a killed
// writer leaves the last committed state (docs/STORAGE.md).
#pragma once

#include <lmdb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <sys/types.h>

namespace bovw::live_detail {

// The named tables of a live database (docs/FORMATS.md, "Live databases").
struct Tables {
  MDB_dbi meta;     // settings and counters by name
  MDB_dbi names;    // image name -> u32 id
  MDB_dbi images;   // u32 id -> image record
  MDB_dbi changes;  // u64 generation -> the ids that write added and removed
  MDB_dbi checkpoint;  // the in-memory index as of one generation (live/checkpoint.hpp)
};

class LmdbEnvironment {
 public:
  // Opens the environment in the folder `path` (made when `create`; refused with InvalidInput if it
  // is not an LMDB environment, its data file is shorter than its last page, or this process has it
  // open already) and its tables.
  LmdbEnvironment(const std::string& path, bool create);
  ~LmdbEnvironment();
  LmdbEnvironment(const LmdbEnvironment&) = delete;
  LmdbEnvironment& operator=(const LmdbEnvironment&) = delete;

  MDB_env* get() const { return env_; }
  const Tables& tables() const { return tables_; }
  const std::string& path() const { return path_; }
  // Frees the reader slots of processes that died holding one (kill -9): LMDB reuses no page freed
  // after the snapshot of a slot still taken. Done at open, and by writers before each write, since
  // a reader may hold its snapshot for as long as it runs (lists read in place).
  void clearDeadReaders() const;
  // Throws IoError "'<path>': <what>: <LMDB's message>" unless `rc` is MDB_SUCCESS; MDB_CORRUPTED and
  // friends are InvalidInput (the file is damaged, not the machine).
  void check(int rc, const std::string& what) const;

 private:
  void forget();  // takes the data file off this process's list of open ones

  std::string path_;
  MDB_env* env_ = nullptr;
  Tables tables_{};
  std::optional<std::pair<dev_t, ino_t>> identity_;  // of data.mdb, while on that list
};

class LmdbTransaction {
 public:
  // A read-only snapshot, or the write transaction (waiting for any other writer to finish).
  LmdbTransaction(const LmdbEnvironment& environment, bool write);
  ~LmdbTransaction();  // aborts unless committed
  LmdbTransaction(const LmdbTransaction&) = delete;
  LmdbTransaction& operator=(const LmdbTransaction&) = delete;

  // Durable when it returns.
  void commit();

  // The value's bytes stay valid until the transaction ends (they are the mapped file).
  std::optional<std::string_view> get(MDB_dbi table, std::string_view key) const;
  void put(MDB_dbi table, std::string_view key, std::string_view value);
  // The same for a key above every key of `table` (ids and generations only grow): leaf pages are
  // filled, not split in half (MDB_APPEND; about 1.5 times less disk, docs/STORAGE.md).
  void append(MDB_dbi table, std::string_view key, std::string_view value);
  bool erase(MDB_dbi table, std::string_view key);  // false if the key was not there
  // Room for a value of `size` bytes under `key` (MDB_RESERVE), to be filled before the next change
  // in this transaction: a large value is written in place instead of built beside and copied. With
  // `append`, as append() for a key above every key of the table.
  unsigned char* reserve(MDB_dbi table, std::string_view key, std::size_t size, bool append = false);
  // Removes every entry of `table`.
  void clear(MDB_dbi table);

  // Calls visit(key, value) for every entry of `table` with key >= `from` in key order (all of them
  // when `from` is empty).
  template <typename Visit>
  void forEach(MDB_dbi table, std::string_view from, Visit&& visit) const;

  MDB_txn* get() const { return txn_; }

 private:
  const LmdbEnvironment& environment_;
  MDB_txn* txn_ = nullptr;
};

inline std::string_view bytesOf(const MDB_val& v) { return {static_cast<const char*>(v.mv_data), v.mv_size}; }

template <typename Visit>
void LmdbTransaction::forEach(MDB_dbi table, std::string_view from, Visit&& visit) const {
  MDB_cursor* cursor = nullptr;
  environment_.check(mdb_cursor_open(txn_, table, &cursor), "opening a cursor");
  struct Close {
    MDB_cursor* c;
    ~Close() { mdb_cursor_close(c); }
  } close{cursor};
  MDB_val key{from.size(), const_cast<char*>(from.data())}, value{};
  int rc = mdb_cursor_get(cursor, &key, &value, from.empty() ? MDB_FIRST : MDB_SET_RANGE);
  for (; rc == MDB_SUCCESS; rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)) visit(bytesOf(key), bytesOf(value));
  if (rc != MDB_NOTFOUND) environment_.check(rc, "reading a table");
}

}  // namespace bovw::live_detail
