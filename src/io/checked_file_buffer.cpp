// CheckedFileBuffer: write(2) in a loop (partial writes, EINTR), the first errno kept;
// sync_file_range(2) to start the writeback early; lseek(2) to seek.
#include "io/checked_file_buffer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace bovw::detail {

namespace {
constexpr std::size_t kBufferSize = std::size_t{1} << 16;
constexpr std::size_t kWritebackBytes = std::size_t{8} << 20;
}  // namespace

CheckedFileBuffer::CheckedFileBuffer(int fd) : fd_(fd), buffer_(kBufferSize) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

bool CheckedFileBuffer::writeAll(const char* data, std::size_t size) {
  while (size > 0 && error_ == 0) {
    const ssize_t written = ::write(fd_, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      error_ = written < 0 ? errno : EIO;  // write(2) of a regular file returns 0 only in error
      break;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
    startWriteback(static_cast<std::size_t>(written));
  }
  return error_ == 0;
}

// Advice only: a file system without it (tmpfs, some network ones) writes back when it would
// anyway, and fsync still decides durability, so its failures are ignored.
void CheckedFileBuffer::startWriteback(std::size_t written) {
  unsubmitted_ += written;
  if (unsubmitted_ < kWritebackBytes) return;
  unsubmitted_ = 0;
  (void)::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);  // the file's dirty pages, not waited for
}

bool CheckedFileBuffer::drain() {
  const bool ok = writeAll(pbase(), static_cast<std::size_t>(pptr() - pbase()));
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return ok;
}

CheckedFileBuffer::int_type CheckedFileBuffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize CheckedFileBuffer::xsputn(const char* data, std::streamsize size) {
  if (error_ != 0) return 0;
  const auto n = static_cast<std::size_t>(size);
  if (n <= static_cast<std::size_t>(epptr() - pptr())) {
    traits_type::copy(pptr(), data, n);
    pbump(static_cast<int>(n));
    return size;
  }
  // Larger than the room left: out with the buffer, then the data directly (no copy).
  if (!drain() || !writeAll(data, n)) return 0;
  return size;
}

int CheckedFileBuffer::sync() { return drain() ? 0 : -1; }

CheckedFileBuffer::pos_type CheckedFileBuffer::seekoff(off_type offset, std::ios_base::seekdir direction,
                                                       std::ios_base::openmode which) {
  if (!(which & std::ios_base::out) || !drain()) return pos_type(off_type(-1));
  const int whence = direction == std::ios_base::beg ? SEEK_SET : direction == std::ios_base::cur ? SEEK_CUR : SEEK_END;
  const off_t at = ::lseek(fd_, static_cast<off_t>(offset), whence);
  if (at < 0) {
    error_ = errno;
    return pos_type(off_type(-1));
  }
  return pos_type(static_cast<off_type>(at));
}

CheckedFileBuffer::pos_type CheckedFileBuffer::seekpos(pos_type position, std::ios_base::openmode which) {
  return seekoff(off_type(position), std::ios_base::beg, which);
}

}  // namespace bovw::detail
