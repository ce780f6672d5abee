// Messages between ranks are written and read with the binary files' toolkit (io/byte_writer.hpp,
// io/byte_reader.hpp): every field has one little-endian layout, whatever the hosts, and a short or
// damaged message is refused naming it rather than read past its end.
#pragma once

#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"

#include <bovw/communicator.hpp>
#include <bovw/inverted_index.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace bovw::detail {

// The bytes `write` writes.
inline Bytes writeMessage(const std::function<void(ByteWriter&)>& write) {
  std::ostringstream out;
  ByteWriter writer(out);
  write(writer);
  writer.flush();
  const std::string bytes = out.str();
  return Bytes(bytes.begin(), bytes.end());
}

// A reader of `bytes` (which must outlive it); `what` names the message in errors ("rank 2's
// results").
inline ByteReader messageReader(const Bytes& bytes, const std::string& what) {
  return ByteReader(reinterpret_cast<const char*>(bytes.data()), bytes.size(), what, "bovw rank message");
}

// Throws InvalidInput if `reader` has bytes left: a message of another layout.
inline void expectMessageEnd(const ByteReader& reader) {
  if (reader.remaining() != 0) reader.fail(std::to_string(reader.remaining()) + " bytes left over at its end");
}

// Fields that several messages share (rank_message.cpp). A count of items of at least `item_bytes`
// bytes each, refused if the message cannot hold them (so nothing is allocated for a forged count).
std::size_t readCount(ByteReader& in, std::size_t item_bytes, const char* what);
void writeText(ByteWriter& out, const std::string& text);  // its length, then its bytes
std::string readText(ByteReader& in, const char* what);
// A histogram as its length and its non-zero counts by word (an image holds a few thousand words
// of a vocabulary of up to millions); read back whole, at most bovw's 2^24 words long.
void writeSparseHistogram(ByteWriter& out, HistogramRef histogram);
std::vector<std::int32_t> readSparseHistogram(ByteReader& in);

}  // namespace bovw::detail
