// Width and height from the headers of the formats OpenCV decodes in Debian 12's build (libpng,
// libjpeg, libtiff, libwebp, OpenJPEG, OpenEXR and OpenCV's own BMP, Netpbm, Sun raster and
// Radiance readers), so that the pixel limit refuses a decompression bomb before anything is
// decoded. One reader per format, each in its own file; image_formats.cpp holds the table.
#pragma once

#include "features/decoder_checks/decoder_checks.hpp"
#include "features/image_headers/header_bytes.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace bovw::detail {

struct ImageDimensions {
  std::uint64_t width = 0;
  std::uint64_t height = 0;
};

// Why a file that decodes may still be refused, and what OpenCV should decode (decoder_checks.hpp).
using DataCheck = DataVerdict (*)(const unsigned char* data, std::size_t size);
// A decode to gray with the check in the same pass, pixel for pixel OpenCV's with IMREAD_GRAYSCALE
// (and IMREAD_ANYDEPTH where `any_depth`) (decoder_checks.hpp).
using CheckedGrayDecode = CheckedDecode (*)(const unsigned char* data, std::size_t size, cv::Mat& gray,
                                            bool any_depth);

struct ImageHeader {
  const char* format;  // "PNG", "TIFF", ...
  ImageDimensions size;
  DataCheck check_data;  // nullptr: the format has no check beyond OpenCV's decoder
  CheckedGrayDecode decode_gray;  // nullptr: gray images come from check_data, then OpenCV's decoder
};

// The format of `bytes` by its signature (the test OpenCV's decoder makes) and the dimensions its
// header declares. std::nullopt when no format of the table matches: OpenCV decides, under its own
// limits. Throws InvalidInput naming the file when the signature matches but the header is
// malformed or truncated, or when the format is one OpenCV reaches only through GDAL or GDCM
// (NITF, DTED, DICOM): bovw reads no header of those, so it does not decode them.
std::optional<ImageHeader> readImageHeader(const HeaderBytes& bytes);

// The readers of the table: `is<Format>` tests the signature, `<format>Dimensions` parses the
// header (failing through HeaderBytes::fail).
bool isPng(const HeaderBytes& b);
ImageDimensions pngDimensions(const HeaderBytes& b);
bool isJpeg(const HeaderBytes& b);
ImageDimensions jpegDimensions(const HeaderBytes& b);
bool isTiff(const HeaderBytes& b);
ImageDimensions tiffDimensions(const HeaderBytes& b);
bool isWebp(const HeaderBytes& b);
ImageDimensions webpDimensions(const HeaderBytes& b);
bool isBmp(const HeaderBytes& b);
ImageDimensions bmpDimensions(const HeaderBytes& b);
bool isPnm(const HeaderBytes& b);  // PBM, PGM, PPM (P1-P6)
ImageDimensions pnmDimensions(const HeaderBytes& b);
bool isPam(const HeaderBytes& b);
ImageDimensions pamDimensions(const HeaderBytes& b);
bool isPfm(const HeaderBytes& b);
ImageDimensions pfmDimensions(const HeaderBytes& b);
bool isSunRaster(const HeaderBytes& b);
ImageDimensions sunRasterDimensions(const HeaderBytes& b);
bool isRadianceHdr(const HeaderBytes& b);
ImageDimensions radianceHdrDimensions(const HeaderBytes& b);
bool isJp2(const HeaderBytes& b);  // JPEG 2000 in its JP2 box file
ImageDimensions jp2Dimensions(const HeaderBytes& b);
bool isJ2k(const HeaderBytes& b);  // a bare JPEG 2000 codestream
ImageDimensions j2kDimensions(const HeaderBytes& b);
bool isOpenExr(const HeaderBytes& b);
ImageDimensions openExrDimensions(const HeaderBytes& b);

}  // namespace bovw::detail
