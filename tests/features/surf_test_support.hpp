// Test helpers for SURF: reference files in the golden schema and the agreement metric of
// ../shared/tools/surf_compare.py, ported so the tests need neither Python nor ../shared.
#pragma once

#include <bovw/feature_extractor.hpp>
#include <bovw/surf.hpp>

#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace bovw::test {

// Path of a file in tests/data/surf ($BOVW_SURF_TEST_DATA overrides the folder, for test programs
// run on another machine).
std::string surfData(const std::string& name);

// Smoothed uniform noise of the full 8-bit range: structure at several scales (every octave finds
// extrema) and every rounding of the pipeline exercised.
cv::Mat texturedImage(int cols, int rows, unsigned seed, double sigma = 1.5);

// Path of one of Debian's opencv-doc sample images ($BOVW_OPENCV_DOC_DATA overrides the folder).
std::string opencvDocImage(const std::string& name);

// SURF as applications make it: through the feature registry, on `backend` (params.max_pixels as
// ExtractorOptions::max_pixels).
std::unique_ptr<FeatureExtractor> registrySurf(const SurfParams& params, SurfBackend backend);

struct SurfReference {
  cv::Mat keypoints;    // N x 6 CV_32F: x, y, size, angle, response, octave
  cv::Mat descriptors;  // N x D CV_32F
};

SurfReference loadReference(const std::string& path);

// The keypoints (and descriptors) of a run in the reference's layout.
SurfReference asReference(const std::vector<cv::KeyPoint>& keypoints, const cv::Mat& descriptors);

struct Agreement {
  int reference = 0, candidate = 0, matched = 0;
  double recall = 0, precision = 0;
  double median_desc_dist = 0, max_desc_dist = 0;
  double median_angle_diff = 0, max_angle_diff = 0;
  std::vector<std::pair<int, int>> pairs;  // (reference row, candidate row)
};

// surf_compare.py's matching: strongest reference first, each takes the nearest unused candidate
// within max(1.5 px, 0.1 size) whose size ratio is in [0.8, 1.25].
Agreement compare(const SurfReference& candidate, const SurfReference& reference);

std::ostream& operator<<(std::ostream& os, const Agreement& a);

// Signed angle difference a - b folded into [-180, 180).
double angleDiff(double a, double b);

}  // namespace bovw::test
