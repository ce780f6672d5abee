// LmdbEnvironment and LmdbTransaction: LMDB's handles with the database's name on every failure.
#include "live/lmdb_store.hpp"

#include <bovw/error.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <map>
#include <utility>

namespace bovw::live_detail {

namespace {

// Address space reserved for the map, not disk: the data file grows with what is written. 1 TiB
// holds about 250 million images of 500 words; a write beyond it fails with LMDB's MDB_MAP_FULL.
constexpr std::size_t kMapSize = std::size_t{1} << 40;
constexpr unsigned kTables = 5;
constexpr unsigned kReaderSlots = 1024;

// The data files this process has open, by device and inode, with the process that opened them (a
// child of fork() inherits the list, not the environments): LMDB's locks are per process, so a
// second environment on the same files in one process would break them (LMDB's documentation).
std::mutex open_files_mutex;
std::map<std::pair<dev_t, ino_t>, pid_t> open_files;

bool damaged(int rc) {
  return rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH ||
         rc == MDB_INCOMPATIBLE || rc == MDB_BAD_VALSIZE;
}

}  // namespace

void LmdbEnvironment::check(int rc, const std::string& what) const {
  if (rc == MDB_SUCCESS) return;
  const std::string problem = what + ": " + mdb_strerror(rc);
  if (damaged(rc)) throw InvalidInput(path_, "is damaged or not a bovw live database (" + problem + ")");
  throw IoError("'" + path_ + "': " + problem);
}

LmdbEnvironment::LmdbEnvironment(const std::string& path, bool create) : path_(path) {
  std::error_code error;
  if (create && !std::filesystem::create_directory(path, error))
    throw IoError("'" + path + "': cannot create the live database's folder: " +
                  (error ? error.message() : std::string("it exists already")));
  // LMDB would make an empty data file in any folder it is pointed at.
  if (!create && !std::filesystem::is_regular_file(path + "/data.mdb", error))
    throw InvalidInput(path, "is not a bovw live database (no data.mdb in it)");
  if (!create) {
    struct ::stat file {};
    if (::stat((path + "/data.mdb").c_str(), &file) != 0) throw IoError("'" + path + "/data.mdb': " + std::strerror(errno));
    const std::lock_guard<std::mutex> guard(open_files_mutex);
    const auto [held, added] = open_files.insert({{file.st_dev, file.st_ino}, ::getpid()});
    if (!added && held->second == ::getpid())
      throw InvalidInput(path, "is open already in this process; LMDB's locks are per process: open it once and "
                               "share that object between threads");
    held->second = ::getpid();
    identity_ = {file.st_dev, file.st_ino};
  }
  if (const int rc = mdb_env_create(&env_); rc != MDB_SUCCESS) {
    forget();
    check(rc, "creating an LMDB environment");
  }
  try {
    check(mdb_env_set_maxdbs(env_, kTables), "setting the table count");
    check(mdb_env_set_mapsize(env_, kMapSize), "setting the map size");
    // Each search holds a reader slot for a moment (refresh); a server answers many at once, and
    // LMDB's default of 126 slots, shared by every process, would refuse the 127th.
    check(mdb_env_set_maxreaders(env_, kReaderSlots), "setting the reader slot count");
    // MDB_NOTLS: a read transaction belongs to the call that made it, not to its thread (searches
    // run on any thread). Durability is LMDB's default: every commit is synced.
    check(mdb_env_open(env_, path.c_str(), MDB_NOTLS, 0644), "opening");
    clearDeadReaders();
    // LMDB maps pages past the end of a truncated data file and faults when it touches them.
    MDB_envinfo info;
    MDB_stat stat;
    check(mdb_env_info(env_, &info), "reading the environment's state");
    check(mdb_env_stat(env_, &stat), "reading the environment's page size");
    struct ::stat file {};
    const std::string data = path + "/data.mdb";
    if (::stat(data.c_str(), &file) != 0) throw IoError("'" + data + "': " + std::strerror(errno));
    const auto needed = (static_cast<std::uint64_t>(info.me_last_pgno) + 1) * stat.ms_psize;
    if (static_cast<std::uint64_t>(file.st_size) < needed)
      throw InvalidInput(path, "its data file holds " + std::to_string(file.st_size) + " bytes but its last page ends at " +
                                   std::to_string(needed) + " (truncated?)");

    MDB_txn* txn = nullptr;
    check(mdb_txn_begin(env_, nullptr, create ? 0 : MDB_RDONLY, &txn), "opening its tables");
    const unsigned flags = create ? MDB_CREATE : 0;
    auto open = [&](const char* name, MDB_dbi& table) {
      const int rc = mdb_dbi_open(txn, name, flags, &table);
      if (rc == MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        throw InvalidInput(path, std::string("is not a bovw live database (no table '") + name + "')");
      }
      if (rc != MDB_SUCCESS) mdb_txn_abort(txn);
      check(rc, std::string("opening table '") + name + "'");
    };
    open("meta", tables_.meta);
    open("names", tables_.names);
    open("images", tables_.images);
    open("changes", tables_.changes);
    const int checkpoint = mdb_dbi_open(txn, "checkpoint", flags, &tables_.checkpoint);
    if (checkpoint != MDB_NOTFOUND && checkpoint != MDB_SUCCESS) mdb_txn_abort(txn);
    if (checkpoint != MDB_NOTFOUND) check(checkpoint, "opening table 'checkpoint'");
    // Committed even when read-only: a handle opened in an aborted transaction is closed with it.
    check(mdb_txn_commit(txn), "opening its tables");
    // A database made before checkpoints existed gets the table in one short write, once.
    if (checkpoint == MDB_NOTFOUND) {
      check(mdb_txn_begin(env_, nullptr, 0, &txn), "adding its checkpoint table");
      const int rc = mdb_dbi_open(txn, "checkpoint", MDB_CREATE, &tables_.checkpoint);
      if (rc != MDB_SUCCESS) mdb_txn_abort(txn);
      check(rc, "adding its checkpoint table");
      check(mdb_txn_commit(txn), "adding its checkpoint table");
    }
  } catch (...) {
    mdb_env_close(env_);
    forget();
    throw;
  }
}

LmdbEnvironment::~LmdbEnvironment() {
  mdb_env_close(env_);
  forget();
}

void LmdbEnvironment::forget() {
  if (!identity_) return;
  const std::lock_guard<std::mutex> guard(open_files_mutex);
  const auto held = open_files.find(*identity_);
  if (held != open_files.end() && held->second == ::getpid()) open_files.erase(held);
  identity_.reset();
}

void LmdbEnvironment::clearDeadReaders() const {
  int dead = 0;
  check(mdb_reader_check(env_, &dead), "clearing the slots of dead readers");
}

LmdbTransaction::LmdbTransaction(const LmdbEnvironment& environment, bool write) : environment_(environment) {
  environment_.check(mdb_txn_begin(environment.get(), nullptr, write ? 0 : MDB_RDONLY, &txn_),
                     write ? "starting a write" : "starting a read");
}

LmdbTransaction::~LmdbTransaction() {
  if (txn_) mdb_txn_abort(txn_);
}

void LmdbTransaction::commit() {
  MDB_txn* txn = txn_;
  txn_ = nullptr;  // mdb_txn_commit frees it, whatever it returns
  environment_.check(mdb_txn_commit(txn), "committing");
}

std::optional<std::string_view> LmdbTransaction::get(MDB_dbi table, std::string_view key) const {
  MDB_val k{key.size(), const_cast<char*>(key.data())}, value{};
  const int rc = mdb_get(txn_, table, &k, &value);
  if (rc == MDB_NOTFOUND) return std::nullopt;
  environment_.check(rc, "reading");
  return bytesOf(value);
}

void LmdbTransaction::put(MDB_dbi table, std::string_view key, std::string_view value) {
  MDB_val k{key.size(), const_cast<char*>(key.data())}, v{value.size(), const_cast<char*>(value.data())};
  environment_.check(mdb_put(txn_, table, &k, &v, 0), "writing");
}

void LmdbTransaction::append(MDB_dbi table, std::string_view key, std::string_view value) {
  MDB_val k{key.size(), const_cast<char*>(key.data())}, v{value.size(), const_cast<char*>(value.data())};
  environment_.check(mdb_put(txn_, table, &k, &v, MDB_APPEND), "appending");
}

unsigned char* LmdbTransaction::reserve(MDB_dbi table, std::string_view key, std::size_t size, bool append) {
  MDB_val k{key.size(), const_cast<char*>(key.data())}, v{size, nullptr};
  environment_.check(mdb_put(txn_, table, &k, &v, MDB_RESERVE | (append ? MDB_APPEND : 0)), "writing");
  return static_cast<unsigned char*>(v.mv_data);
}

void LmdbTransaction::clear(MDB_dbi table) { environment_.check(mdb_drop(txn_, table, 0), "emptying a table"); }

bool LmdbTransaction::erase(MDB_dbi table, std::string_view key) {
  MDB_val k{key.size(), const_cast<char*>(key.data())};
  const int rc = mdb_del(txn_, table, &k, nullptr);
  if (rc == MDB_NOTFOUND) return false;
  environment_.check(rc, "deleting");
  return true;
}

}  // namespace bovw::live_detail
