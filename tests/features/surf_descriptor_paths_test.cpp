// The descriptor stage's two ways to a keypoint's 21x21 patch (src/features/surf_descriptor.cpp):
// OpenCV's window + cv::resize(INTER_AREA), and the AVX2 pass that samples 8 window rows at once
// and sums straight into INTER_AREA's cells. They must give the same bytes, so the descriptors must
// be identical bit for bit: over window sizes 25..~1000 (every INTER_AREA table shape, including the
// integer-scale sizes that fall back to cv::resize), windows inside, across and beyond the border,
// angles of exactly 0/90/180/270 degrees (sine or cosine ~1e-8) and arbitrary ones, 64-D and 128-D,
// oriented and upright, and on the real keypoints of the test images.
#include <bovw/image_io.hpp>
#include <bovw/surf.hpp>

#include "features/surf_descriptor.hpp"
#include "features/surf_extractor.hpp"
#include "surf_test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace bovw::test {
namespace {


// Descriptors of `keypoints` by both paths; fails the test unless identical.
void expectSamePaths(const cv::Mat& img, const std::vector<cv::KeyPoint>& keypoints, bool extended, bool upright) {
  const int width = extended ? 128 : 64;
  cv::Mat reference(static_cast<int>(keypoints.size()), width, CV_32F, cv::Scalar(-7));
  cv::Mat vector = reference.clone();
  surf::computeDescriptors(img, keypoints, extended, upright, reference, surf::PatchPath::Reference);
  surf::computeDescriptors(img, keypoints, extended, upright, vector, surf::PatchPath::Vector);
  int differing = 0, first = -1;
  for (int i = 0; i < reference.rows; ++i)
    if (std::memcmp(reference.ptr(i), vector.ptr(i), width * sizeof(float)) != 0) {
      if (first < 0) first = i;
      ++differing;
    }
  if (differing > 0) {
    const cv::KeyPoint& k = keypoints[first];
    ADD_FAILURE() << differing << " of " << reference.rows << " descriptors differ (extended " << extended
                  << ", upright " << upright << "); first: keypoint " << first << " at (" << k.pt.x << ", " << k.pt.y
                  << "), size " << k.size << ", angle " << k.angle;
  }
}

class SurfDescriptorPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!surf::vectorPatchAvailable(texturedImage(64, 64, 1)))
      GTEST_SKIP() << "no AVX2 on this CPU: only the reference path runs";
  }
};

TEST_F(SurfDescriptorPaths, EveryWindowSizeAngleAndPlace) {
  const cv::Mat img = texturedImage(331, 257, 7);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  const float exact_angles[] = {0.f, 90.f, 180.f, 270.f, 45.f, 359.99f};
  std::vector<cv::KeyPoint> keypoints;
  // Sizes 9..~400 in steps that hit every window size int(21 * 1.2 size / 9) from 25 to ~1100.
  for (float size = 9.f; size < 400.f; size += 0.33f) {
    const float x = -20.f + unit(rng) * (img.cols + 40.f), y = -20.f + unit(rng) * (img.rows + 40.f);
    const float angle = keypoints.size() % 3 == 0 ? exact_angles[keypoints.size() / 3 % 6] : unit(rng) * 360.f;
    keypoints.emplace_back(x, y, size, angle);
  }
  // Small keypoints well inside (the fast case) and at the edges, at every exact angle.
  for (int i = 0; i < 200; ++i) {
    const float x = i % 2 ? 20.f + unit(rng) * (img.cols - 40.f) : (i % 4 == 0 ? 0.f : img.cols - 1.f);
    keypoints.emplace_back(x, 5.f + unit(rng) * (img.rows - 10.f), 9.f + unit(rng) * 30.f, exact_angles[i % 6]);
  }
  for (bool extended : {false, true})
    for (bool upright : {false, true}) expectSamePaths(img, keypoints, extended, upright);
}

TEST_F(SurfDescriptorPaths, ImagesOfOtherShapes) {
  // Narrow, short and non-continuous (a region of a larger image) images.
  const cv::Mat big = texturedImage(120, 90, 3);
  const cv::Mat shapes[] = {texturedImage(4, 300, 5), texturedImage(300, 2, 6), big(cv::Rect(7, 5, 61, 47))};
  for (const cv::Mat& img : shapes) {
    std::vector<cv::KeyPoint> keypoints;
    for (float size = 9.f; size < 60.f; size += 1.7f)
      keypoints.emplace_back(img.cols * 0.5f, img.rows * 0.5f, size, size * 7.f);
    for (bool upright : {false, true}) expectSamePaths(img, keypoints, false, upright);
  }
}

TEST_F(SurfDescriptorPaths, RealKeypoints) {
  for (const char* name : {"box.png", "graf1_gray.png"}) {
    const cv::Mat img = loadImage(surfData(name));
    auto surf = surf::makeSurfExtractor(SurfParams(), SurfBackend::Builtin);
    std::vector<cv::KeyPoint> keypoints;
    surf->detect(img, keypoints);
    ASSERT_GT(keypoints.size(), 100u) << name;
    for (bool extended : {false, true}) expectSamePaths(img, keypoints, extended, false);
    for (auto& k : keypoints) k.angle = 270.f;
    expectSamePaths(img, keypoints, false, true);
  }
}

}  // namespace
}  // namespace bovw::test
