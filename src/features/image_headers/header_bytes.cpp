// HeaderBytes: bounds-checked header fields with the file and the format in every failure.
#include "features/image_headers/header_bytes.hpp"

#include <bovw/error.hpp>

#include <climits>
#include <cstring>

namespace bovw::detail {

bool HeaderBytes::has(std::size_t at, std::string_view text) const {
  return at <= size_ && text.size() <= size_ - at && std::memcmp(data_ + at, text.data(), text.size()) == 0;
}

std::uint64_t HeaderBytes::number(std::size_t at, std::size_t bytes, Endian order, const char* format) const {
  if (at > size_ || bytes > size_ - at)
    fail(format, "the header ends early (the file has " + std::to_string(size_) + " bytes, a field at byte " +
                     std::to_string(at) + " needs " + std::to_string(bytes) + ")");
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    const std::size_t byte = order == Endian::Big ? at + i : at + bytes - 1 - i;
    value = (value << 8) | data_[byte];
  }
  return value;
}

std::uint8_t HeaderBytes::u8(std::size_t at, const char* format) const {
  return static_cast<std::uint8_t>(number(at, 1, Endian::Big, format));
}
std::uint16_t HeaderBytes::u16(std::size_t at, Endian order, const char* format) const {
  return static_cast<std::uint16_t>(number(at, 2, order, format));
}
std::uint32_t HeaderBytes::u32(std::size_t at, Endian order, const char* format) const {
  return static_cast<std::uint32_t>(number(at, 4, order, format));
}
std::uint64_t HeaderBytes::u64(std::size_t at, Endian order, const char* format) const {
  return number(at, 8, order, format);
}

std::uint64_t HeaderBytes::decimal(std::size_t& at, const char* format) const {
  auto digit = [&](std::size_t i) { return i < size_ && data_[i] >= '0' && data_[i] <= '9'; };
  if (!digit(at)) fail(format, "expected a number at byte " + std::to_string(at));
  std::uint64_t value = 0;
  for (; digit(at); ++at) {
    value = value * 10 + (data_[at] - '0');
    if (value > INT_MAX) fail(format, "a number in the header is above " + std::to_string(INT_MAX));
  }
  return value;
}

void HeaderBytes::fail(const char* format, const std::string& problem) const {
  throw InvalidInput(path_, std::string("not a valid ") + format + " image: " + problem);
}

}  // namespace bovw::detail
