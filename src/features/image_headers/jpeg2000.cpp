// JPEG 2000 (OpenJPEG): the codestream's SIZ segment gives the reference grid (Xsiz, Ysiz) and the
// image offset on it (XOsiz, YOsiz), the image being (Xsiz - XOsiz) x (Ysiz - YOsiz) (ITU T.800
// A.5.1). A JP2 file wraps the codestream in its "jp2c" box (annex I); its size is taken from the
// codestream, which is what OpenJPEG decodes, not from the header box that may disagree.
#include "features/image_headers/image_formats.hpp"

namespace bovw::detail {
namespace {

using namespace std::string_view_literals;

ImageDimensions codestreamDimensions(const HeaderBytes& b, std::size_t at, const char* format) {
  if (!b.has(at, "\xff\x4f\xff\x51")) b.fail(format, "the codestream does not start with SOC and SIZ markers");
  const std::uint32_t x = b.u32(at + 8, Endian::Big, format), y = b.u32(at + 12, Endian::Big, format);
  const std::uint32_t x0 = b.u32(at + 16, Endian::Big, format), y0 = b.u32(at + 20, Endian::Big, format);
  if (x0 >= x || y0 >= y) b.fail(format, "the image offset lies outside the reference grid");
  return {x - x0, y - y0};
}

}  // namespace

bool isJ2k(const HeaderBytes& b) { return b.has(0, "\xff\x4f\xff\x51"); }
ImageDimensions j2kDimensions(const HeaderBytes& b) { return codestreamDimensions(b, 0, "JPEG 2000"); }

bool isJp2(const HeaderBytes& b) { return b.has(0, "\0\0\0\x0cjP  \r\n\x87\n"sv); }

ImageDimensions jp2Dimensions(const HeaderBytes& b) {
  std::size_t at = 0;
  while (at < b.size()) {
    // A box: 32-bit length (1: a 64-bit length follows the type; 0: up to the end), 4-byte type.
    std::uint64_t length = b.u32(at, Endian::Big, "JP2");
    std::size_t header = 8;
    if (length == 1) length = b.u64(at + 8, Endian::Big, "JP2"), header = 16;
    if (length == 0) length = b.size() - at;
    if (length < header) b.fail("JP2", "a box at byte " + std::to_string(at) + " is shorter than its header");
    if (b.has(at + 4, "jp2c")) return codestreamDimensions(b, at + header, "JP2");
    if (length > b.size() - at) break;
    at += static_cast<std::size_t>(length);
  }
  b.fail("JP2", "no codestream box (jp2c)");
}

}  // namespace bovw::detail
