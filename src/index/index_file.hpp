// The inverted index's file format (version 1). All integers little-endian.
//
//   offset  size  field
//        0     8  magic "BOVWINDX"
//        8     4  version (1)
//       12     4  byte-order mark 0x01020304 (the header of io/file_header.hpp)
//       16     4  K, words in the vocabulary (1 .. 2^24)
//       20     4  D, descriptor width (>= 1)
//       24     8  vocabulary fingerprint (0: not recorded)
//       32     4  S, ids ever assigned (removed ones included; the next id is S)
//       36     4  N, live images (<= S)
//       40     8  P, postings in all lists
//       48     4  L, non-empty posting lists (<= K, <= P)
//       52     4  T, length of the descriptor type (<= 255)
//       56     T  descriptor type (bytes)
//   S times:      u32 name length, name bytes (length 0: the id was removed)
//   L times:      u32 word (strictly increasing, < K), u32 n (>= 1),
//                 n times: u32 image id (strictly increasing, < S, live), u32 count (1 .. 2^31-1)
//   then          u64 checksum (Checksum64) of every preceding byte
//
// Per-image totals, idf and norms are derived on load, so they cannot disagree with the lists.
#pragma once

#include "index/index_data.hpp"
#include "io/byte_writer.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace bovw::index_detail {

constexpr std::size_t kHeaderSize = 56;  // up to the descriptor type

void writeIndex(std::ostream& out, const IndexData& data);
// The same file as a block of an enclosing one (a database file): u64 its length, then its bytes,
// streamed into `out` as they are made.
void writeIndexBlock(detail::ByteWriter& out, const IndexData& data);

// Throws IoError if `path` cannot be read (or is not a regular file), InvalidInput naming `path`
// and the problem otherwise: from its first 56 bytes if they are wrong or declare more than the
// file's size can hold, before the rest is read.
IndexData readIndex(const std::string& path);

// The same from bytes already in memory (an index embedded in another file); `path` names the
// source. With `expected`, an index of another vocabulary is refused (checkSameVocabulary's
// InvalidInput, naming no file) before anything is allocated per word.
IndexData decodeIndex(const char* file, std::size_t size, const std::string& path,
                      const VocabularySignature* expected = nullptr);

}  // namespace bovw::index_detail
