// Reading the little-endian fields of a binary file held in memory, never past its end. Every
// failure is an InvalidInput naming the file: "'F': not a valid <format>: <problem>".
#pragma once

#include "io/byte_order.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace bovw::detail {

class ByteReader {
 public:
  // Reads bytes [data, data + size) of `source` (a file name, for messages), a file of `format`
  // ("bovw index", ...). The bytes must outlive the reader.
  ByteReader(const char* data, std::size_t size, std::string source, std::string format);

  [[noreturn]] void fail(const std::string& problem) const;

  template <typename T>
  T number(const char* what) {
    need(sizeof(T), what);
    const T value = decodeLittleEndian<T>(reinterpret_cast<const unsigned char*>(position_));
    position_ += sizeof(T);
    return value;
  }
  std::uint32_t u32(const char* what) { return number<std::uint32_t>(what); }
  std::uint64_t u64(const char* what) { return number<std::uint64_t>(what); }
  std::int32_t i32(const char* what) { return number<std::int32_t>(what); }
  double f64(const char* what) { return number<double>(what); }
  std::string text(std::size_t length, const char* what);
  // The next `length` bytes, in place: a block that another format reads (a file inside a file).
  const char* take(std::size_t length, const char* what);

  // `count` little-endian numbers into `out`.
  template <typename T>
  void array(T* out, std::size_t count, const char* what) {
    if (count > remaining() / sizeof(T)) truncated(what);  // before sizeof(T) * count can overflow
    const char* bytes = take(sizeof(T) * count, what);
    std::memcpy(out, bytes, sizeof(T) * count);
    swapToOrFromLittleEndian(out, count);
  }

  const char* begin() const { return begin_; }
  std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }
  std::size_t position() const { return static_cast<std::size_t>(position_ - begin_); }
  std::size_t remaining() const { return static_cast<std::size_t>(end_ - position_); }
  // Stops reading `count` bytes before the end (a trailing checksum already verified).
  void dropLast(std::size_t count);
  const std::string& source() const { return source_; }

 private:
  void need(std::size_t count, const char* what) const {
    if (remaining() < count) truncated(what);
  }
  [[noreturn]] void truncated(const char* what) const;

  const char* begin_;
  const char* end_;
  const char* position_;
  std::string source_;
  std::string format_;
};

}  // namespace bovw::detail
