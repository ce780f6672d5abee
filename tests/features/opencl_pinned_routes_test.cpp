// The device routes with pinned staging (src/pipeline/pinned_staging.*, device_batches.*): images
// decoded straight into page-locked arenas, uploaded from there in device batches, read back into
// pinned memory, with no drain of the queue between pipeline batches. Every route must give exactly
// what the previous routes give (SURF's OpenCL backend image by image on the workers) and what the
// CPU gives (builtin SURF, OpenMP histograms): histograms and words, each image's features (bovw
// extract's), and the training sample; on real JPEGs and PNGs, odd sizes, a 1-pixel image, a 16-bit
// PNG (converted, then copied into the staging), an undecodable file in the middle of a batch, and
// pipeline batches both smaller and larger than the set. Runs on PoCL in CI.
#include "features/image_allocation.hpp"
#include "features/surf_extractor.hpp"
#include "pipeline/pinned_staging.hpp"
#include "support/io_test_support.hpp"
#include "support/test_support.hpp"
#include "same_features.hpp"
#include "surf_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/surf.hpp>
#include <bovw/vocabulary.hpp>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include <filesystem>
#include <fstream>

namespace bovw {
namespace {

std::unique_ptr<FeatureExtractor> surfOn(SurfBackend backend) {
  ExtractorOptions options;
  options.surf_backend = backend;
  return makeFeatureExtractor(surfFeatureSpec({}), options);
}

class PinnedDeviceRoutes : public test::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    BOVW_REQUIRE_OPENCL();
    device_ = std::make_unique<detail::DeviceContext>("");
    if (device_->device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") == std::string::npos)
      GTEST_SKIP() << device_->info().name << " has no cl_khr_fp64; the SURF stages need double";
    int n = 0;
    auto copy = [&](const std::string& from) {
      if (!std::filesystem::exists(from)) return;  // opencv-doc's images: where the package is installed
      paths_.push_back(path(std::to_string(n++) + "-" + std::filesystem::path(from).filename().string()));
      std::filesystem::copy_file(from, paths_.back());
    };
    auto write = [&](const cv::Mat& image) {
      paths_.push_back(path(std::to_string(n++) + "-made.png"));
      ASSERT_TRUE(cv::imwrite(paths_.back(), image));
    };
    copy(test::opencvDocImage("HappyFish.jpg"));  // 259 x 194
    write(test::texturedImage(97, 131, 1, 2.0));
    write(cv::Mat(1, 1, CV_8U, cv::Scalar(77)));  // one pixel
    copy(test::surfData("box.png"));
    paths_.push_back(path(std::to_string(n++) + "-undecodable.jpg"));  // in the middle of a pipeline batch
    std::ofstream(paths_.back()) << "\xff\xd8 not a jpeg";
    corrupt_ = paths_.back();
    cv::Mat sixteen;
    test::texturedImage(120, 90, 5, 2.0).convertTo(sixteen, CV_16U, 257.0);
    write(sixteen);  // decoded as 16-bit: converted to 8-bit, then copied into the staging
    copy(test::opencvDocImage("baboon.jpg"));
    write(test::texturedImage(1000, 61, 3, 2.0));
    copy(test::surfData("graf1_gray.png"));
    copy(test::opencvDocImage("LinuxLogo.jpg"));
    write(test::texturedImage(331, 257, 4, 2.0));
  }

  // A vocabulary of real SURF descriptors: every 7th of graf1's, 61 words (an odd K).
  Vocabulary vocabulary() const {
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
    surf::makeSurfExtractor({}, SurfBackend::Builtin)
        ->detectAndCompute(toSurfGray(loadImage(test::surfData("graf1_gray.png"))), cv::noArray(), keypoints,
                           descriptors);
    Descriptors words(61, 64);
    for (int k = 0; k < 61; ++k)
      for (int j = 0; j < 64; ++j) words(k, j) = descriptors.at<float>(k * 7, j);
    return Vocabulary(words, DescriptorType("surf", 64));
  }

  // Pipeline batches of 3 (several per run, a device batch in flight across each boundary), cut into
  // device batches by pixels; and one pipeline batch larger than the set.
  static std::vector<PipelineOptions> optionSets() {
    PipelineOptions small, large;
    small.batch_images = 3;
    small.device_batch_pixels = 300'000;
    large.batch_images = 64;
    return {small, large};
  }

