// SURF batches on the OpenCL device (src/features/opencl/surf_batch.*) and the fused images-to-
// histograms route (src/pipeline/device_histograms.*): a batch of images of different sizes must give
// each image exactly what the builtin CPU SURF gives it alone, and the fused route must give the
// histograms, counts and words of the image-by-image route and of an independent CPU pipeline
// (builtin SURF + OpenMP histograms), with bad files failing alone. Runs on PoCL in CI.
#include "features/integral_image.hpp"
#include "features/opencl/device_features.hpp"
#include "features/opencl/surf_batch.hpp"
#include "features/surf_extractor.hpp"
#include "opencl/resident_histograms.hpp"
#include "support/io_test_support.hpp"
#include "support/test_support.hpp"
#include "same_features.hpp"
#include "surf_test_support.hpp"

#include <bovw/feature_registry.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/surf.hpp>
#include <bovw/vocabulary.hpp>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

namespace bovw {
namespace {

std::vector<cv::Mat> mixedImages() {
  std::vector<cv::Mat> images = {toSurfGray(loadImage(test::surfData("graf1_gray.png"))),
                                 test::texturedImage(97, 131, 1, 2.0),
                                 test::texturedImage(20, 20, 2, 2.0),  // below the smallest search window
                                 toSurfGray(loadImage(test::surfData("box.png"))),
                                 test::texturedImage(1000, 61, 3, 2.0),
                                 test::texturedImage(331, 257, 4, 2.0)};
  return images;
}

class OpenClSurfBatch : public test::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    BOVW_REQUIRE_OPENCL();
    device_ = std::make_unique<detail::DeviceContext>("");
    if (device_->device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") == std::string::npos)
      GTEST_SKIP() << device_->info().name << " has no cl_khr_fp64; the SURF stages need double";
  }
  std::unique_ptr<detail::DeviceContext> device_;
};

TEST_F(OpenClSurfBatch, IntegralImagesOfABatchAreEachImagesOwn) {
  std::vector<cv::Mat> grays;
  for (const cv::Size size : {cv::Size(1, 1), cv::Size(53, 37), cv::Size(257, 3), cv::Size(641, 481)}) {
    cv::Mat gray(size, CV_8U);
    cv::RNG(size.area()).fill(gray, cv::RNG::UNIFORM, 0, 256);
    grays.push_back(gray);
  }
  const surf::DeviceImages images = surf::uploadImages(*device_, grays, "image");
  for (std::size_t i = 0; i < grays.size(); ++i) {
    cv::Mat got(grays[i].rows + 1, grays[i].cols + 1, CV_32S);
    device_->queue().enqueueReadBuffer(images.sum, CL_TRUE, sizeof(std::int32_t) * images.layout.records[i].sum,
                                       got.total() * sizeof(std::int32_t), got.data);
    EXPECT_EQ(cv::countNonZero(got != surf::integralImage(grays[i])), 0) << grays[i].size();
  }
}

// Every image of one batch gets the builtin SURF's keypoints (same order) and descriptors, bit for bit.
TEST_F(OpenClSurfBatch, EachImageOfABatchGetsTheBuiltinSurfsFeatures) {
  const std::vector<cv::Mat> grays = mixedImages();
  SurfParams upright, extended;
  upright.upright = true;
  extended.extended = true;
  for (const SurfParams& params : {SurfParams{}, upright, extended}) {
    const std::string what = params.upright ? "upright" : params.extended ? "extended" : "default";
    surf::SurfBatchInput input;
    input.grays = grays;
    const surf::SurfOnDevice batch = surf::enqueueSurf(*device_, input, params);
    const std::vector<ImageFeatures> gpu = surf::readFeatures(*device_, batch, input);
    ASSERT_EQ(gpu.size(), grays.size());
    const auto builtin = surf::makeSurfExtractor(params, SurfBackend::Builtin);
    std::size_t total = 0;
    for (std::size_t i = 0; i < grays.size(); ++i) {
      ImageFeatures cpu;
      builtin->detectAndCompute(grays[i], cv::noArray(), cpu.keypoints, cpu.descriptors);
      test::expectSameFeatures(cpu, gpu[i], what + ", image " + std::to_string(i));
      total += cpu.keypoints.size();
    }
    EXPECT_GT(total, 1000u) << "the batch should have keypoints to compare";
    EXPECT_TRUE(gpu[2].keypoints.empty());
  }
}

// Batches started in two slots before either is finished (as the fused route runs them: start n + 1,
// finish n, read n) give each image the builtin SURF's features. Threshold 0 makes the first batch
// find more keypoints than its first extremum launch has room for, so its second launch runs after
// the other batch's detection was queued.
TEST_F(OpenClSurfBatch, BatchesStartedBeforeTheEarlierOneIsFinishedKeepTheirOwnFeatures) {
  SurfParams everything;
  everything.hessian_threshold = 0;
  const std::vector<cv::Mat> mixed = mixedImages();
  std::vector<surf::SurfBatchInput> inputs(3);
  inputs[0].grays = {test::texturedImage(640, 480, 5, 0.5), mixed[1]};
  inputs[1].grays = {mixed[4], mixed[5], mixed[2]};
  inputs[2].grays = {mixed[3]};
  std::vector<surf::SurfOnDevice> batches;
  std::vector<std::vector<ImageFeatures>> gpu(inputs.size());
  for (std::size_t b = 0; b <= inputs.size(); ++b) {
    if (b < inputs.size()) {
      inputs[b].slot = static_cast<int>(b % 2);
      batches.push_back(surf::startSurf(*device_, inputs[b], everything));
    }
    if (b == 0) continue;
    surf::finishSurf(*device_, inputs[b - 1], everything, batches[b - 1]);
    gpu[b - 1] = surf::readFeatures(*device_, batches[b - 1], inputs[b - 1]);
  }
  EXPECT_NE(batches[0].detection.extrema(), batches[0].detection.first_extrema())
      << "the first batch's first extremum launch should have run out of room (" << batches[0].detection.count
      << " keypoints)";
  const auto builtin = surf::makeSurfExtractor(everything, SurfBackend::Builtin);
  for (std::size_t b = 0; b < inputs.size(); ++b) {
    ASSERT_EQ(gpu[b].size(), inputs[b].grays.size());
    for (std::size_t i = 0; i < inputs[b].grays.size(); ++i) {
      ImageFeatures cpu;
      builtin->detectAndCompute(inputs[b].grays[i], cv::noArray(), cpu.keypoints, cpu.descriptors);
      test::expectSameFeatures(cpu, gpu[b][i], "batch " + std::to_string(b) + ", image " + std::to_string(i));
    }
  }
}

// The registry's OpenCL SURF runs a batch as the builtin SURF runs each image alone, and it offers the
// device seam that the fused route meets with an OpenCL histogrammer's; host extractors and
// histogrammers offer none.
TEST_F(OpenClSurfBatch, TheRegistrysSurfBatchesAndMeetsTheHistogrammerOnTheDevice) {
  ExtractorOptions gpu_features, cpu_features;
  gpu_features.surf_backend = SurfBackend::OpenCL;
  cpu_features.surf_backend = SurfBackend::Builtin;
  const auto gpu = makeFeatureExtractor(surfFeatureSpec({}), gpu_features);
  const auto cpu = makeFeatureExtractor(surfFeatureSpec({}), cpu_features);
  EXPECT_EQ(gpu->description(), "SURF backend opencl");
  EXPECT_EQ(cpu->description(), "SURF backend builtin");

  const std::vector<cv::Mat> grays = mixedImages();
  const std::vector<ImageFeatures> batch = gpu->extractFeaturesBatch(grays);
  const std::vector<ImageFeatures> one_by_one = cpu->extractFeaturesBatch(grays);  // the default: a loop
  ASSERT_EQ(batch.size(), grays.size());
  ASSERT_EQ(one_by_one.size(), grays.size());
  for (std::size_t i = 0; i < grays.size(); ++i) {
    test::expectSameFeatures(cpu->extractFeatures(grays[i]), batch[i], "batch, image " + std::to_string(i));
    test::expectSameFeatures(cpu->extractFeatures(grays[i]), one_by_one[i], "loop, image " + std::to_string(i));
  }

  EXPECT_EQ(detail::deviceFeaturesOf(*cpu), nullptr);
  EXPECT_EQ(detail::deviceFeaturesOf(*makeFeatureExtractor(FeatureSpec("orb"))), nullptr);
  const detail::DeviceFeatures* features = detail::deviceFeaturesOf(*gpu);
  ASSERT_NE(features, nullptr);
  HistogrammerConfig opencl;
  opencl.backend = Backend::OpenCL;
  const auto histogrammer = makeHistogrammer(opencl);
  detail::ResidentHistograms* search = detail::residentHistogramsOf(*histogrammer);
  ASSERT_NE(search, nullptr);
  EXPECT_TRUE(features->runsOn(search->device()));
  EXPECT_TRUE(features->runsOn(*device_));
}

// The records come back grouped: image i's keypoints, and only its own, in [offsets[i], offsets[i+1]).
TEST_F(OpenClSurfBatch, RecordsAreGroupedByImage) {
  surf::SurfBatchInput input;
  input.grays = mixedImages();
  const surf::SurfOnDevice batch = surf::enqueueSurf(*device_, input, SurfParams{});
  const int images = batch.image_count;
  std::vector<cl_int> offsets(static_cast<std::size_t>(images) + 2);
  std::vector<surf::DeviceKeypoint> records(static_cast<std::size_t>(batch.count));
  device_->queue().enqueueReadBuffer(batch.offsets, CL_TRUE, 0, sizeof(cl_int) * offsets.size(), offsets.data());
  device_->queue().enqueueReadBuffer(batch.records, CL_TRUE, 0, sizeof(surf::DeviceKeypoint) * records.size(),
                                     records.data());
  EXPECT_EQ(offsets[0], 0);
  EXPECT_EQ(offsets[images + 1], batch.count);
  for (int i = 0; i <= images; ++i) {
    ASSERT_LE(offsets[i], offsets[i + 1]);
    for (int r = offsets[i]; r < offsets[i + 1]; ++r) {
      if (i < images) {
        ASSERT_EQ(records[r].image, i) << "record " << r;
        ASSERT_GT(records[r].size, 0) << "record " << r;
      } else {
        ASSERT_LE(records[r].size, 0) << "record " << r << " is past the images but not dropped";
      }
    }
  }
  // Every detected record exactly once (the grouping runs in chunks of 4,096: graf1 alone has more).
  std::vector<surf::DeviceKeypoint> detected(records.size());
  device_->queue().enqueueReadBuffer(batch.detection.records, CL_TRUE, 0, sizeof(surf::DeviceKeypoint) * detected.size(),
                                     detected.data());
  const auto key = [](const surf::DeviceKeypoint& k) { return std::make_tuple(k.image, k.y, k.x, k.size, k.response); };
  const auto before = [&](const surf::DeviceKeypoint& a, const surf::DeviceKeypoint& b) { return key(a) < key(b); };
  std::sort(records.begin(), records.end(), before);
  std::sort(detected.begin(), detected.end(), before);
  ASSERT_GT(records.size(), 4096u);
  for (std::size_t r = 0; r < records.size(); ++r) ASSERT_EQ(key(records[r]), key(detected[r])) << "record " << r;

  // Nothing to group: the offsets are still written, all zero.
  surf::SurfBatchInput tiny;
  tiny.grays = {test::texturedImage(20, 20, 7, 2.0), test::texturedImage(15, 30, 8, 2.0)};
  const surf::SurfOnDevice none = surf::enqueueSurf(*device_, tiny, SurfParams{});
  ASSERT_EQ(none.count, 0);
  std::vector<cl_int> zeros(4, -1);
  device_->queue().enqueueReadBuffer(none.offsets, CL_TRUE, 0, sizeof(cl_int) * zeros.size(), zeros.data());
  EXPECT_EQ(zeros, std::vector<cl_int>(4, 0));
}

TEST_F(OpenClSurfBatch, BadBatchesAreRefusedByName) {
  surf::SurfBatchInput empty;
  EXPECT_THROW(surf::enqueueSurf(*device_, empty, SurfParams{}), InvalidInput);
  surf::SurfBatchInput masks;
  masks.grays = mixedImages();
  masks.masks = {cv::Mat()};
  EXPECT_THROW(surf::enqueueSurf(*device_, masks, SurfParams{}), InvalidInput);
}

// The fused route (SURF and histograms on one device, batches of several images) against the
// image-by-image route with the same extractor and histogrammer, and against builtin SURF + OpenMP.
TEST_F(OpenClSurfBatch, FusedRouteGivesThePipelinesHistogramsAndWords) {
  std::vector<std::string> paths;
  int n = 0;
  auto add = [&](const cv::Mat& image) {
    paths.push_back(path("image" + std::to_string(n++) + ".png"));
    ASSERT_TRUE(cv::imwrite(paths.back(), image));
  };
  for (const cv::Mat& gray : mixedImages()) add(gray);
  paths.push_back(path("corrupt.png"));
  std::ofstream(paths.back()) << "not a png";
  add(test::texturedImage(401, 333, 9, 2.0));

  // 64-D and 128-D (extended) descriptors: the signatures compare every dimension, or every other.
  for (const bool extended : {false, true}) {
    SCOPED_TRACE(extended ? "extended" : "64-D");
    SurfParams params;
    params.extended = extended;
    const int d = extended ? 128 : 64;
    // A vocabulary of real SURF descriptors: every 7th of graf1's, 61 words (an odd K).
    const cv::Mat graf = mixedImages()[0];
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
    surf::makeSurfExtractor(params, SurfBackend::Builtin)->detectAndCompute(graf, cv::noArray(), keypoints, descriptors);
    Descriptors words(61, d);
    for (int k = 0; k < 61; ++k)
      for (int j = 0; j < d; ++j) words(k, j) = descriptors.at<float>(k * 7, j);
    const Vocabulary vocabulary(words, DescriptorType("surf", d));

    PipelineOptions options;
    options.keep_words = true;
    options.batch_images = 4;                // pipeline batches of 4 images ...
    options.device_batch_pixels = 300'000;   // ... cut into device batches by pixels
    ExtractorOptions gpu_features;
    gpu_features.surf_backend = SurfBackend::OpenCL;
    const auto gpu_surf = makeFeatureExtractor(surfFeatureSpec(params), gpu_features);
    HistogrammerConfig opencl;
    opencl.backend = Backend::OpenCL;
    const auto histogrammer = makeHistogrammer(opencl);
    const ImageHistograms fused = histogramImages(paths, *gpu_surf, vocabulary, *histogrammer, options);
    options.fused_device = false;
    const ImageHistograms by_image = histogramImages(paths, *gpu_surf, vocabulary, *histogrammer, options);
    ExtractorOptions cpu_features;
    cpu_features.surf_backend = SurfBackend::Builtin;
    const ImageHistograms cpu = histogramImages(paths, *makeFeatureExtractor(surfFeatureSpec(params), cpu_features),
                                                vocabulary, *makeHistogrammer({}), options);

    for (const ImageHistograms* other : {&by_image, &cpu}) {
      ASSERT_EQ(fused.names, other->names);
      EXPECT_TRUE(fused.histograms == other->histograms);
      EXPECT_EQ(fused.descriptor_counts, other->descriptor_counts);
      ASSERT_EQ(fused.words.size(), other->words.size());
      for (std::size_t i = 0; i < fused.words.size(); ++i) {
        EXPECT_EQ(fused.words[i].image_size, other->words[i].image_size) << i;
        EXPECT_EQ(fused.words[i].points, other->words[i].points) << i;
        EXPECT_EQ(fused.words[i].words, other->words[i].words) << i;
        EXPECT_EQ(fused.words[i].signatures, other->words[i].signatures) << i;
        EXPECT_EQ(fused.words[i].sizes, other->words[i].sizes) << i;
        EXPECT_EQ(fused.words[i].angles, other->words[i].angles) << i;
      }
      ASSERT_EQ(other->failures.size(), 1u);
    }
    EXPECT_EQ(fused.names.size(), paths.size() - 1);
    ASSERT_EQ(fused.failures.size(), 1u);
    EXPECT_EQ(fused.failures[0].path, path("corrupt.png"));
    EXPECT_GT(fused.histograms.sum(), 1000);
    std::size_t mixed = 0;  // signatures with both bit values: the comparisons are exercised
    for (const ImageWords& w : fused.words)
      for (const std::uint64_t signature : w.signatures) mixed += signature != 0 && ~signature != 0;
    EXPECT_GT(mixed, 100u);
  }
}

// A device batch that fails (here: more descriptors than a small device-memory limit allows) is retried
// image by image: images that fit alone get the histograms of an unconstrained run, the others fail
// with a message naming them, and nothing is lost or crashes.
TEST_F(OpenClSurfBatch, AFailedDeviceBatchIsRetriedImageByImage) {
  std::vector<std::string> paths;
  const std::vector<cv::Mat> grays = mixedImages();
  for (std::size_t i = 0; i < grays.size(); ++i) {
    paths.push_back(path("image" + std::to_string(i) + ".png"));
    ASSERT_TRUE(cv::imwrite(paths.back(), grays[i]));
  }
  Descriptors words(16, 64);
  cv::RNG(5).fill(cv::Mat(16, 64, CV_32F, words.data()), cv::RNG::UNIFORM, 0.0, 0.2);
  const Vocabulary vocabulary(words, DescriptorType("surf", 64));
  ExtractorOptions gpu_features;
  gpu_features.surf_backend = SurfBackend::OpenCL;
  const auto gpu_surf = makeFeatureExtractor(surfFeatureSpec({}), gpu_features);
  HistogrammerConfig opencl;
  opencl.backend = Backend::OpenCL;
  const ImageHistograms reference = histogramImages(paths, *gpu_surf, vocabulary, *makeHistogrammer(opencl));
  ASSERT_EQ(reference.names.size(), paths.size());
  opencl.device_memory_limit = 600'000;  // about 2,000 descriptors: the whole batch does not fit
  // One device batch; then several, so that a failing one has others in flight before and after it.
  PipelineOptions one_batch, several;
  several.batch_images = 4;
  several.device_batch_pixels = 100'000;
  for (const PipelineOptions& options : {one_batch, several}) {
    const std::string what = options.batch_images == 4 ? "several device batches" : "one device batch";
    const ImageHistograms limited = histogramImages(paths, *gpu_surf, vocabulary, *makeHistogrammer(opencl), options);
    EXPECT_FALSE(limited.names.empty()) << what << ": small images fit alone";
    EXPECT_FALSE(limited.failures.empty()) << what << ": graf1's 4,805 descriptors do not";
    EXPECT_EQ(limited.names.size() + limited.failures.size(), paths.size()) << what;
    for (std::size_t i = 0; i < limited.names.size(); ++i) {
      const auto at =
          std::find(reference.names.begin(), reference.names.end(), limited.names[i]) - reference.names.begin();
      EXPECT_TRUE(limited.histograms.row(static_cast<Eigen::Index>(i)) == reference.histograms.row(at))
          << what << ": " << limited.names[i];
    }
    for (const ImageFailure& f : limited.failures) {
      EXPECT_NE(f.message.find(f.path), std::string::npos) << what << ": " << f.message;
      EXPECT_NE(f.message.find("device memory"), std::string::npos) << what << ": " << f.message;
    }
  }
}

}  // namespace
}  // namespace bovw
