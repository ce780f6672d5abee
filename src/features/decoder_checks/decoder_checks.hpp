// Quiet decodes of JPEG and PNG data with libjpeg and libpng before OpenCV decodes the same
// bytes. OpenCV's decoders let the libraries print their warnings to stderr and go on (libjpeg
// fills corrupt or missing data with grey), and print libpng's errors too. Each check returns the
// library's message for the first error or warning that says the image data is damaged;
// warnings about metadata (a colour profile, text, a JFIF version) pass. The classes, with
// reasons: docs/FORMATS.md, "Image files".
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bovw::detail {

struct DataVerdict {
  std::optional<std::string> problem;  // the image data is damaged: the library's message
  // A PNG whose metadata libpng warned about: the same file without those chunks (the pixels do not
  // depend on them), which OpenCV's decoder then reads without printing the warning, nameless, to
  // stderr. Empty: decode the file as it is. (libjpeg's metadata warnings are rarer and live in
  // segments that do change the decode, such as Adobe's colour transform: those files are decoded
  // as they are, and OpenCV prints the warning.)
  std::vector<unsigned char> quiet_copy;
};

// The whole entropy-coded data is decoded (at 1/8 scale, luminance only: corruption shows while
// the coefficients are read, before the inverse DCT), up to the end marker.
DataVerdict checkJpegData(const unsigned char* data, std::size_t size);

// Every chunk (CRCs included) and every row are read, up to IEND.
DataVerdict checkPngData(const unsigned char* data, std::size_t size);

}  // namespace bovw::detail
