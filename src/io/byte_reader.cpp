// ByteReader: bounds-checked reads with the file's name in every failure.
#include "io/byte_reader.hpp"

#include <bovw/error.hpp>

namespace bovw::detail {

ByteReader::ByteReader(const char* data, std::size_t size, std::string source, std::string format)
    : begin_(data), end_(data + size), position_(data), source_(std::move(source)), format_(std::move(format)) {}

void ByteReader::fail(const std::string& problem) const {
  throw InvalidInput(source_, "not a valid " + format_ + ": " + problem);
}

void ByteReader::truncated(const char* what) const {
  fail(std::string("the file ends inside ") + what + " at byte " + std::to_string(position()) + " (truncated?)");
}

std::string ByteReader::text(std::size_t length, const char* what) {
  const char* bytes = take(length, what);
  return std::string(bytes, length);
}

const char* ByteReader::take(std::size_t length, const char* what) {
  need(length, what);
  const char* bytes = position_;
  position_ += length;
  return bytes;
}

void ByteReader::dropLast(std::size_t count) {
  need(count, "the checksum");
  end_ -= count;
}

}  // namespace bovw::detail
