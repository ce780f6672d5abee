// WebP: a RIFF file whose first chunk is the image (VP8 lossy, VP8L lossless) or the extended
// header VP8X with the canvas size that libwebp decodes to (RFC 9649, sections 2.5-2.7).
#include "features/image_headers/image_formats.hpp"

namespace bovw::detail {

bool isWebp(const HeaderBytes& b) { return b.has(0, "RIFF") && b.has(8, "WEBP"); }

ImageDimensions webpDimensions(const HeaderBytes& b) {
  constexpr std::size_t kData = 20;  // after "RIFF", size, "WEBP", the chunk's tag and size
  if (b.has(12, "VP8 ")) {
    // A 3-byte frame tag, the start code 9d 01 2a, then 14-bit width and height (and 2 scale bits).
    if (!b.has(kData + 3, "\x9d\x01\x2a")) b.fail("WebP", "the VP8 frame has no start code");
    return {b.u16(kData + 6, Endian::Little, "WebP") & 0x3fffu, b.u16(kData + 8, Endian::Little, "WebP") & 0x3fffu};
  }
  if (b.has(12, "VP8L")) {
    // Signature 0x2f, then 14 bits of width - 1 and 14 bits of height - 1.
    if (b.u8(kData, "WebP") != 0x2f) b.fail("WebP", "the VP8L chunk has no signature byte");
    const std::uint32_t bits = b.u32(kData + 1, Endian::Little, "WebP");
    return {(bits & 0x3fffu) + 1, ((bits >> 14) & 0x3fffu) + 1};
  }
  if (b.has(12, "VP8X")) {
    // Flags (4 bytes), then 24-bit canvas width - 1 and height - 1.
    auto u24 = [&](std::size_t at) {
      return std::uint64_t(b.u16(at, Endian::Little, "WebP")) | (std::uint64_t(b.u8(at + 2, "WebP")) << 16);
    };
    return {u24(kData + 4) + 1, u24(kData + 7) + 1};
  }
  b.fail("WebP", "the first chunk is none of VP8, VP8L, VP8X");
}

}  // namespace bovw::detail
