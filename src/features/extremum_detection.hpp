// Stage 3 of SURF: keypoints are the 3x3x3 maxima of the Hessian determinant above a threshold,
// refined by fitting a quadratic (Brown and Lowe), as OpenCV's findMaximaInLayer does.
#pragma once

#include "hessian_pyramid.hpp"

#include <opencv2/core.hpp>

#include <tuple>
#include <vector>

namespace bovw::surf {

// Keypoints of every middle layer, sorted strongest first with OpenCV's tie-breaks: pt, size
// (integer filter size after interpolation), angle -1, response (determinant), octave, class_id
// (Laplacian sign). `mask_sum`, if not empty, is the integral of min(mask, 1): a maximum is kept
// only where at least half of its filter lies on mask pixels.
std::vector<cv::KeyPoint> findHessianExtrema(const cv::Mat& sum, const cv::Mat& mask_sum,
                                             const HessianPyramid& pyramid, float threshold);

// OpenCV's KeypointGreater, the order of findHessianExtrema's result: response, size, octave
// descending, then y descending, x ascending. keypointOrder gives the key whose `>` is that order,
// for records that are not cv::KeyPoints (the OpenCL backend's).
inline std::tuple<float, float, int, float, float> keypointOrder(float response, float size, int octave, float y,
                                                                 float x) {
  return {response, size, octave, y, -x};  // -x: x ascending; negation is exact
}
bool keypointGreater(const cv::KeyPoint& a, const cv::KeyPoint& b);

// OpenCV's final mask test: true when the keypoint's (rounded) centre falls on a zero mask pixel
// (never with an empty mask).
bool maskedOut(const cv::Mat& mask, const cv::KeyPoint& keypoint);

// Drops the keypoints maskedOut says.
void removeMaskedKeypoints(const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints);

}  // namespace bovw::surf
