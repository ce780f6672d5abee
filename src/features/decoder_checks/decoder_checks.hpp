// Quiet decodes of JPEG and PNG data with libjpeg and libpng before OpenCV decodes the same
// bytes, and the gray decodes that need no OpenCV after them (decodeJpegGray, decodePngGray), the
// check made in the same pass. OpenCV's decoders let the libraries print their warnings to stderr and go on (libjpeg
// fills corrupt or missing data with grey), and print libpng's errors too. Each check returns the
// library's message for the first error or warning that says the image data is damaged;
// warnings about metadata (a colour profile, text, a JFIF version) pass. The classes, with
// reasons: docs/FORMATS.md, "Image files".
#pragma once

#include <opencv2/core.hpp>

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

struct CheckedDecode {
  bool handled = true;  // false: nothing was read; check, then let OpenCV decode
  DataVerdict verdict;  // handled: a problem, or the pixels are in the caller's image
};

// A JPEG's 8-bit gray pixels exactly as cv::imdecode(IMREAD_GRAYSCALE) gives them, read in one pass
// with checkJpegData's checks: the check before OpenCV's decode took as long as 80% of the decode
// (it reads the whole entropy-coded data too). Into `gray`, allocated with its allocator, turned
// as OpenCV turns it by an Exif orientation (opencv_orientation.hpp). Not handled: four components
// (CMYK, YCCK; OpenCV converts them to gray itself), and an APP1 segment whose turn OpenCV's own
// decode of a probe does not show. `any_depth` is for the signature's sake: JPEG samples have 8 bits.
CheckedDecode decodeJpegGray(const unsigned char* data, std::size_t size, cv::Mat& gray, bool any_depth);

// Every chunk (CRCs included) and every row are read, up to IEND.
DataVerdict checkPngData(const unsigned char* data, std::size_t size);

// A PNG's gray pixels exactly as cv::imdecode gives them with IMREAD_GRAYSCALE (8 bits) or, with
// `any_depth`, IMREAD_GRAYSCALE | IMREAD_ANYDEPTH (16 bits where the file has them), read in one
// pass with checkPngData's checks: the check before OpenCV's decode inflated every row twice. Into
// `gray`, allocated with its allocator. Not handled: a file with an eXIf chunk (OpenCV turns it).
// Metadata that libpng warns about is left to libpng, as in OpenCV's own decode of the file.
CheckedDecode decodePngGray(const unsigned char* data, std::size_t size, cv::Mat& gray, bool any_depth);

}  // namespace bovw::detail
