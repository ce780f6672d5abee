// Damage made on purpose must reach the checks that stand behind a file's checksum: these rewrite
// the closing Checksum64 (src/io/checksum.hpp) over the damaged bytes.
#pragma once

#include "io/byte_order.hpp"
#include "io/checksum.hpp"

#include <cstddef>

namespace bovw::test {

// The checksum in bytes [end - 8, end), over bytes [begin, end - 8): a file, or a file inside one.
template <typename Bytes>
void reseal(Bytes& bytes, std::size_t begin, std::size_t end) {
  detail::Checksum64 checksum;
  checksum.update(bytes.data() + begin, end - 8 - begin);
  detail::encodeLittleEndian(checksum.digest(), reinterpret_cast<unsigned char*>(bytes.data() + end - 8));
}

template <typename Bytes>
Bytes resealed(Bytes bytes) {
  reseal(bytes, 0, bytes.size());
  return bytes;
}

}  // namespace bovw::test
