// The .bovw vocabulary format: the common header, the descriptor type, K x D float32 rows, and
// (from version 2) the checksum of every byte before it. All little-endian.
//
//   offset  size  field
//   0       8     magic "BOVWVOC\0"
//   8       4     format version (2; version 1 files are read too)
//   12      4     byte-order mark 0x01020304
//   16      4     dtype code (1 = float32)
//   20      4     K (words)
//   24      4     D (descriptor width)
//   28      4     length L of the descriptor type name (at most 255)
//   32      L     descriptor type name (ASCII, e.g. "surf64")
//   32+L    4KD   centroids, row-major
//   32+L+4KD 8    Checksum64 of bytes 0 .. 32+L+4KD-1 (version 2; version 1 ends before it)
//
// Loading checks the header and the exact file size, then reads the rows straight into the matrix:
// one sequential read, so a 1,000,000 x 64 vocabulary (256 MB) loads at disk speed.
#include "io/vocabulary_formats.hpp"

#include "io/checksum.hpp"
#include "io/file_bytes.hpp"
#include "io/file_header.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <algorithm>

namespace bovw::detail {

namespace {

constexpr BinaryFormat kFormat{".bovw vocabulary", {'B', 'O', 'V', 'W', 'V', 'O', 'C', '\0'}, 2, 1, 2};
constexpr std::uint32_t kFloat32 = 1;
constexpr std::uint32_t kMaxTypeLength = 255;
constexpr std::size_t kHeaderSize = 32;

struct Header {
  std::uint32_t version, words, dimension, type_length;
  bool summed() const { return version >= kFormat.first_summed; }
};

// Reads and checks the 32-byte header of a file (or embedded block) of `size` bytes.
Header readHeader(ByteReader& in, std::uint64_t size) {
  Header h{};
  h.version = readFileHeader(in, kFormat);
  const std::uint32_t dtype = in.u32("the dtype code");
  h.words = in.u32("K");
  h.dimension = in.u32("D");
  h.type_length = in.u32("the descriptor type's length");
  if (dtype != kFloat32) in.fail("dtype code " + std::to_string(dtype) + ", expected 1 (float32)");
  if (h.words == 0 || h.dimension == 0) in.fail("K or D is 0");
  if (h.type_length > kMaxTypeLength) in.fail("descriptor type name too long");
  // K x D < 2^64 always; compared before it is multiplied by 4, which could wrap.
  if (std::uint64_t{h.words} * h.dimension > size / sizeof(float))
    in.fail("K = " + std::to_string(h.words) + ", D = " + std::to_string(h.dimension) + " need more than the " +
            std::to_string(size) + " bytes there are");
  const std::uint64_t expected = kHeaderSize + h.type_length +
                                 sizeof(float) * std::uint64_t{h.words} * h.dimension +
                                 (h.summed() ? kChecksumSize : 0);
  if (size != expected)
    in.fail("K = " + std::to_string(h.words) + ", D = " + std::to_string(h.dimension) + " need " +
            std::to_string(expected) + " bytes, there are " + std::to_string(size));
  return h;
}

Vocabulary makeVocabulary(Descriptors words, const std::string& type, const std::string& source) {
  return namingFile(source, [&] { return Vocabulary(std::move(words), DescriptorType::parse(type)); });
}

}  // namespace

void writeVocabularyBinary(std::ostream& out, const Vocabulary& vocabulary) {
  const std::string type = vocabulary.descriptorType().toString();
  if (type.size() > kMaxTypeLength) throw InvalidInput("descriptor type name longer than 255 characters");
  ByteWriter w(out);
  writeFileHeader(w, kFormat);
  w.u32(kFloat32);
  w.u32(static_cast<std::uint32_t>(vocabulary.size()));
  w.u32(static_cast<std::uint32_t>(vocabulary.dimension()));
  w.u32(static_cast<std::uint32_t>(type.size()));
  w.text(type);
  w.array(vocabulary.centroids().data(), static_cast<std::size_t>(vocabulary.centroids().size()));
  w.checksum();
}

void saveVocabularyBinary(const std::string& path, const Vocabulary& vocabulary) {
  writeFileAtomically(path, [&](std::ostream& out) { writeVocabularyBinary(out, vocabulary); });
}

Vocabulary loadVocabularyBinary(const std::string& path) {
  InputFile file(path);
  char head[kHeaderSize];
  const std::size_t head_size = static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), kHeaderSize));
  file.read(head, head_size);
  ByteReader in(head, head_size, path, kFormat.name);
  const Header header = readHeader(in, file.size());  // the size is exact: the reads below cannot fail short
  std::string type(header.type_length, '\0');
  file.read(type.data(), type.size());
  // One sequential read straight into the matrix; the checksum is taken over the file's bytes
  // before they are put in the host's byte order.
  Descriptors words(header.words, header.dimension);
  file.read(reinterpret_cast<char*>(words.data()), sizeof(float) * static_cast<std::size_t>(words.size()));
  if (header.summed()) {
    Checksum64 checksum;
    checksum.update(head, kHeaderSize);
    checksum.update(type.data(), type.size());
    checksum.update(words.data(), sizeof(float) * static_cast<std::size_t>(words.size()));
    unsigned char stored[kChecksumSize];
    file.read(reinterpret_cast<char*>(stored), kChecksumSize);
    checkChecksum(in, checksum.digest(), stored);
  }
  swapToOrFromLittleEndian(words.data(), static_cast<std::size_t>(words.size()));
  return makeVocabulary(std::move(words), type, path);
}

Vocabulary decodeVocabularyBinary(const char* bytes, std::size_t size, const std::string& source) {
  ByteReader in(bytes, size, source, kFormat.name);
  const Header header = readHeader(in, size);
  if (header.summed()) readTrailingChecksum(in);
  std::string type = in.text(header.type_length, "the descriptor type");
  Descriptors words(header.words, header.dimension);
  in.array(words.data(), static_cast<std::size_t>(words.size()), "the centroids");
  return makeVocabulary(std::move(words), type, source);
}

}  // namespace bovw::detail
