// TemporaryFile: exclusive creation, a lock that marks it as in use, checked writes, fsync, rename.
#include "io/temporary_file.hpp"

#include <bovw/error.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

namespace bovw::detail {

namespace fs = std::filesystem;

namespace {

constexpr char kPrefix[] = ".bovw-tmp-";

[[noreturn]] void failed(const char* verb, const std::string& target, int error) {
  throw IoError("cannot " + std::string(verb) + " '" + target + "': " + std::strerror(error));
}

// What keeps a file from being created in `folder` (errno `error` of open), said of the folder:
// that is what the user must fix, and the target's own name does not exist yet.
std::string folderProblem(const fs::path& folder, int error) {
  if (error == ENOENT) return "the folder '" + folder.string() + "' does not exist";
  if (error == ENOTDIR) return "'" + folder.string() + "' is not a folder";
  return "cannot write in folder '" + folder.string() + "': " + std::strerror(error);
}

fs::path folderOf(const std::string& target) {
  const fs::path folder = fs::path(target).parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

bool sameFile(int fd, const fs::path& path) {
  struct stat opened {}, named {};
  return ::fstat(fd, &opened) == 0 && ::lstat(path.c_str(), &named) == 0 && opened.st_dev == named.st_dev &&
         opened.st_ino == named.st_ino;
}

// Removes `path` if it is a temporary nobody holds (see temporary_file.hpp). Best effort: a
// leftover that cannot be removed (another user's) stays.
void removeIfAbandoned(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat status {};
  // Locked here: its writer is gone. Checked to be still the file of that name, then unlinked
  // while the lock keeps a new writer from taking it (a writer re-checks its name after locking).
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
      sameFile(fd, path))
    ::unlink(path.c_str());
  ::close(fd);
}

// The leftovers of killed runs in `folder`, on the first write of this process there.
void removeAbandonedTemporaries(const fs::path& folder) {
  static std::mutex mutex;
  static std::set<std::string> cleaned;
  std::error_code error;
  fs::directory_iterator it(folder, error);
  if (error) return;  // no folder (yet): creating the temporary will say so
  std::error_code unresolved;
  const fs::path key = fs::weakly_canonical(folder, unresolved);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!cleaned.insert(unresolved ? folder.string() : key.string()).second) return;
  }
  for (const fs::directory_iterator end; !error && it != end; it.increment(error))
    if (isTemporaryName(it->path().filename().string())) removeIfAbandoned(it->path());
}

// Where a write to `target` goes: through symbolic links to the file they name (a link to a
// database stays a link and the database it names is replaced), the path itself otherwise.
std::string followLinks(const std::string& target) {
  fs::path path = target;
  for (int hop = 0; hop < 40; ++hop) {  // Linux's own limit (ELOOP)
    std::error_code error;
    if (!fs::is_symlink(path, error)) return path.string();
    const fs::path next = fs::read_symlink(path, error);
    if (error) throw CannotCreate(target, std::strerror(error.value()));
    path = next.is_absolute() ? next : path.parent_path() / next;
  }
  throw CannotCreate(target, std::strerror(ELOOP));
}

// A new file replaces the old one with the old one's permission bits (a private 0600 database
// stays private); a new target gets the default (0666 less the umask). False (errno set) if it cannot.
bool keepMode(int fd, const std::string& destination) {
  struct stat existing {};
  if (::stat(destination.c_str(), &existing) != 0 || !S_ISREG(existing.st_mode)) return true;
  return ::fchmod(fd, existing.st_mode & 07777) == 0;
}

}  // namespace

std::optional<std::string> creationProblem(const std::string& target) {
  try {
    TemporaryFile probe(target);  // removed by its destructor
  } catch (const CannotCreate& e) {
    return e.problem();
  }
  return std::nullopt;
}

bool isTemporaryName(const std::string& name) {
  const std::size_t prefix = sizeof kPrefix - 1;
  if (name.compare(0, prefix, kPrefix) != 0) return false;
  std::size_t i = prefix;
  for (int field = 0; field < 2; ++field) {
    const std::size_t digits = i;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
    if (i == digits || i >= name.size() || name[i] != '-') return false;
    ++i;
  }
  return i < name.size();
}

TemporaryFile::TemporaryFile(std::string target) : target_(std::move(target)), stream_(nullptr) {
  if (target_.empty()) throw CannotCreate(target_, "the path is empty");
  destination_ = followLinks(target_);
  const fs::path folder = folderOf(destination_);
  removeAbandonedTemporaries(folder);
  static std::atomic<unsigned> counter{0};
  const std::string name = fs::path(destination_).filename().string();
  // Each retry needs another process to take our new file for a leftover in the instant before
  // we lock it, or a process of our pid on another host: a few tries are plenty.
  for (int attempt = 0; fd_ < 0; ++attempt) {
    if (attempt == 100) throw CannotCreate(target_, "no temporary name is free");
    path_ = (folder / (kPrefix + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)) + "-" +
                       name)).string();
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw CannotCreate(target_, folderProblem(folder, errno));
    // Locked (or on a file system without locks, where no cleaner can take it either), and still
    // the file of that name: a cleaner that took it for a leftover before the lock removed it.
    const bool contended = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (!contended && sameFile(fd, path_)) fd_ = fd;
    else ::close(fd);
  }
  if (!keepMode(fd_, destination_)) {
    const int error = errno;
    discard();
    throw CannotCreate(target_, std::strerror(error));
  }
  buffer_ = std::make_unique<CheckedFileBuffer>(fd_);
  stream_.rdbuf(buffer_.get());
}

TemporaryFile::~TemporaryFile() { discard(); }

void TemporaryFile::discard() noexcept {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before the lock goes with close: nobody else could take it anyway
  ::close(fd_);
  fd_ = -1;
}

void TemporaryFile::finish() {
  stream_.flush();
  if (!buffer_->drain()) failed("write", target_, buffer_->error());
  if (!stream_) throw IoError("cannot write '" + target_ + "': the writer's stream failed");
  // On disk before the rename: a crash after it must not leave an empty or partial target.
  if (::fsync(fd_) != 0) failed("write", target_, errno);
}

void TemporaryFile::commit() {
  if (std::rename(path_.c_str(), destination_.c_str()) != 0) failed("write", target_, errno);
  // The rename is done; from here the target is complete whatever happens.
  const int fd = fd_;
  fd_ = -1;
  ::close(fd);
  // Make the rename itself durable. Best effort: some file systems cannot sync a folder, and the
  // new file is already in place, so a failure here is no reason to report the write failed.
  const int folder = ::open(folderOf(destination_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

}  // namespace bovw::detail