  std::unique_ptr<detail::DeviceContext> device_;
  std::vector<std::string> paths_;
  std::string corrupt_;
};

TEST_F(PinnedDeviceRoutes, DecodedGrayImagesLandInTheStagingAndArenasPassFromBatchToBatch) {
  detail::PinnedStaging staging(device_->anotherQueue(), 2);
  cv::Mat gray, sixteen;
  {
    const detail::PinnedStaging::Serving serving(staging, 0);
    gray = detail::loadImage(test::surfData("box.png"), 100'000'000, cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH,
                             &staging);
    cv::Mat wide;
    test::texturedImage(40, 30, 5, 2.0).convertTo(wide, CV_16U, 257.0);
    ASSERT_TRUE(cv::imwrite(path("wide.png"), wide));
    sixteen = detail::loadImage(path("wide.png"), 100'000'000, cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH, &staging);
  }
  EXPECT_TRUE(staging.holds(gray)) << "the decoder wrote the gray image into the staging";
  EXPECT_EQ(cv::norm(gray, loadImage(test::surfData("box.png")), cv::NORM_INF), 0);
  EXPECT_EQ(sixteen.type(), CV_16UC1);
  EXPECT_FALSE(staging.holds(sixteen)) << "16-bit pixels come from the heap";
  const cv::Mat eight = toSurfGray(sixteen);
  const cv::Mat staged = staging.stage(eight, 0);
  EXPECT_TRUE(staging.holds(staged));
  EXPECT_EQ(cv::norm(staged, eight, cv::NORM_INF), 0);
  EXPECT_EQ(staging.stage(staged, 0).data, staged.data) << "already there: not copied again";
  // Batch 2 shares batch 0's arena (depth 2): until batch 0 is released it gets heap memory.
  EXPECT_FALSE(staging.holds(staging.stage(eight, 2)));
  EXPECT_TRUE(staging.holds(staging.stage(eight, 1)));
  staging.release(0);
  const cv::Mat reused = staging.stage(eight, 2);
  EXPECT_TRUE(staging.holds(reused));
  EXPECT_EQ(reused.data, gray.data) << "the released arena is reused from its start";
  // Outside a Serving scope, or for other types, the allocator gives the heap's memory.
  cv::Mat plain;
  plain.allocator = &staging;
  plain.create(8, 8, CV_8UC1);
  EXPECT_FALSE(staging.holds(plain));
}

TEST_F(PinnedDeviceRoutes, HistogramsAndWordsEqualThePreviousAndTheCpuRoutes) {
  const Vocabulary words = vocabulary();
  const auto gpu = surfOn(SurfBackend::OpenCL);
  const auto cpu = surfOn(SurfBackend::Builtin);
  HistogrammerConfig opencl;
  opencl.backend = Backend::OpenCL;
  const auto histogrammer = makeHistogrammer(opencl);
  for (PipelineOptions options : optionSets()) {
    SCOPED_TRACE("batch_images " + std::to_string(options.batch_images));
    options.keep_words = true;
    PipelineProfile profile;
    options.profile = &profile;
    const ImageHistograms pinned = histogramImages(paths_, *gpu, words, *histogrammer, options);
    EXPECT_GT(profile.device_batches, options.batch_images == 3 ? 4 : 0) << "the fused route ran";
    options.profile = nullptr;
    options.fused_device = false;
    const ImageHistograms previous = histogramImages(paths_, *gpu, words, *histogrammer, options);
    const ImageHistograms reference = histogramImages(paths_, *cpu, words, *makeHistogrammer({}), options);
    for (const ImageHistograms* other : {&previous, &reference}) {
      ASSERT_EQ(pinned.names, other->names);
      EXPECT_TRUE(pinned.histograms == other->histograms);
      EXPECT_EQ(pinned.descriptor_counts, other->descriptor_counts);
      ASSERT_EQ(pinned.words.size(), other->words.size());
      for (std::size_t i = 0; i < pinned.words.size(); ++i) {
        EXPECT_EQ(pinned.words[i].image_size, other->words[i].image_size) << i;
        EXPECT_EQ(pinned.words[i].points, other->words[i].points) << i;
        EXPECT_EQ(pinned.words[i].words, other->words[i].words) << i;
        EXPECT_EQ(pinned.words[i].signatures, other->words[i].signatures) << i;
        EXPECT_EQ(pinned.words[i].sizes, other->words[i].sizes) << i;
        EXPECT_EQ(pinned.words[i].angles, other->words[i].angles) << i;
      }
    }
    ASSERT_EQ(pinned.failures.size(), 1u);
    EXPECT_EQ(pinned.failures[0].path, corrupt_);
    EXPECT_NE(pinned.failures[0].message.find(corrupt_), std::string::npos) << pinned.failures[0].message;
    EXPECT_EQ(pinned.names.size(), paths_.size() - 1);
    EXPECT_GT(pinned.histograms.sum(), 1000);

    options.fused_device = true;
    options.strict = true;  // the bad file stops the run, named
    try {
      histogramImages(paths_, *gpu, words, *histogrammer, options);
      ADD_FAILURE() << "strict mode did not stop at " << corrupt_;
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(corrupt_), std::string::npos) << e.what();
    }
  }
}

