// Reading images for feature extraction, with errors that name the file instead of OpenCV's empty Mat.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstdint>
#include <string>

namespace bovw {

// Reads an image with cv::imread's `flags`. The default decodes straight to gray, keeping 16-bit
// depth: `cv::imread(path, IMREAD_GRAYSCALE)` is how the OpenCV SURF reference outputs were made,
// and decoder gray differs from cvtColor(BGR2GRAY) by one level on some pixels, which moves a few
// percent of the keypoints. Pass IMREAD_ANYCOLOR | IMREAD_ANYDEPTH to keep colour. Throws
//   IoError        the file does not exist or cannot be read;
//   InvalidInput   it is empty, not an image OpenCV can decode, or truncated (decoding fails, or a
//                  JPEG lacks its end marker — libjpeg would pad it with grey silently);
//   CapacityError  it has more than `max_pixels` pixels (checked from the PNG/JPEG header before
//                  decoding where possible, so an oversized file is not decoded at all).
cv::Mat loadImage(const std::string& path, std::int64_t max_pixels = 100'000'000,
                  int flags = cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH);

// True for file names with an extension OpenCV's image readers handle (.png, .jpg, .tif, ...):
// how a folder of mixed files is filtered before extraction.
bool hasImageExtension(const std::string& path);

}  // namespace bovw
