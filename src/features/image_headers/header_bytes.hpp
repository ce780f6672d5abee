// The first bytes of an image file, read at any offset in either byte order, never past the end:
// what the header readers of image_formats.hpp parse. (io/byte_reader.hpp reads bovw's own
// little-endian files in sequence; image headers are mostly big-endian and read at offsets.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace bovw::detail {

enum class Endian { Little, Big };

class HeaderBytes {
 public:
  // `data` must outlive the view; `path` names the file in failures.
  HeaderBytes(const unsigned char* data, std::size_t size, std::string path)
      : data_(data), size_(size), path_(std::move(path)) {}

  std::size_t size() const { return size_; }
  const unsigned char* data() const { return data_; }
  const std::string& path() const { return path_; }

  // True if the bytes at `at` are `text` (write signatures holding '\0' as "..."sv).
  bool has(std::size_t at, std::string_view text) const;

  // Numbers at byte `at`; an InvalidInput naming the file and `format` if they lie past the end.
  std::uint8_t u8(std::size_t at, const char* format) const;
  std::uint16_t u16(std::size_t at, Endian order, const char* format) const;
  std::uint32_t u32(std::size_t at, Endian order, const char* format) const;
  std::uint64_t u64(std::size_t at, Endian order, const char* format) const;

  // The decimal number whose digits start at `at`, which moves past them; fails if there is none
  // or it exceeds INT_MAX (no header that OpenCV reads holds more).
  std::uint64_t decimal(std::size_t& at, const char* format) const;

  // Throws InvalidInput: "'<path>': not a valid <format> image: <problem>".
  [[noreturn]] void fail(const char* format, const std::string& problem) const;

 private:
  std::uint64_t number(std::size_t at, std::size_t bytes, Endian order, const char* format) const;

  const unsigned char* data_;
  std::size_t size_;
  std::string path_;
};

}  // namespace bovw::detail
