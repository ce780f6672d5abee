// Sun raster: a big-endian magic number, then width and height as 32-bit values.
#include "features/image_headers/image_formats.hpp"

namespace bovw::detail {

bool isSunRaster(const HeaderBytes& b) { return b.has(0, "\x59\xa6\x6a\x95"); }

ImageDimensions sunRasterDimensions(const HeaderBytes& b) {
  return {b.u32(4, Endian::Big, "Sun raster"), b.u32(8, Endian::Big, "Sun raster")};
}

}  // namespace bovw::detail
