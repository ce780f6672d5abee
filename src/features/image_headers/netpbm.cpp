// The Netpbm family: PBM, PGM and PPM (P1-P6) and PFM (PF, Pf) give width and height as the first
// two decimal numbers after the magic (comments from '#' to the end of a line); PAM (P7) has
// "WIDTH n" and "HEIGHT n" lines before ENDHDR (netpbm.sourceforge.net/doc/{pnm,pfm,pam}.html).
#include "features/image_headers/image_formats.hpp"

#include <cctype>

namespace bovw::detail {
namespace {

bool isSpace(unsigned char c) { return std::isspace(c) != 0; }

// The decimal number after whitespace and comments from `at`, which it moves past the number.
std::uint64_t number(const HeaderBytes& b, std::size_t& at, const char* format) {
  for (;;) {
    if (at >= b.size()) b.fail(format, "the header ends before width and height");
    const unsigned char c = b.data()[at];
    if (c == '#') {
      while (at < b.size() && b.data()[at] != '\n' && b.data()[at] != '\r') ++at;
    } else if (isSpace(c)) {
      ++at;
    } else {
      break;
    }
  }
  return b.decimal(at, format);
}

ImageDimensions widthAndHeight(const HeaderBytes& b, const char* format) {
  std::size_t at = 2;
  const std::uint64_t width = number(b, at, format);
  return {width, number(b, at, format)};
}

}  // namespace

bool isPnm(const HeaderBytes& b) {
  return b.size() >= 3 && b.data()[0] == 'P' && b.data()[1] >= '1' && b.data()[1] <= '6' && isSpace(b.data()[2]);
}
ImageDimensions pnmDimensions(const HeaderBytes& b) { return widthAndHeight(b, "PNM"); }

bool isPfm(const HeaderBytes& b) { return (b.has(0, "PF") || b.has(0, "Pf")) && b.size() >= 3 && isSpace(b.data()[2]); }
ImageDimensions pfmDimensions(const HeaderBytes& b) { return widthAndHeight(b, "PFM"); }

bool isPam(const HeaderBytes& b) { return b.has(0, "P7") && b.size() >= 3 && isSpace(b.data()[2]); }

ImageDimensions pamDimensions(const HeaderBytes& b) {
  std::optional<std::uint64_t> width, height;
  std::size_t at = 3;
  while (at < b.size()) {  // one "KEY value" line per turn
    while (at < b.size() && isSpace(b.data()[at])) ++at;
    const std::size_t key = at;
    while (at < b.size() && !isSpace(b.data()[at])) ++at;
    const std::string word(reinterpret_cast<const char*>(b.data()) + key, at - key);
    if (word == "ENDHDR") break;
    if (word == "WIDTH" || word == "HEIGHT") {
      (word == "WIDTH" ? width : height) = number(b, at, "PAM");
    }
    while (at < b.size() && b.data()[at] != '\n') ++at;  // the rest of the line: a value or a comment
  }
  if (!width || !height) b.fail("PAM", "the header has no WIDTH or no HEIGHT line before ENDHDR");
  return {*width, *height};
}

}  // namespace bovw::detail
