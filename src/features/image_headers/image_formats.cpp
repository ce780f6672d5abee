// The table of image formats: signature test and header reader, in the order OpenCV 4.6's
// imdecode tries its decoders (the first whose signature matches decodes the file).
#include "features/image_headers/image_formats.hpp"

#include "features/decoder_checks/decoder_checks.hpp"

#include <bovw/error.hpp>


namespace bovw::detail {
namespace {

// Formats that OpenCV reaches through GDAL (NITF, DTED) or GDCM (DICOM), by the same signature
// tests. They write to stderr, decode through a temporary file and have headers too involved for
// a check here: refused before decoding.
bool isNitf(const HeaderBytes& b) { return b.has(0, "NITF"); }
bool isDted(const HeaderBytes& b) { return b.size() > 144 && b.has(140, "DTED"); }
bool isDicom(const HeaderBytes& b) { return b.has(128, "DICM"); }

struct ImageFormat {
  const char* name;
  bool (*matches)(const HeaderBytes&);
  ImageDimensions (*dimensions)(const HeaderBytes&);  // nullptr: refused
  DataCheck check_data = nullptr;
  CheckedGrayDecode decode_gray = nullptr;
};

const ImageFormat kFormats[] = {
    {"BMP", isBmp, bmpDimensions},
    {"Radiance HDR", isRadianceHdr, radianceHdrDimensions},
    {"JPEG", isJpeg, jpegDimensions, checkJpegData, decodeJpegGray},
    {"WebP", isWebp, webpDimensions},
    {"Sun raster", isSunRaster, sunRasterDimensions},
    {"PNM", isPnm, pnmDimensions},
    {"PAM", isPam, pamDimensions},
    {"PFM", isPfm, pfmDimensions},
    {"TIFF", isTiff, tiffDimensions},
    {"PNG", isPng, pngDimensions, checkPngData, decodePngGray},
    {"DICOM", isDicom, nullptr},
    {"JP2", isJp2, jp2Dimensions},
    {"JPEG 2000", isJ2k, j2kDimensions},
    {"OpenEXR", isOpenExr, openExrDimensions},
    {"NITF", isNitf, nullptr},
    {"DTED", isDted, nullptr},
};

}  // namespace

std::optional<ImageHeader> readImageHeader(const HeaderBytes& bytes) {
  for (const ImageFormat& format : kFormats) {
    if (!format.matches(bytes)) continue;
    if (!format.dimensions)
      throw InvalidInput(bytes.path(), std::string(format.name) +
                                           " images are not read: bovw checks no header of that format before "
                                           "decoding (convert it to PNG or TIFF)");
    return ImageHeader{format.name, format.dimensions(bytes), format.check_data, format.decode_gray};
  }
  return std::nullopt;
}

}  // namespace bovw::detail