// What `bovw extract` writes per image, and extractInBatches' rows, in device batches.
TEST_F(PinnedDeviceRoutes, EachImagesFeaturesEqualThePreviousAndTheCpuRoutes) {
  const auto gpu = surfOn(SurfBackend::OpenCL);
  const auto cpu = surfOn(SurfBackend::Builtin);
  auto extractAll = [&](const FeatureExtractor& extractor, const PipelineOptions& options) {
    std::map<std::size_t, ImageFeatures> got;
    const std::vector<ImageFailure> failures =
        extractImageFeatures(paths_, extractor, options, [&](std::size_t i, ImageFeatures& f) {
          EXPECT_TRUE(got.empty() || got.rbegin()->first < i) << "in image order";
          got[i] = f;
        });
    EXPECT_EQ(failures.size(), 1u);
    if (!failures.empty()) {
      EXPECT_EQ(failures[0].path, corrupt_);
      EXPECT_NE(failures[0].message.find(corrupt_), std::string::npos) << failures[0].message;
    }
    return got;
  };
  for (PipelineOptions options : optionSets()) {
    SCOPED_TRACE("batch_images " + std::to_string(options.batch_images));
    const auto pinned = extractAll(*gpu, options);
    options.fused_device = false;
    const auto previous = extractAll(*gpu, options);
    const auto reference = extractAll(*cpu, options);
    ASSERT_EQ(pinned.size(), paths_.size() - 1);
    std::size_t keypoints = 0;
    for (const auto& [i, features] : reference) {
      ASSERT_EQ(pinned.count(i), 1u) << paths_[i];
      test::expectSameFeatures(features, pinned.at(i), "cpu vs pinned, " + paths_[i]);
      test::expectSameFeatures(previous.at(i), pinned.at(i), "previous vs pinned, " + paths_[i]);
      keypoints += features.keypoints.size();
    }
    EXPECT_GT(keypoints, 5000u);

    // extractInBatches stacks the same rows.
    options.fused_device = true;
    Descriptors stacked(0, 64);
    extractInBatches(paths_, *gpu, options, [&](const ExtractedBatch& batch) {
      Descriptors grown(stacked.rows() + batch.descriptors.rows(), 64);
      grown << stacked, batch.descriptors;
      stacked = grown;
    });
    Eigen::Index row = 0;
    for (const auto& [i, features] : reference)
      for (int r = 0; r < features.descriptors.rows; ++r, ++row)
        for (int j = 0; j < 64; ++j) ASSERT_EQ(stacked(row, j), features.descriptors.at<float>(r, j)) << paths_[i];
    EXPECT_EQ(row, stacked.rows());
  }
}

TEST_F(PinnedDeviceRoutes, TheTrainingSampleEqualsThePreviousAndTheCpuRoutes) {
  const auto gpu = surfOn(SurfBackend::OpenCL);
  const auto cpu = surfOn(SurfBackend::Builtin);
  for (PipelineOptions options : optionSets()) {
    SCOPED_TRACE("batch_images " + std::to_string(options.batch_images));
    const DescriptorSample pinned = sampleDescriptors(paths_, *gpu, 2000, 17, options);
    options.fused_device = false;
    const DescriptorSample previous = sampleDescriptors(paths_, *gpu, 2000, 17, options);
    const DescriptorSample reference = sampleDescriptors(paths_, *cpu, 2000, 17, options);
    EXPECT_EQ(pinned.descriptors.rows(), 2000);
    for (const DescriptorSample* other : {&previous, &reference}) {
      EXPECT_EQ(pinned.seen, other->seen);
      EXPECT_TRUE(pinned.descriptors == other->descriptors);
      ASSERT_EQ(other->failures.size(), 1u);
    }
    ASSERT_EQ(pinned.failures.size(), 1u);
    EXPECT_EQ(pinned.failures[0].path, corrupt_);
  }
}

}  // namespace
}  // namespace bovw
