// PNG: the IHDR chunk, which must come first, holds width and height (big-endian, PNG spec 11.2.2).
#include "features/image_headers/image_formats.hpp"

namespace bovw::detail {

bool isPng(const HeaderBytes& b) { return b.has(0, "\x89PNG\r\n\x1a\n"); }

ImageDimensions pngDimensions(const HeaderBytes& b) {
  if (!b.has(12, "IHDR")) b.fail("PNG", "the first chunk is not IHDR");
  return {b.u32(16, Endian::Big, "PNG"), b.u32(20, Endian::Big, "PNG")};
}

}  // namespace bovw::detail
