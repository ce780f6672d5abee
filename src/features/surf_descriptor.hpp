// Stage 5 of SURF: the descriptor. As OpenCV does, a window of side 20s (21s with the border the
// gradients need) around the keypoint, turned to its orientation, is resampled to 21x21 pixels of
// size s; Haar gradients of those pixels, gaussian-weighted (sigma 3.3 s), are summed over 4x4
// subregions of 5x5 samples into (sum dx, sum dy, sum |dx|, sum |dy|) — or 8 sums split by sign
// when extended — and the vector is scaled to unit length.
#pragma once

#include <opencv2/core.hpp>

#include <vector>

namespace bovw::surf {

// How the 21x21 patch of a keypoint is made (surf_descriptor.cpp): the same bytes either way.
// Reference: OpenCV's window, then cv::resize(INTER_AREA). Vector: both in one AVX2 pass. Auto: the
// vector path where the CPU and the image allow it (vectorPatchAvailable), else the reference path.
enum class PatchPath { Auto, Reference, Vector };

bool vectorPatchAvailable(const cv::Mat& gray);

// The gradients' gaussian weights (sigma 3.3 s over the 20x20 samples, cv::getGaussianKernel's
// float values), row-major: the OpenCL stage uploads these rather than recomputing them.
const float* descriptorWeights();

// One row of `descriptors` (N x 64 or N x 128 CV_32F, allocated by the caller) per keypoint;
// rows of keypoints with size <= 0 (marked for removal) are left untouched. PatchPath::Vector where
// it is not available fails a CV_Assert.
void computeDescriptors(const cv::Mat& gray, const std::vector<cv::KeyPoint>& keypoints, bool extended,
                        bool upright, cv::Mat& descriptors, PatchPath path = PatchPath::Auto);

}  // namespace bovw::surf
