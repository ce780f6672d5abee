// Messages between ranks are written and read with the binary files' toolkit (io/byte_writer.hpp,
// io/byte_reader.hpp): every field has one little-endian layout, whatever the hosts, and a short or
// damaged message is refused naming it rather than read past its end.
#pragma once

#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"

#include <bovw/communicator.hpp>

#include <functional>
#include <sstream>
#include <string>

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

}  // namespace bovw::detail
