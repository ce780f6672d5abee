// Stage 1 of SURF: the integral image every box filter reads.
#pragma once

#include <opencv2/core.hpp>

namespace bovw::surf {

// (rows+1) x (cols+1) CV_32S integral of an 8-bit single-channel image, first row and column zero
// (cv::integral's layout). Sums wrap modulo 2^32 instead of overflowing (see boxSum), so images
// of any size are safe for the box filters.
cv::Mat integralImage(const cv::Mat& gray);

}  // namespace bovw::surf
