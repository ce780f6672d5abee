// Writing the little-endian fields of bovw's binary files to a stream, and the checksum that
// closes them (docs/FORMATS.md). Output is buffered, so that the stream and the checksum see large
// pieces; large arrays go to the stream directly on a little-endian host. A writer may also write
// into another one: a block with a checksum of its own inside an enclosing file (the index inside
// a database file), streamed through without being held whole in memory.
#pragma once

#include "io/byte_order.hpp"
#include "io/checksum.hpp"

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace bovw::detail {

class ByteWriter {
 public:
  explicit ByteWriter(std::ostream& out);
  // Writes into `enclosing`, which sees every byte (its checksum included) as it is flushed.
  explicit ByteWriter(ByteWriter& enclosing);

  template <typename T>
  void number(T value) {
    unsigned char bytes[sizeof(T)];
    encodeLittleEndian(value, bytes);
    raw(reinterpret_cast<const char*>(bytes), sizeof(T));
  }
  void u32(std::uint32_t v) { number(v); }
  void u64(std::uint64_t v) { number(v); }
  void i32(std::int32_t v) { number(v); }
  void f64(double v) { number(v); }
  void text(const std::string& s) { raw(s.data(), s.size()); }
  void raw(const char* data, std::size_t size);

  // `count` numbers, little-endian.
  template <typename T>
  void array(const T* values, std::size_t count) {
    if constexpr (kHostIsLittleEndian) {
      raw(reinterpret_cast<const char*>(values), sizeof(T) * count);
    } else {
      for (std::size_t i = 0; i < count; ++i) number(values[i]);
    }
  }

  // Writes the checksum of every byte written so far (the file's last field), then flushes.
  void checksum();
  // Hands everything buffered to the stream (whose own errors its owner checks) or the enclosing writer.
  void flush();
  // Bytes written so far, buffered ones included.
  std::uint64_t written() const { return checksum_.length() + buffer_.size(); }

 private:
  void emit(const char* data, std::size_t size);

  std::ostream* out_ = nullptr;       // one of these two
  ByteWriter* enclosing_ = nullptr;
  std::vector<char> buffer_;
  Checksum64 checksum_;
};

}  // namespace bovw::detail
