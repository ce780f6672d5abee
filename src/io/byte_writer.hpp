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
#include <cstring>
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
  // Inline while the bytes fit the buffer: a file of many small fields (a posting is two numbers)
  // costs a copy per field, not a call (a database of 38,400 images took 1.35-1.48 s to save when
  // every number went through a vector insert, 0.32-0.34 s without, on the 2-core VM).
  void raw(const char* data, std::size_t size) {
    if (size > kBufferSize - used_) return rawPastBuffer(data, size);
    if (size != 0) std::memcpy(buffer_.data() + used_, data, size);  // an empty piece may come with null
    used_ += size;
  }

  // `count` numbers, little-endian.
  template <typename T>
  void array(const T* values, std::size_t count) {
    if constexpr (kHostIsLittleEndian) {
      raw(reinterpret_cast<const char*>(values), sizeof(T) * count);
    } else {
      for (std::size_t i = 0; i < count; ++i) number(values[i]);
    }
  }

  // A block of an enclosing file: u64 `bytes`, its length known beforehand, then what `write(*this)`
  // writes, which must be exactly that many bytes (else Error naming `what`: a layout and its
  // length computed apart have diverged).
  template <typename Write>
  void block(std::uint64_t bytes, const char* what, Write&& write) {
    u64(bytes);
    const std::uint64_t start = written();
    write(*this);
    if (written() - start != bytes) blockMismatch(what, bytes, written() - start);
  }

  // Writes the checksum of every byte written so far (the file's last field), then flushes.
  void checksum();
  // Hands everything buffered to the stream (whose own errors its owner checks) or the enclosing writer.
  void flush();
  // Bytes written so far, buffered ones included.
  std::uint64_t written() const { return checksum_.length() + used_; }

 private:
  static constexpr std::size_t kBufferSize = std::size_t{1} << 20;

  void rawPastBuffer(const char* data, std::size_t size);
  [[noreturn]] static void blockMismatch(const char* what, std::uint64_t announced, std::uint64_t took);
  void emit(const char* data, std::size_t size);

  std::ostream* out_ = nullptr;       // one of these two
  ByteWriter* enclosing_ = nullptr;
  std::vector<char> buffer_ = std::vector<char>(kBufferSize);
  std::size_t used_ = 0;  // bytes of buffer_ not yet emitted
  Checksum64 checksum_;
};

}  // namespace bovw::detail
