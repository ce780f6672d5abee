// Reading images for feature extraction, with errors that name the file instead of OpenCV's empty Mat.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bovw {

// Reads an image with cv::imread's `flags`. The default decodes straight to gray, keeping 16-bit
// depth: `cv::imread(path, IMREAD_GRAYSCALE)` is how the OpenCV SURF reference outputs were made,
// and decoder gray differs from cvtColor(BGR2GRAY) by one level on some pixels, which moves a few
// percent of the keypoints. Pass IMREAD_ANYCOLOR | IMREAD_ANYDEPTH to keep colour. Throws
//   IoError        the file does not exist or cannot be read;
//   InvalidInput   it is empty, not an image OpenCV can decode, truncated or corrupt (a JPEG or PNG
//                  that libjpeg or libpng warns about, which OpenCV would decode anyway, with
//                  grey for the missing data), or a NITF, DTED or DICOM file (see below);
//   CapacityError  it has more than `max_pixels` pixels. The header says so before any decoding
//                  for every format OpenCV decodes here: BMP, Radiance HDR, JPEG, WebP, Sun
//                  raster, PBM/PGM/PPM, PAM, PFM, TIFF (first page), PNG, JPEG 2000 (JP2 and
//                  codestream), OpenEXR. OpenCV decodes NITF and DTED through GDAL and DICOM
//                  through GDCM, whose headers bovw does not read: those are refused. Any other
//                  content is left to OpenCV and checked after decoding, under OpenCV's own limits.
// Safe to call from several threads at once.
cv::Mat loadImage(const std::string& path, std::int64_t max_pixels = 100'000'000,
                  int flags = cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH);

// The same for an image's encoded bytes already in memory (a request body), named `name` in errors.
// Bodies of 2 GiB or more are refused (cv::imdecode's limit).
cv::Mat decodeImage(const unsigned char* data, std::size_t size, const std::string& name,
                    std::int64_t max_pixels = 100'000'000, int flags = cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH);

// For programs that promise one line per problem on stderr (the bovw CLI): silences OpenCV's log
// and makes what OpenCV's decoders print to std::cerr while loadImage decodes part of the error
// that loadImage throws (other writes to std::cerr pass through). It changes process-wide state
// (std::cerr's buffer, OpenCV's log level), so the library never calls it by itself.
void captureDecoderMessages();

// True for file names with an extension OpenCV's image readers handle (.png, .jpg, .tif, ...):
// how a folder of mixed files is filtered before extraction.
bool hasImageExtension(const std::string& path);

}  // namespace bovw
