// loadImage and decodeImage (bovw/image_io.hpp) with the decoded pixels allocated by the caller's
// cv::MatAllocator, so that a decoder writes straight into memory the caller chose (the device
// routes' pinned staging, src/pipeline/pinned_staging.hpp). The same checks and errors.
#pragma once

#include <opencv2/core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bovw::detail {

// `allocator` null: the default allocator, as the public functions.
cv::Mat loadImage(const std::string& path, std::int64_t max_pixels, int flags, cv::MatAllocator* allocator);
cv::Mat decodeImage(const unsigned char* data, std::size_t size, const std::string& name, std::int64_t max_pixels,
                    int flags, cv::MatAllocator* allocator);

}  // namespace bovw::detail
