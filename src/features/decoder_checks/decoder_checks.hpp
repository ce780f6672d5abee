// Quiet decodes of JPEG and PNG data with libjpeg and libpng before OpenCV decodes the same
// bytes. OpenCV's decoders let the libraries print their warnings to stderr and go on (libjpeg
// fills corrupt or missing data with grey), and print libpng's errors too. Each check returns the
// library's message for the first error or warning that says the image data is damaged, or
// std::nullopt; warnings about metadata (a colour profile, text, a JFIF version) pass, and OpenCV
// still prints them. The classes, with reasons: docs/FORMATS.md, "Image files".
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace bovw::detail {

// The whole entropy-coded data is decoded (at 1/8 scale, luminance only: corruption shows while
// the coefficients are read, before the inverse DCT), up to the end marker.
std::optional<std::string> jpegDataProblem(const unsigned char* data, std::size_t size);

// Every chunk (CRCs included) and every row are read, up to IEND.
std::optional<std::string> pngDataProblem(const unsigned char* data, std::size_t size);

}  // namespace bovw::detail
