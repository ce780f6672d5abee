// The common header of bovw's binary files and their closing checksum.
#include "io/file_header.hpp"

#include "io/checksum.hpp"

#include <algorithm>
#include <cstring>

namespace bovw::detail {

namespace {

constexpr std::uint32_t kByteOrderMark = 0x01020304u;
constexpr std::uint32_t kSwappedByteOrderMark = 0x04030201u;

std::string magicText(const char (&magic)[8]) {
  std::string text(magic, sizeof magic);
  text.erase(text.find_last_not_of('\0') + 1);
  return text;
}

}  // namespace

void writeFileHeader(ByteWriter& out, const BinaryFormat& format) {
  out.raw(format.magic, sizeof format.magic);
  out.u32(format.version);
  out.u32(kByteOrderMark);
}

std::uint32_t readFileHeader(ByteReader& in, const BinaryFormat& format) {
  if (in.size() == 0) in.fail("the file is empty");
  const std::size_t prefix = std::min(in.size(), sizeof format.magic);
  if (std::memcmp(in.begin(), format.magic, prefix) != 0)
    in.fail("wrong magic (expected \"" + magicText(format.magic) + "\")");
  in.take(sizeof format.magic, "the magic");
  const std::uint32_t version = in.u32("the version");
  if (version < format.oldest || version > format.version)
    in.fail("format version " + std::to_string(version) + "; this build reads version " +
            (format.oldest == format.version ? "" : std::to_string(format.oldest) + " to ") +
            std::to_string(format.version));
  const std::uint32_t mark = in.u32("the byte-order mark");
  if (mark == kSwappedByteOrderMark)
    in.fail("byte-order mark 0x04030201: the file was written big-endian; bovw's files are little-endian");
  if (mark != kByteOrderMark) in.fail("bad byte-order mark");
  return version;
}

void readTrailingChecksum(ByteReader& in) {
  const std::size_t summed = in.size() < kChecksumSize ? 0 : in.size() - kChecksumSize;
  Checksum64 checksum;
  checksum.update(in.begin(), summed);
  in.dropLast(kChecksumSize);
  checkChecksum(in, checksum.digest(), reinterpret_cast<const unsigned char*>(in.begin() + summed));
}

void checkChecksum(const ByteReader& in, std::uint64_t digest, const unsigned char* stored) {
  if (decodeLittleEndian<std::uint64_t>(stored) != digest)
    in.fail("checksum mismatch (the file is corrupt or truncated)");
}

}  // namespace bovw::detail
