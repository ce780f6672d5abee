// BMP: after the 14-byte file header, the DIB header's size tells its kind: the OS/2 core header
// (12 bytes) has 16-bit width and height, every later one signed 32-bit values, a negative height
// meaning rows stored top-down.
#include "features/image_headers/image_formats.hpp"

namespace bovw::detail {
namespace {

std::uint64_t magnitude(std::uint32_t bits) {
  const auto value = static_cast<std::int64_t>(static_cast<std::int32_t>(bits));
  return static_cast<std::uint64_t>(value < 0 ? -value : value);
}

}  // namespace

bool isBmp(const HeaderBytes& b) { return b.has(0, "BM"); }

ImageDimensions bmpDimensions(const HeaderBytes& b) {
  const std::uint32_t header_size = b.u32(14, Endian::Little, "BMP");
  if (header_size == 12) return {b.u16(18, Endian::Little, "BMP"), b.u16(20, Endian::Little, "BMP")};
  if (header_size < 16) b.fail("BMP", "unknown DIB header size " + std::to_string(header_size));
  return {magnitude(b.u32(18, Endian::Little, "BMP")), magnitude(b.u32(22, Endian::Little, "BMP"))};
}

}  // namespace bovw::detail
