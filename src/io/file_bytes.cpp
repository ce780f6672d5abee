// InputFile: open(2) with O_NONBLOCK, fstat(2) of the descriptor (not of the name, which could
// change between the two), read(2) in a loop. Plain descriptors rather than std::ifstream: a
// filebuf opens with a blocking open(2) and gives no way to look at what it opened.
#include "io/file_bytes.hpp"

#include <bovw/error.hpp>
#include <bovw/input_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace bovw::detail {

namespace {

// What a file of this mode is, for "'P' is <what>, not a regular file"; null for a kind not named.
const char* describe(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return nullptr;
}

[[noreturn]] void refuse(const std::string& path, mode_t mode, const char* kind) {
  const char* what = describe(mode);
  throw IoError("'" + path + "' is " + (what ? std::string(what) + ", not " : "not ") + kind);
}

// Reads of at most 1 GiB each: Linux moves at most 2^31 - 4096 bytes per read(2).
constexpr std::size_t kMaxRead = std::size_t{1} << 30;

}  // namespace

InputFile::InputFile(const std::string& path, const char* kind) : path_(path) {
  do fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) {
    const int error = errno;
    struct stat named {};
    // A socket cannot be opened at all (ENXIO): say what it is rather than "No such device".
    if (::stat(path.c_str(), &named) == 0 && !S_ISREG(named.st_mode)) refuse(path, named.st_mode, kind);
    throw IoError("cannot open '" + path + "': " + std::strerror(error));
  }
  struct stat opened {};
  if (::fstat(fd_, &opened) != 0) {
    const int error = errno;
    ::close(fd_);
    throw IoError("cannot read '" + path + "': " + std::strerror(error));
  }
  if (!S_ISREG(opened.st_mode)) {
    ::close(fd_);
    refuse(path, opened.st_mode, kind);
  }
  // Blocking again: for a regular file the flag means nothing today, but reads must not be able to
  // return EAGAIN on a file system that honours it.
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(opened.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      size_(other.size_),
      position_(other.position_) {}

std::size_t InputFile::readSome(char* out, std::size_t bytes) {
  bytes = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, remaining()));
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::read(fd_, out + done, std::min(bytes - done, kMaxRead));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError("cannot read '" + path_ + "': " + std::strerror(errno));
    if (n == 0)
      throw IoError("cannot read '" + path_ + "': it ended after " + std::to_string(position_ + done) + " of its " +
                    std::to_string(size_) + " bytes (changed while being read?)");
    done += static_cast<std::size_t>(n);
  }
  position_ += done;
  return done;
}

void InputFile::read(char* out, std::size_t bytes) {
  if (bytes > remaining())
    throw IoError("cannot read '" + path_ + "': " + std::to_string(bytes) + " bytes at offset " +
                  std::to_string(position_) + " lie past its end (" + std::to_string(size_) + " bytes)");
  readSome(out, bytes);
}

std::vector<char> InputFile::readRest() {
  std::vector<char> bytes(static_cast<std::size_t>(remaining()));
  read(bytes.data(), bytes.size());
  return bytes;
}

void InputFile::seek(std::uint64_t offset) {
  if (offset > size_ || ::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0)
    throw IoError("cannot read '" + path_ + "': cannot move to offset " + std::to_string(offset));
  position_ = offset;
}

std::vector<char> readFileBytes(const std::string& path, const char* kind) { return InputFile(path, kind).readRest(); }

}  // namespace bovw::detail

namespace bovw {

std::string readInputFile(const std::string& path) {
  detail::InputFile file(path);
  std::string text(static_cast<std::size_t>(file.size()), '\0');
  file.read(text.data(), text.size());
  return text;
}

}  // namespace bovw
