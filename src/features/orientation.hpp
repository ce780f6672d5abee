// Stage 4 of SURF: the dominant orientation of each keypoint from Haar wavelet responses, as in
// OpenCV's SURFInvoker: 109 samples on a grid of step s in a disc of radius 6s (s = 1.2 size / 9),
// wavelets of side 4s, gaussian weights (sigma 2.5 s), and a 60-degree window turned in 5-degree steps.
#pragma once

#include <opencv2/core.hpp>

#include <array>
#include <vector>

namespace bovw::surf {

// The orientation samples in OpenCV's order: offsets (in units of s; x, then y) of the grid points
// within 6s of the centre, and their gaussian weights (sigma 2.5 s, cv::getGaussianKernel's float
// values). The OpenCL stage uploads these rather than recomputing the exponentials on the device.
struct OrientationSampling {
  static constexpr int kBound = 13 * 13;  // the (2 * 6 + 1)^2 grid
  int count = 0;                          // 109
  std::array<cv::Point, kBound> offset;
  std::array<float, kBound> weight;
  OrientationSampling();
};

const OrientationSampling& orientationSampling();

// Sets keypoint.angle in degrees ([0, 360), OpenCV's convention: measured with y pointing down, so
// the descriptor's x axis points along -angle). Upright: every angle is 270 (OpenCV's value for "no
// rotation"). A keypoint whose orientation cannot be sampled (wavelet larger than the image, or no
// sample inside it) gets size -1, OpenCV's mark for removal.
void assignOrientations(const cv::Mat& sum, std::vector<cv::KeyPoint>& keypoints, bool upright);

// Drops the keypoints marked size -1 above, and their descriptor rows when `descriptors` is not
// null (one row per keypoint before the call), keeping order: OpenCV's compaction.
void removeUnorientedKeypoints(std::vector<cv::KeyPoint>& keypoints, cv::Mat* descriptors);

}  // namespace bovw::surf
