// JPEG: width and height from the first start-of-frame marker (ITU T.81 B.2.2), found by walking
// the marker segments that precede it.
#include "features/image_headers/image_formats.hpp"

namespace bovw::detail {

bool isJpeg(const HeaderBytes& b) { return b.has(0, "\xff\xd8\xff"); }

ImageDimensions jpegDimensions(const HeaderBytes& b) {
  std::size_t at = 2;
  for (;;) {
    if (b.u8(at, "JPEG") != 0xFF) b.fail("JPEG", "no marker at byte " + std::to_string(at));
    const std::uint8_t marker = b.u8(at + 1, "JPEG");
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // TEM and RSTn stand alone
      at += 2;
      continue;
    }
    if (marker == 0xD9 || marker == 0xDA) b.fail("JPEG", "no frame header (SOF marker) before the image data");
    // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC): P, Y (height), X (width), ...
    const bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame) return {b.u16(at + 7, Endian::Big, "JPEG"), b.u16(at + 5, Endian::Big, "JPEG")};
    at += 2 + b.u16(at + 2, Endian::Big, "JPEG");
  }
}

}  // namespace bovw::detail
