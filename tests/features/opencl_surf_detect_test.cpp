// The OpenCL SURF detector (src/features/opencl/surf_detect.*) against the CPU detector it ports:
// the integral image and every keypoint (position, size, response, octave, Laplacian sign) must be
// the CPU's bit for bit, on real photographs and on generated images of odd sizes, with and without
// a mask. Runs on whatever OpenCL device the library picks (PoCL in CI).
#include "features/extremum_detection.hpp"
#include "features/hessian_pyramid.hpp"
#include "features/integral_image.hpp"
#include "features/opencl/device_images.hpp"
#include "features/opencl/device_layers.hpp"
#include "features/opencl/surf_detect.hpp"
#include "support/test_support.hpp"
#include "surf_test_support.hpp"

#include <bovw/image_io.hpp>
#include <bovw/surf.hpp>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <filesystem>
#include <random>
#include <utility>

namespace bovw {
namespace {


cv::Mat grayOf(const std::string& path) {
  EXPECT_TRUE(std::filesystem::exists(path)) << path << " missing (Debian package opencv-doc, .ci/install-deps)";
  return toSurfGray(loadImage(path));
}

cv::Mat mask01Of(const cv::Mat& mask) {
  cv::Mat mask01;
  cv::min(mask, 1, mask01);
  return mask01;
}


void expectSameKeypoints(const std::vector<cv::KeyPoint>& cpu, const std::vector<cv::KeyPoint>& gpu) {
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(gpu[i].pt.x, cpu[i].pt.x) << "keypoint " << i;
    ASSERT_EQ(gpu[i].pt.y, cpu[i].pt.y) << "keypoint " << i;
    ASSERT_EQ(gpu[i].size, cpu[i].size) << "keypoint " << i;
    ASSERT_EQ(gpu[i].response, cpu[i].response) << "keypoint " << i;
    ASSERT_EQ(gpu[i].octave, cpu[i].octave) << "keypoint " << i;
    ASSERT_EQ(gpu[i].class_id, cpu[i].class_id) << "keypoint " << i;
    ASSERT_EQ(gpu[i].angle, -1.f) << "keypoint " << i;
  }
}

struct DetectCase {
  std::string name;
  cv::Mat gray;
  SurfParams params;
  bool masked = false;
};

void checkDetection(const DetectCase& c) {
  SCOPED_TRACE(c.name);
  detail::DeviceContext device("");
  const cv::Mat sum = surf::integralImage(c.gray);
  cv::Mat mask, mask_sum;
  if (c.masked) {  // the middle of the image, ragged so that coverage tests cut through filters
    mask = cv::Mat::zeros(c.gray.size(), CV_8U);
    cv::ellipse(mask, cv::Point(c.gray.cols / 2, c.gray.rows / 2), cv::Size(c.gray.cols / 3, c.gray.rows / 4), 20, 0,
                360, cv::Scalar(200), cv::FILLED);
    mask_sum = surf::integralImage(mask01Of(mask));
  }
  surf::HessianPyramid pyramid = surf::planHessianPyramid(c.gray.size(), c.params.octaves, c.params.octave_layers);
  surf::computeHessianDeterminants(sum, pyramid);
  const auto cpu = surf::findHessianExtrema(sum, mask_sum, pyramid, static_cast<float>(c.params.hessian_threshold));

  const surf::DeviceImages image = surf::uploadImages(device, {c.gray}, "image");
  const surf::DeviceImages mask_image =
      c.masked ? surf::uploadImages(device, {mask01Of(mask)}, "mask") : surf::DeviceImages();
  const auto gpu = surf::detectKeypoints(device, image, c.masked ? &mask_image : nullptr, c.params);
  EXPECT_GT(cpu.size(), 0u) << "a case without keypoints tests nothing";
  expectSameKeypoints(cpu, gpu);
}

// A batch cut at batchPixelLimit keeps its Hessian responses (planDeviceScaleSpace's count, the
// batch's largest buffer) within the largest allocation and an eighth of the memory, and the limit
// is not needlessly small: a batch of odd-sized images at the limit fills at least 85% of that budget.
TEST(OpenClSurfDetect, BatchPixelLimitKeepsTheScaleSpaceWithinTheDevicesMemory) {
  std::mt19937 rng(::testing::UnitTest::GetInstance()->random_seed());
  for (const auto& [octaves, layers] : {std::pair{4, 3}, std::pair{4, 2}, std::pair{1, 1}, std::pair{6, 4}}) {
    for (const auto& [max_alloc, memory] : {std::pair{std::uint64_t{1} << 30, std::uint64_t{4} << 30},
                                            std::pair{std::uint64_t{20} << 30, std::uint64_t{80} << 30},
                                            std::pair{std::uint64_t{256} << 20, std::uint64_t{16} << 30}}) {
      SCOPED_TRACE(std::to_string(octaves) + " octaves, " + std::to_string(layers) + " layers, " +
                   std::to_string(max_alloc >> 20) + " MiB allocations of " + std::to_string(memory >> 20));
      const std::int64_t limit = surf::batchPixelLimit(octaves, layers, max_alloc, memory);
      const double budget = static_cast<double>(std::min(max_alloc, memory / 8));
      // Images of odd sizes up to the limit, as deviceBatches would fill a batch.
      std::vector<cv::Size> sizes;
      std::int64_t pixels = 0;
      for (;;) {
        const cv::Size size(std::uniform_int_distribution<int>(300, 2000)(rng),
                            std::uniform_int_distribution<int>(300, 2000)(rng));
        if (pixels + size.area() > limit) break;
        sizes.push_back(size);
        pixels += size.area();
      }
      ASSERT_FALSE(sizes.empty());
      const surf::DeviceScaleSpace plan = surf::planDeviceScaleSpace(surf::layoutImages(sizes), octaves, layers);
      const double bytes = sizeof(float) * static_cast<double>(plan.det_elements);
      EXPECT_LE(bytes, budget);
      EXPECT_GE(bytes, 0.85 * budget * static_cast<double>(pixels) / static_cast<double>(limit));
    }
  }
}

TEST(OpenClSurfDetect, IntegralImageIsTheCpusOnOddSizes) {
  BOVW_REQUIRE_OPENCL();
  detail::DeviceContext device("");
  for (const cv::Size size : {cv::Size(1, 1), cv::Size(53, 37), cv::Size(257, 3), cv::Size(641, 481)}) {
    cv::Mat gray(size, CV_8U);
    cv::RNG(size.area()).fill(gray, cv::RNG::UNIFORM, 0, 256);
    const surf::DeviceImages image = surf::uploadImages(device, {gray}, "image");
    cv::Mat got(size.height + 1, size.width + 1, CV_32S);
    device.queue().enqueueReadBuffer(image.sum, CL_TRUE, 0, got.total() * sizeof(std::int32_t), got.data);
    const cv::Mat want = surf::integralImage(gray);
    EXPECT_EQ(cv::countNonZero(got != want), 0) << size;
  }
}

TEST(OpenClSurfDetect, KeypointsAreTheCpusOnPhotographs) {
  BOVW_REQUIRE_OPENCL();
  const SurfParams defaults;
  checkDetection({"box.png", grayOf(test::surfData("box.png")), defaults});
  checkDetection({"graf1_gray.png", grayOf(test::surfData("graf1_gray.png")), defaults});
  for (const char* name : {"baboon.jpg", "building.jpg", "blox.jpg"})
    checkDetection({name, grayOf(test::opencvDocImage(name)), defaults});
}

TEST(OpenClSurfDetect, KeypointsAreTheCpusOnOddSizesSettingsAndMasks) {
  BOVW_REQUIRE_OPENCL();
  SurfParams coarse;
  coarse.hessian_threshold = 400;
  coarse.octaves = 3;
  coarse.octave_layers = 2;
  SurfParams deep;
  deep.octaves = 6;
  deep.octave_layers = 4;
  checkDetection({"97x131 default", test::texturedImage(97, 131, 1, 2.0), SurfParams{}});
  checkDetection({"1000x61 coarse", test::texturedImage(1000, 61, 2, 2.0), coarse});
  checkDetection({"333x401 deep", test::texturedImage(333, 401, 3, 2.0), deep});
  checkDetection({"masked box.png", grayOf(test::surfData("box.png")), SurfParams{}, true});
  checkDetection({"masked 300x211", test::texturedImage(300, 211, 4, 2.0), coarse, true});
}

TEST(OpenClSurfDetect, MoreKeypointsThanTheFirstLaunchHasRoomForAreAllFound) {
  BOVW_REQUIRE_OPENCL();
  SurfParams everything;
  // Every local maximum of fine noise: more than the first launch's room (4,096 per image, or one per
  // 256 searched samples).
  everything.hessian_threshold = 0;
  const cv::Mat noise = test::texturedImage(640, 480, 5, 0.5);
  checkDetection({"noise, threshold 0", noise, everything});
  detail::DeviceContext device("");
  const surf::DeviceImages image = surf::uploadImages(device, {noise}, "image");
  const surf::DeviceDetection found = surf::detectOnDevice(device, image, nullptr, everything);
  EXPECT_NE(found.extrema(), found.first_extrema()) << found.count << " keypoints: no second launch ran";
}

TEST(OpenClSurfDetect, ImagesBelowTheSmallestSearchWindowHaveNoKeypoints) {
  BOVW_REQUIRE_OPENCL();
  detail::DeviceContext device("");
  for (const cv::Size size : {cv::Size(1, 1), cv::Size(20, 20), cv::Size(5, 300)}) {
    const cv::Mat gray = test::texturedImage(size.width, size.height, 6, 2.0);
    const auto gpu = surf::detectKeypoints(device, surf::uploadImages(device, {gray}, "image"), nullptr, SurfParams{});
    EXPECT_TRUE(gpu.empty()) << size;
  }
}

}  // namespace
}  // namespace bovw
