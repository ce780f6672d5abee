// The .bovw vocabulary format: a 32-byte header, the descriptor type, then K x D float32 rows.
//
//   offset  size  field
//   0       8     magic "BOVWVOC\0"
//   8       4     format version (1)
//   12      4     byte-order mark 0x01020304 as written by the saving machine
//   16      4     dtype code (1 = float32)
//   20      4     K (words)
//   24      4     D (descriptor width)
//   28      4     length L of the descriptor type name (at most 255)
//   32      L     descriptor type name (ASCII, e.g. "surf64")
//   32+L    4KD   centroids, row-major
//
// Loading reads the header, checks it and the exact file size, then reads the rows straight into
// the matrix: one sequential read, so a 1,000,000 x 64 vocabulary (256 MB) loads at disk speed.
#include "io/vocabulary_formats.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace bovw::detail {

namespace {

constexpr char kMagic[8] = {'B', 'O', 'V', 'W', 'V', 'O', 'C', '\0'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrderMark = 0x01020304;
constexpr std::uint32_t kByteOrderSwapped = 0x04030201;
constexpr std::uint32_t kFloat32 = 1;
constexpr std::uint32_t kMaxTypeLength = 255;
constexpr std::size_t kHeaderSize = 32;

struct Header {
  char magic[8];
  std::uint32_t version, byte_order, dtype, words, dimension, type_length;
};
static_assert(sizeof(Header) == kHeaderSize, "the header is written as one block");

[[noreturn]] void corrupt(const std::string& path, const std::string& what) {
  throw InvalidInput("'" + path + "' is not a valid .bovw vocabulary: " + what);
}

}  // namespace

void writeVocabularyBinary(std::ostream& out, const Vocabulary& vocabulary) {
  const std::string& type = vocabulary.descriptorType();
  if (type.size() > kMaxTypeLength) throw InvalidInput("descriptor type name longer than 255 characters");
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.version = kVersion;
  header.byte_order = kByteOrderMark;
  header.dtype = kFloat32;
  header.words = static_cast<std::uint32_t>(vocabulary.size());
  header.dimension = static_cast<std::uint32_t>(vocabulary.dimension());
  header.type_length = static_cast<std::uint32_t>(type.size());
  out.write(reinterpret_cast<const char*>(&header), sizeof(header));
  out.write(type.data(), static_cast<std::streamsize>(type.size()));
  out.write(reinterpret_cast<const char*>(vocabulary.centroids().data()),
            static_cast<std::streamsize>(sizeof(float) * vocabulary.centroids().size()));
}

void saveVocabularyBinary(const std::string& path, const Vocabulary& vocabulary) {
  writeFileAtomically(path, [&](std::ostream& out) { writeVocabularyBinary(out, vocabulary); });
}

namespace {

// Checks a header against the total size of its file (or embedded block); returns the type length.
void checkHeader(const Header& header, std::uint64_t size, const std::string& source) {
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0) corrupt(source, "bad magic (expected BOVWVOC)");
  if (header.byte_order == kByteOrderSwapped) corrupt(source, "written on a machine of the other byte order");
  if (header.byte_order != kByteOrderMark) corrupt(source, "bad byte-order mark");
  if (header.version != kVersion)
    corrupt(source, "format version " + std::to_string(header.version) + ", this build reads version 1");
  if (header.dtype != kFloat32) corrupt(source, "dtype code " + std::to_string(header.dtype) + ", expected 1 (float32)");
  if (header.words == 0 || header.dimension == 0) corrupt(source, "K or D is 0");
  if (header.type_length > kMaxTypeLength) corrupt(source, "descriptor type name too long");
  const std::uint64_t expected =
      kHeaderSize + header.type_length + sizeof(float) * std::uint64_t{header.words} * header.dimension;
  if (size != expected)
    corrupt(source, "K = " + std::to_string(header.words) + ", D = " + std::to_string(header.dimension) + " need " +
                        std::to_string(expected) + " bytes, there are " + std::to_string(size));
}

Vocabulary makeVocabulary(Descriptors words, std::string type, const std::string& source) {
  try {
    return Vocabulary(std::move(words), std::move(type));
  } catch (const InvalidInput& e) {
    throw InvalidInput("'" + source + "': " + e.what());
  }
}

}  // namespace

Vocabulary loadVocabularyBinary(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw IoError("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  const std::uint64_t file_size = std::filesystem::file_size(path, error);
  Header header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof(header))) corrupt(path, "shorter than its 32-byte header");
  checkHeader(header, file_size, path);
  std::string type(header.type_length, '\0');
  in.read(type.data(), header.type_length);
  // One sequential read straight into the matrix: a 1,000,000 x 64 vocabulary loads at disk speed.
  Descriptors words(header.words, header.dimension);
  if (!in.read(reinterpret_cast<char*>(words.data()), static_cast<std::streamsize>(sizeof(float) * words.size())))
    corrupt(path, "truncated data");
  return makeVocabulary(std::move(words), std::move(type), path);
}

Vocabulary decodeVocabularyBinary(const char* bytes, std::size_t size, const std::string& source) {
  Header header{};
  if (size < sizeof(header)) corrupt(source, "shorter than its 32-byte header");
  std::memcpy(&header, bytes, sizeof(header));
  checkHeader(header, size, source);
  std::string type(bytes + kHeaderSize, header.type_length);
  Descriptors words(header.words, header.dimension);
  std::memcpy(words.data(), bytes + kHeaderSize + header.type_length, sizeof(float) * words.size());
  return makeVocabulary(std::move(words), std::move(type), source);
}

}  // namespace bovw::detail
