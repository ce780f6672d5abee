// The frame of every binary file bovw writes (.bovw, .bovwdb, inverted index; docs/FORMATS.md):
//
//   offset  size  field
//        0     8  magic, naming the format
//        8     4  format version
//       12     4  byte-order mark 0x01020304 (all integers and floats are little-endian)
//       16     .  the format's own fields
//   end - 8    8  Checksum64 of every byte before it (versions that have one)
//
// One check of the header for all formats, so that a wrong file, a newer version or a file of the
// other byte order is named the same way everywhere.
#pragma once

#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"

#include <cstddef>
#include <cstdint>

namespace bovw::detail {

struct BinaryFormat {
  const char* name;            // in messages: "'F': not a valid <name>: ..."
  char magic[8];
  std::uint32_t version;       // the version written
  std::uint32_t oldest;        // the oldest version still read
  std::uint32_t first_summed;  // the first version that ends in a checksum
};

inline constexpr std::size_t kFileHeaderSize = 16;
inline constexpr std::size_t kChecksumSize = 8;

void writeFileHeader(ByteWriter& out, const BinaryFormat& format);

// Checks the magic (first, on what prefix there is: a wrong file is called that, not "truncated"),
// the version and the byte-order mark; returns the version. Fails through `in`.
std::uint32_t readFileHeader(ByteReader& in, const BinaryFormat& format);

// Checks the checksum in the last 8 bytes of `in` against every byte before them, then leaves
// `in` reading only up to it. Fails through `in`.
void readTrailingChecksum(ByteReader& in);

// The same for a file read piece by piece: `digest` of all bytes before the checksum, `stored` its
// 8 bytes. Fails through `in` (whose bytes are not looked at).
void checkChecksum(const ByteReader& in, std::uint64_t digest, const unsigned char* stored);

}  // namespace bovw::detail
