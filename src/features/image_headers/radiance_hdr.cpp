// Radiance HDR (RGBE): text header lines up to an empty line, then the resolution string, such as
// "-Y 480 +X 640" (height first) or "+X 640 -Y 480" (width first; OpenCV reads only the former).
#include "features/image_headers/image_formats.hpp"

#include <algorithm>
#include <string_view>

namespace bovw::detail {

bool isRadianceHdr(const HeaderBytes& b) { return b.has(0, "#?RGBE") || b.has(0, "#?RADIANCE"); }

ImageDimensions radianceHdrDimensions(const HeaderBytes& b) {
  const char* begin = reinterpret_cast<const char*>(b.data());
  const char* end = begin + b.size();
  constexpr std::string_view kBlankLine = "\n\n";
  const char* blank = std::search(begin, end, kBlankLine.begin(), kBlankLine.end());
  if (blank == end) b.fail("Radiance HDR", "the header has no end (empty line)");
  std::size_t at = static_cast<std::size_t>(blank - begin) + 2;
  // One axis: a sign, X or Y, a space and the number of pixels along it.
  auto axis = [&](char& name) {
    const std::uint8_t sign = b.u8(at, "Radiance HDR");
    name = static_cast<char>(b.u8(at + 1, "Radiance HDR"));
    if ((sign != '+' && sign != '-') || (name != 'X' && name != 'Y') || b.u8(at + 2, "Radiance HDR") != ' ')
      b.fail("Radiance HDR", "no resolution string such as \"-Y 480 +X 640\" after the header");
    at += 3;
    return b.decimal(at, "Radiance HDR");
  };
  char first = 0, second = 0;
  const std::uint64_t n1 = axis(first);
  ++at;  // the space between the axes
  const std::uint64_t n2 = axis(second);
  if (first == second) b.fail("Radiance HDR", "the resolution string names one axis twice");
  return first == 'X' ? ImageDimensions{n1, n2} : ImageDimensions{n2, n1};
}

}  // namespace bovw::detail
