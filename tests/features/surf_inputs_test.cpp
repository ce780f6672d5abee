// Inputs SURF must accept (colour, 16-bit, masks, both widths) and inputs it must refuse clearly.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/surf.hpp>

#include "features/surf_extractor.hpp"
#include "surf_test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

namespace bovw::test {
namespace {

struct Extraction {
  std::vector<cv::KeyPoint> kps;
  cv::Mat desc;
};

Extraction extract(cv::InputArray img, const SurfParams& p = SurfParams(), cv::InputArray mask = cv::noArray()) {
  Extraction r;
  surf::makeSurfExtractor(p, SurfBackend::Builtin)->detectAndCompute(img, mask, r.kps, r.desc);
  return r;
}

void expectSame(const Extraction& a, const Extraction& b) {
  ASSERT_EQ(a.kps.size(), b.kps.size());
  for (size_t i = 0; i < a.kps.size(); ++i) {
    EXPECT_EQ(a.kps[i].pt, b.kps[i].pt);
    EXPECT_EQ(a.kps[i].size, b.kps[i].size);
    EXPECT_EQ(a.kps[i].angle, b.kps[i].angle);
    EXPECT_EQ(a.kps[i].response, b.kps[i].response);
  }
  EXPECT_EQ(cv::norm(a.desc, b.desc, cv::NORM_INF), 0.0);
}

class SurfInputs : public ::testing::Test {
 protected:
  void SetUp() override { img_ = loadImage(surfData("box.png")); }
  cv::Mat img_;
};

TEST_F(SurfInputs, KeypointFieldsLikeOpenCV) {
  const Extraction r = extract(img_);
  ASSERT_GT(r.kps.size(), 100u);
  for (size_t i = 0; i < r.kps.size(); ++i) {
    const cv::KeyPoint& k = r.kps[i];
    EXPECT_EQ(k.size, std::round(k.size));  // interpolated filter size, rounded as OpenCV does
    EXPECT_GE(k.octave, 0);
    EXPECT_LT(k.octave, 4);
    EXPECT_GT(k.response, 100.f);
    EXPECT_TRUE(k.class_id == 1 || k.class_id == -1 || k.class_id == 0);
    if (i > 0) {
      EXPECT_GE(r.kps[i - 1].response, k.response);  // strongest first
    }
    EXPECT_NEAR(cv::norm(r.desc.row(static_cast<int>(i))), 1.0, 1e-4);  // unit length
  }
}

TEST_F(SurfInputs, DescriptorWidths) {
  SurfParams p;
  EXPECT_EQ(surf::makeSurfExtractor(p, SurfBackend::Builtin)->descriptorSize(), 64);
  const Extraction r64 = extract(img_, p);
  EXPECT_EQ(r64.desc.cols, 64);
  p.extended = true;
  EXPECT_EQ(surf::makeSurfExtractor(p, SurfBackend::Builtin)->descriptorSize(), 128);
  const Extraction r128 = extract(img_, p);
  EXPECT_EQ(r128.desc.cols, 128);
  EXPECT_EQ(r128.desc.type(), CV_32F);
  EXPECT_EQ(r64.kps.size(), r128.kps.size());  // the width changes only the descriptor
  // The extended sums split the basic ones by sign: adding the halves gives the 64-D vector
  // back up to normalisation (sum dx = v0 + v2, sum |dx| = v1 + v3, ...).
  for (int i = 0; i < std::min(20, r64.desc.rows); ++i) {
    cv::Mat basic(1, 64, CV_32F);
    const float* e = r128.desc.ptr<float>(i);
    for (int s = 0; s < 16; ++s) {
      basic.at<float>(4 * s + 0) = e[8 * s + 0] + e[8 * s + 2];
      basic.at<float>(4 * s + 1) = e[8 * s + 4] + e[8 * s + 6];
      basic.at<float>(4 * s + 2) = e[8 * s + 1] + e[8 * s + 3];
      basic.at<float>(4 * s + 3) = e[8 * s + 5] + e[8 * s + 7];
    }
    cv::normalize(basic, basic);
    EXPECT_LT(cv::norm(basic, r64.desc.row(i)), 1e-4);
  }
}

TEST_F(SurfInputs, ColourAndSixteenBitGiveTheGrayResult) {
  const Extraction gray = extract(img_);
  cv::Mat bgr, bgra, wide;
  cv::cvtColor(img_, bgr, cv::COLOR_GRAY2BGR);
  cv::cvtColor(img_, bgra, cv::COLOR_GRAY2BGRA);
  img_.convertTo(wide, CV_16U, 257.0);  // 255 -> 65535: scales back to the same 8-bit image
  expectSame(extract(bgr), gray);
  expectSame(extract(bgra), gray);
  expectSame(extract(wide), gray);
  EXPECT_EQ(cv::norm(toSurfGray(wide), img_, cv::NORM_INF), 0.0);
}

TEST_F(SurfInputs, MaskRemovesKeypoints) {
  cv::Mat mask = cv::Mat::zeros(img_.size(), CV_8U);
  const int half = img_.cols / 2;
  mask.colRange(half, img_.cols).setTo(255);
  const Extraction all = extract(img_);
  const Extraction masked = extract(img_, SurfParams(), mask);
  ASSERT_GT(masked.kps.size(), 0u);
  EXPECT_LT(masked.kps.size(), all.kps.size());
  for (const cv::KeyPoint& k : masked.kps) EXPECT_NE(mask.at<uchar>(cvRound(k.pt.y), cvRound(k.pt.x)), 0);
  // Far from the mask's edge nothing changes.
  size_t far = 0, found = 0;
  for (const cv::KeyPoint& k : all.kps) {
    if (k.pt.x < half + 2 * k.size) continue;
    ++far;
    for (const cv::KeyPoint& m : masked.kps) found += (m.pt == k.pt && m.size == k.size);
  }
  EXPECT_GT(far, 50u);
  EXPECT_EQ(found, far);
  EXPECT_EQ(masked.desc.rows, static_cast<int>(masked.kps.size()));
  // An all-zero mask leaves nothing.
  EXPECT_TRUE(extract(img_, SurfParams(), cv::Mat::zeros(img_.size(), CV_8U)).kps.empty());
}

TEST_F(SurfInputs, ComputeOnGivenKeypointsMatchesDetectAndCompute) {
  const auto surf = surf::makeSurfExtractor(SurfParams(), SurfBackend::Builtin);
  Extraction r;
  surf->detectAndCompute(img_, cv::noArray(), r.kps, r.desc);
  std::vector<cv::KeyPoint> given = r.kps;
  for (auto& k : given) k.angle = -1;  // recomputed
  cv::Mat desc;
  surf->compute(img_, given, desc);
  ASSERT_EQ(given.size(), r.kps.size());
  for (size_t i = 0; i < given.size(); ++i) EXPECT_EQ(given[i].angle, r.kps[i].angle);
  EXPECT_EQ(cv::norm(desc, r.desc, cv::NORM_INF), 0.0);
  std::vector<cv::KeyPoint> detected;
  surf->detect(img_, detected);
  EXPECT_EQ(detected.size(), r.kps.size());
}

TEST_F(SurfInputs, RepeatableAcrossRuns) {
  expectSame(extract(img_), extract(img_));  // threads must not change the result or its order
}

TEST_F(SurfInputs, FlatTinyAndBlankImagesGiveNoKeypoints) {
  for (const cv::Size size : {cv::Size(640, 480), cv::Size(1, 1), cv::Size(5, 5), cv::Size(8, 30), cv::Size(20, 20)}) {
    const Extraction flat = extract(cv::Mat(size, CV_8U, cv::Scalar(128)));
    EXPECT_TRUE(flat.kps.empty()) << size;
    EXPECT_EQ(flat.desc.rows, 0);
  }
  // Structure but smaller than the smallest filter neighbourhood: still no keypoints, no crash.
  cv::Mat tiny(12, 12, CV_8U);
  cv::randu(tiny, 0, 255);
  EXPECT_TRUE(extract(tiny).kps.empty());
  // A small textured image is fine.
  cv::Mat small;
  cv::resize(img_, small, cv::Size(40, 30), 0, 0, cv::INTER_AREA);
  EXPECT_NO_THROW(extract(small));
}

TEST_F(SurfInputs, RefusesBadImagesAndMasks) {
  EXPECT_THROW(extract(cv::Mat()), InvalidInput);
  EXPECT_THROW(extract(cv::Mat(10, 10, CV_32F, cv::Scalar(0))), InvalidInput);
  EXPECT_THROW(extract(cv::Mat(10, 10, CV_8UC2, cv::Scalar(0))), InvalidInput);
  EXPECT_THROW(extract(img_, SurfParams(), cv::Mat::ones(10, 10, CV_8U)), InvalidInput);
  EXPECT_THROW(extract(img_, SurfParams(), cv::Mat::ones(img_.size(), CV_32F)), InvalidInput);
  SurfParams small;
  small.max_pixels = 1000;
  EXPECT_THROW(extract(img_, small), CapacityError);
  try {
    extract(cv::Mat(10, 10, CV_64F, cv::Scalar(0)));
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("64F"), std::string::npos) << e.what();
  }
}

TEST(SurfParamsCheck, RefusesBadParameters) {
  auto make = [](auto edit) {
    SurfParams p;
    edit(p);
    return surf::makeSurfExtractor(p, SurfBackend::Builtin);
  };
  EXPECT_THROW(make([](SurfParams& p) { p.hessian_threshold = -1; }), InvalidInput);
  EXPECT_THROW(make([](SurfParams& p) { p.hessian_threshold = std::nan(""); }), InvalidInput);
  EXPECT_THROW(make([](SurfParams& p) { p.octaves = 0; }), InvalidInput);
  EXPECT_THROW(make([](SurfParams& p) { p.octave_layers = 0; }), InvalidInput);
  EXPECT_THROW(make([](SurfParams& p) { p.max_pixels = 0; }), InvalidInput);
  EXPECT_NO_THROW(make([](SurfParams& p) { p.octaves = 1, p.octave_layers = 1; }));
}

TEST(SurfBackends, AvailabilityIsReportedAndEnforced) {
  EXPECT_EQ(surf::makeSurfExtractor(SurfParams(), SurfBackend::Builtin)->backend(), SurfBackend::Builtin);
  const auto autod = surf::makeSurfExtractor(SurfParams(), SurfBackend::Auto);
  EXPECT_EQ(autod->backend(), openCvSurfAvailable() ? SurfBackend::OpenCV : SurfBackend::Builtin);
  if (openCvSurfAvailable()) {
    EXPECT_EQ(surf::makeSurfExtractor(SurfParams(), SurfBackend::OpenCV)->backend(), SurfBackend::OpenCV);
  } else {
    try {
      surf::makeSurfExtractor(SurfParams(), SurfBackend::OpenCV);
      FAIL() << "no exception";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("builtin"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parseSurfBackend("builtin"), SurfBackend::Builtin);
  EXPECT_EQ(parseSurfBackend(surfBackendName(SurfBackend::OpenCV)), SurfBackend::OpenCV);
  EXPECT_THROW(parseSurfBackend("gpu"), InvalidInput);
}

TEST_F(SurfInputs, DescriptorViewsShareMemory) {
  const Extraction r = extract(img_);
  const DescriptorsMap view = viewDescriptors(r.desc);
  EXPECT_EQ(view.data(), r.desc.ptr<float>());
  EXPECT_EQ(view.rows(), r.desc.rows);
  EXPECT_EQ(view.cols(), 64);
  const DescriptorsRef ref = view;  // binds without a copy
  EXPECT_EQ(ref.data(), r.desc.ptr<float>());
  EXPECT_EQ(ref(3, 5), r.desc.at<float>(3, 5));
  // A column range has a row stride wider than its width.
  const cv::Mat part = r.desc.colRange(8, 24);
  const DescriptorsMap pv = viewDescriptors(part);
  EXPECT_EQ(pv(2, 1), r.desc.at<float>(2, 9));
  const Descriptors copy = toDescriptors(part);
  EXPECT_EQ(copy.cols(), 16);
  EXPECT_EQ(copy(4, 0), r.desc.at<float>(4, 8));
  EXPECT_EQ(toDescriptors(cv::Mat()).rows(), 0);
  EXPECT_THROW(viewDescriptors(cv::Mat(3, 3, CV_64F)), InvalidInput);
}

}  // namespace
}  // namespace bovw::test
