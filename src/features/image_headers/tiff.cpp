// TIFF: ImageWidth (tag 256) and ImageLength (257) of the first image file directory, the page
// OpenCV decodes, striped or tiled alike (TIFF 6.0, section 2). Classic TIFF only: OpenCV 4.6
// does not recognise BigTIFF's signature.
#include "features/image_headers/image_formats.hpp"

namespace bovw::detail {
namespace {

using namespace std::string_view_literals;

constexpr std::uint16_t kImageWidth = 256;
constexpr std::uint16_t kImageLength = 257;
constexpr std::uint16_t kShort = 3;
constexpr std::uint16_t kLong = 4;

}  // namespace

bool isTiff(const HeaderBytes& b) { return b.has(0, "II*\0"sv) || b.has(0, "MM\0*"sv); }

ImageDimensions tiffDimensions(const HeaderBytes& b) {
  const Endian order = b.has(0, "II") ? Endian::Little : Endian::Big;
  const std::size_t directory = b.u32(4, order, "TIFF");
  const std::uint16_t entries = b.u16(directory, order, "TIFF");
  std::optional<std::uint64_t> width, height;
  for (std::size_t i = 0; i < entries; ++i) {
    const std::size_t entry = directory + 2 + 12 * i;
    const std::uint16_t tag = b.u16(entry, order, "TIFF");
    if (tag != kImageWidth && tag != kImageLength) continue;
    const std::uint16_t type = b.u16(entry + 2, order, "TIFF");
    if ((type != kShort && type != kLong) || b.u32(entry + 4, order, "TIFF") != 1)
      b.fail("TIFF", "tag " + std::to_string(tag) + " is not one SHORT or LONG value");
    // A single value sits in the entry's value field, left-justified.
    const std::uint64_t value = type == kShort ? b.u16(entry + 8, order, "TIFF") : b.u32(entry + 8, order, "TIFF");
    (tag == kImageWidth ? width : height) = value;
  }
  if (!width || !height) b.fail("TIFF", "the first directory has no ImageWidth or no ImageLength");
  return {*width, *height};
}

}  // namespace bovw::detail
