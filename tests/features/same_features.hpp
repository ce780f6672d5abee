// Bit-for-bit equality of two extractions of one image (keypoints, then descriptors), for tests
// that compare SURF routes: the GPU against the CPU, a batched route against image by image.
#pragma once

#include <bovw/feature_extractor.hpp>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include <cstddef>
#include <string>

namespace bovw::test {

inline void expectSameFeatures(const ImageFeatures& expected, const ImageFeatures& got, const std::string& what) {
  ASSERT_EQ(got.keypoints.size(), expected.keypoints.size()) << what;
  for (std::size_t i = 0; i < expected.keypoints.size(); ++i) {
    const cv::KeyPoint &c = expected.keypoints[i], &g = got.keypoints[i];
    ASSERT_TRUE(c.pt == g.pt && c.size == g.size && c.angle == g.angle && c.response == g.response &&
                c.octave == g.octave && c.class_id == g.class_id)
        << what << ", keypoint " << i;
  }
  ASSERT_EQ(got.descriptors.rows, expected.descriptors.rows) << what;
  if (expected.descriptors.rows > 0) {
    ASSERT_EQ(got.descriptors.cols, expected.descriptors.cols) << what;
    EXPECT_EQ(cv::norm(expected.descriptors, got.descriptors, cv::NORM_INF), 0) << what;
  }
}

}  // namespace bovw::test
