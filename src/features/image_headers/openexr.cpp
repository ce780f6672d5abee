// OpenEXR: after the magic number and version, the header is a list of attributes (name, type
// name, byte size, value) ended by an empty name; the size decoded is the "dataWindow" box2i
// (xMin, yMin, xMax, yMax, inclusive) of the first header, the part OpenCV reads
// (openexr.com, "OpenEXR File Layout").
#include "features/image_headers/image_formats.hpp"

#include <algorithm>
#include <cstring>

namespace bovw::detail {
namespace {

// The zero-terminated string at `at`, which moves past its terminator.
std::string text(const HeaderBytes& b, std::size_t& at) {
  const auto* begin = reinterpret_cast<const char*>(b.data()) + std::min(at, b.size());
  const std::size_t length = strnlen(begin, b.size() - std::min(at, b.size()));
  if (at + length >= b.size()) b.fail("OpenEXR", "the header ends inside an attribute name");
  at += length + 1;
  return std::string(begin, length);
}

}  // namespace

bool isOpenExr(const HeaderBytes& b) { return b.has(0, "\x76\x2f\x31\x01"); }

ImageDimensions openExrDimensions(const HeaderBytes& b) {
  std::size_t at = 8;
  for (;;) {
    const std::string name = text(b, at);
    if (name.empty()) b.fail("OpenEXR", "the header has no dataWindow attribute");
    const std::string type = text(b, at);
    const std::uint32_t size = b.u32(at, Endian::Little, "OpenEXR");
    at += 4;
    if (name == "dataWindow") {
      if (type != "box2i" || size != 16) b.fail("OpenEXR", "dataWindow is not a box2i");
      auto i32 = [&](std::size_t offset) {
        return std::int64_t(static_cast<std::int32_t>(b.u32(at + offset, Endian::Little, "OpenEXR")));
      };
      const std::int64_t width = i32(8) - i32(0) + 1, height = i32(12) - i32(4) + 1;
      if (width < 1 || height < 1) b.fail("OpenEXR", "dataWindow is empty");
      return {static_cast<std::uint64_t>(width), static_cast<std::uint64_t>(height)};
    }
    if (size > b.size() - at) b.fail("OpenEXR", "the attribute '" + name + "' runs past the end of the file");
    at += size;
  }
}

}  // namespace bovw::detail
