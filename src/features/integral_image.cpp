// The integral image, written out rather than cv::integral because cv::integral accumulates in
// signed int, whose overflow on images above ~8.4 megapixels is undefined; here it wraps.
#include "integral_image.hpp"

#include <cstdint>

namespace bovw::surf {

cv::Mat integralImage(const cv::Mat& gray) {
  CV_Assert(gray.type() == CV_8UC1);
  cv::Mat sum(gray.rows + 1, gray.cols + 1, CV_32S);
  auto* first = sum.ptr<std::uint32_t>(0);
  for (int x = 0; x <= gray.cols; ++x) first[x] = 0;
  for (int y = 0; y < gray.rows; ++y) {
    const std::uint8_t* src = gray.ptr<std::uint8_t>(y);
    const auto* above = sum.ptr<std::uint32_t>(y);
    auto* row = sum.ptr<std::uint32_t>(y + 1);
    std::uint32_t run = 0;
    row[0] = 0;
    for (int x = 0; x < gray.cols; ++x) {
      run += src[x];
      row[x + 1] = above[x + 1] + run;
    }
  }
  return sum;
}

}  // namespace bovw::surf
