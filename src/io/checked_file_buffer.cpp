// CheckedFileBuffer: write(2) in a loop (partial writes, EINTR), the first errno kept.
#include "io/checked_file_buffer.hpp"

#include <unistd.h>

#include <cerrno>

namespace bovw::detail {

namespace {
constexpr std::size_t kBufferSize = std::size_t{1} << 16;
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
  }
  return error_ == 0;
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

}  // namespace bovw::detail
