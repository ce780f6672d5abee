// SurfBackend::OpenCL end to end against SurfBackend::Builtin, the CPU SURF it ports: on photographs
// and generated images, default, upright and extended, detectAndCompute and compute. The issue's
// bounds are recall and precision >= 0.98 and a median descriptor distance <= 0.01; the detector is
// exact by construction, so the tests also require the keypoint lists to be equal in order and value.
#include "features/surf_extractor.hpp"
#include "support/test_support.hpp"
#include "surf_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/surf.hpp>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <string>
#include <thread>

namespace bovw {
namespace {

struct Extraction {
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
};

Extraction extract(SurfBackend backend, const SurfParams& params, const cv::Mat& image, const cv::Mat& mask = cv::Mat()) {
  Extraction r;
  surf::makeSurfExtractor(params, backend)->detectAndCompute(image, mask, r.keypoints, r.descriptors);
  return r;
}

// Builtin vs OpenCL on one image: same keypoints (the angle may differ only where the descriptor then
// differs too), the agreement bounds, and a summary on stdout.
void expectFaithful(const std::string& name, const cv::Mat& image, const SurfParams& params,
                    const cv::Mat& mask = cv::Mat()) {
  SCOPED_TRACE(name);
  const Extraction cpu = extract(SurfBackend::Builtin, params, image, mask);
  const Extraction gpu = extract(SurfBackend::OpenCL, params, image, mask);
  ASSERT_GT(cpu.keypoints.size(), 0u) << "a case without keypoints tests nothing";
  ASSERT_EQ(gpu.descriptors.rows, static_cast<int>(gpu.keypoints.size()));
  ASSERT_EQ(gpu.descriptors.cols, params.extended ? 128 : 64);
  const test::Agreement a =
      test::compare(test::asReference(gpu.keypoints, gpu.descriptors), test::asReference(cpu.keypoints, cpu.descriptors));
  EXPECT_GE(a.recall, 0.98) << a;
  EXPECT_GE(a.precision, 0.98) << a;
  EXPECT_LE(a.median_desc_dist, 0.01) << a;

  ASSERT_EQ(gpu.keypoints.size(), cpu.keypoints.size());
  int same_angle = 0, same_descriptor = 0;
  for (std::size_t i = 0; i < cpu.keypoints.size(); ++i) {
    const cv::KeyPoint &c = cpu.keypoints[i], &g = gpu.keypoints[i];
    ASSERT_TRUE(c.pt == g.pt && c.size == g.size && c.response == g.response && c.octave == g.octave &&
                c.class_id == g.class_id)
        << "keypoint " << i;
    same_angle += c.angle == g.angle;
    const int row = static_cast<int>(i);
    same_descriptor += cv::norm(cpu.descriptors.row(row), gpu.descriptors.row(row), cv::NORM_INF) == 0;
  }
  std::cout << name << ": " << cpu.keypoints.size() << " keypoints, " << same_angle << " identical angles, "
            << same_descriptor << " identical descriptors; " << a << "\n";
}

// A golden image by name, or any image by path.
cv::Mat photo(const std::string& name) {
  return loadImage(name.find('/') == std::string::npos ? test::surfData(name) : name);
}

TEST(OpenClSurf, FaithfulToTheBuiltinSurfOnPhotographs) {
  BOVW_REQUIRE_OPENCL();
  for (const std::string name : {"box.png", "graf1_gray.png"}) expectFaithful(name, photo(name), SurfParams{});
  for (const std::string name : {"baboon.jpg", "building.jpg", "blox.jpg", "left01.jpg"})
    expectFaithful(name, photo(test::opencvDocImage(name)), SurfParams{});
}

TEST(OpenClSurf, FaithfulUprightExtendedAndMasked) {
  BOVW_REQUIRE_OPENCL();
  SurfParams upright;
  upright.upright = true;
  SurfParams extended;
  extended.extended = true;
  SurfParams both = upright;
  both.extended = true;
  const cv::Mat graf = photo("graf1_gray.png");
  expectFaithful("graf1 upright", graf, upright);
  expectFaithful("graf1 extended", graf, extended);
  expectFaithful("box upright extended", photo("box.png"), both);
  cv::Mat mask = cv::Mat::zeros(graf.size(), CV_8U);
  cv::circle(mask, cv::Point(graf.cols / 2, graf.rows / 2), graf.rows / 3, cv::Scalar(255), cv::FILLED);
  expectFaithful("graf1 masked", graf, SurfParams{}, mask);
}

TEST(OpenClSurf, FaithfulOnOddSizesAndColour) {
  BOVW_REQUIRE_OPENCL();
  cv::Mat noise(173, 251, CV_8UC3), smooth;
  cv::RNG(7).fill(noise, cv::RNG::UNIFORM, 0, 256);
  cv::GaussianBlur(noise, smooth, cv::Size(0, 0), 1.5);
  expectFaithful("173x251 colour noise", smooth, SurfParams{});
  cv::Mat thin;
  cv::resize(photo("box.png"), thin, cv::Size(613, 47), 0, 0, cv::INTER_AREA);
  expectFaithful("613x47 box", thin, SurfParams{});
}

TEST(OpenClSurf, ComputeAtGivenKeypointsMatchesTheBuiltin) {
  BOVW_REQUIRE_OPENCL();
  const cv::Mat img = photo("box.png");
  // Keypoints of the CPU detector plus some at the border, which orientation must drop as OpenCV does.
  std::vector<cv::KeyPoint> given = extract(SurfBackend::Builtin, SurfParams{}, img).keypoints;
  given.resize(std::min<std::size_t>(given.size(), 200));
  given.emplace_back(0.f, 0.f, 60.f);
  given.emplace_back(static_cast<float>(img.cols - 1), 5.f, 400.f);
  std::vector<cv::KeyPoint> cpu = given, gpu = given;
  cv::Mat cpu_desc, gpu_desc;
  surf::makeSurfExtractor(SurfParams{}, SurfBackend::Builtin)->compute(img, cpu, cpu_desc);
  surf::makeSurfExtractor(SurfParams{}, SurfBackend::OpenCL)->compute(img, gpu, gpu_desc);
  ASSERT_EQ(gpu.size(), cpu.size());
  ASSERT_EQ(gpu_desc.rows, cpu_desc.rows);
  const test::Agreement a = test::compare(test::asReference(gpu, gpu_desc), test::asReference(cpu, cpu_desc));
  EXPECT_GE(a.recall, 0.98) << a;
  EXPECT_LE(a.median_desc_dist, 0.01) << a;
}

TEST(OpenClSurf, ImagesWithoutKeypointsGiveEmptyOutputs) {
  BOVW_REQUIRE_OPENCL();
  for (const cv::Mat& img : {cv::Mat(cv::Size(40, 30), CV_8U, cv::Scalar(90)), cv::Mat(cv::Size(3, 400), CV_8U, cv::Scalar(7))}) {
    const Extraction r = extract(SurfBackend::OpenCL, SurfParams{}, img);
    EXPECT_TRUE(r.keypoints.empty());
    EXPECT_EQ(r.descriptors.rows, 0);
  }
}

TEST(OpenClSurf, AScaleSpaceBeyondTheDeviceIsACapacityErrorNamingTheImage) {
  BOVW_REQUIRE_OPENCL();
  SurfParams deep;
  // 66 full-resolution layers and their smaller octaves: 4.2 billion responses for 8000 x 6000, past
  // the kernels' 32-bit indices (and past the largest allocation of every device seen).
  deep.octave_layers = 64;
  const cv::Mat big(6000, 8000, CV_8U, cv::Scalar(100));
  try {
    extract(SurfBackend::OpenCL, deep, big);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("8000 x 6000"), std::string::npos) << e.what();
  }
}

// One extractor, several threads: on a GPU each call borrows a queue with its own scratch buffers and
// kernels (on a CPU device such as PoCL the calls take turns), and the images differ in size so that the
// buffers are reused, grown and shared across calls in every order.
TEST(OpenClSurf, ConcurrentCallsGiveEachImageItsOwnResult) {
  BOVW_REQUIRE_OPENCL();
  const auto surf = surf::makeSurfExtractor(SurfParams{}, SurfBackend::OpenCL);
  std::vector<cv::Mat> images = {photo("box.png"), test::texturedImage(173, 251, 7), test::texturedImage(96, 64, 8)};
  std::vector<Extraction> alone;
  for (const cv::Mat& img : images) alone.push_back(extract(SurfBackend::Builtin, SurfParams{}, img));
  constexpr int kThreads = 4, kRounds = 3;
  std::vector<std::thread> threads;
  std::vector<std::string> failures(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r)
        for (std::size_t k = 0; k < images.size(); ++k) {
          const std::size_t i = (k + t) % images.size();  // each thread its own order
          Extraction got;
          surf->detectAndCompute(images[i], cv::noArray(), got.keypoints, got.descriptors);
          const bool same = got.keypoints.size() == alone[i].keypoints.size() &&
                            cv::norm(got.descriptors, alone[i].descriptors, cv::NORM_INF) == 0;
          if (!same && failures[t].empty())
            failures[t] = "image " + std::to_string(i) + " round " + std::to_string(r) + " differs";
        }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t];
}

TEST(OpenClSurf, BackendIsNamedAndParsed) {
  EXPECT_EQ(parseSurfBackend("opencl"), SurfBackend::OpenCL);
  EXPECT_EQ(surfBackendName(SurfBackend::OpenCL), "opencl");
  BOVW_REQUIRE_OPENCL();
  EXPECT_EQ(surf::makeSurfExtractor(SurfParams{}, SurfBackend::OpenCL)->backend(), SurfBackend::OpenCL);
}

}  // namespace
}  // namespace bovw
