// The image pipeline: extractInBatches (order, offsets, bad files, strict mode, worker counts),
// histogramImages against per-image extraction + the serial Histogrammer, sampleDescriptors and
// listImages. Every expectation comes from extracting each image alone, not from the pipeline.
#include "support/retrieval_test_support.hpp"
#include "support/thread_communicator.hpp"

#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/vocabulary_io.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

namespace bovw::test {
namespace {

ExtractorOptions builtinSurf() {
  ExtractorOptions options;
  options.surf_backend = SurfBackend::Builtin;
  return options;
}

const FeatureExtractor& surf() {
  static const auto extractor = makeFeatureExtractor(FeatureSpec("surf"), builtinSurf());
  return *extractor;
}

// Each path's descriptors extracted alone (empty Mat + failed for bad files), cached.
struct Reference {
  cv::Mat descriptors;
  bool failed = false;
};
const Reference& reference(const std::string& path) {
  static std::map<std::string, Reference> cache;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  Reference ref;
  try {
    ref.descriptors = extractOne(surf(), path);
  } catch (const Error&) {
    ref.failed = true;
  }
  return cache.emplace(path, ref).first->second;
}

bool isBad(const std::string& path) {
  const ImageSet& s = imageSet();
  return path == s.truncated || path == s.text_as_png || path == s.missing;
}

struct Collected {
  std::vector<ExtractedBatch> batches;
  std::vector<ImageFailure> failures;
};

Collected collect(const std::vector<std::string>& paths, int batch_images, int workers, bool strict = false) {
  PipelineOptions options;
  options.batch_images = batch_images;
  options.workers = workers;
  options.strict = strict;
  Collected c;
  c.failures = extractInBatches(paths, surf(), options, [&](const ExtractedBatch& b) { c.batches.push_back(b); });
  return c;
}

// The batches cover the paths in order, each slice is the image's own descriptors.
void checkBatches(const std::vector<std::string>& paths, const Collected& c, int batch_images) {
  std::size_t expected_first = 0;
  for (const ExtractedBatch& b : c.batches) {
    SCOPED_TRACE("batch starting at image " + std::to_string(b.first));
    ASSERT_EQ(b.first, expected_first);
    const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(batch_images), paths.size() - b.first);
    ASSERT_EQ(b.offsets.size(), count + 1);
    ASSERT_EQ(b.failed.size(), count);
    EXPECT_EQ(b.offsets.front(), 0);
    EXPECT_EQ(b.offsets.back(), b.descriptors.rows());
    EXPECT_EQ(b.descriptors.cols(), 64);
    for (std::size_t i = 0; i < count; ++i) {
      const std::string& path = paths[b.first + i];
      SCOPED_TRACE(path);
      ASSERT_LE(b.offsets[i], b.offsets[i + 1]);
      EXPECT_EQ(b.failed[i], isBad(path));
      const Reference& ref = reference(path);
      EXPECT_EQ(ref.failed, isBad(path)) << "the fixture's bad files must fail alone too";
      EXPECT_TRUE(rowsEqual(b.descriptors, b.offsets[i], b.offsets[i + 1], ref.descriptors));
    }
    expected_first += count;
  }
  EXPECT_EQ(expected_first, paths.size()) << "every image is in exactly one batch";
}

TEST(ExtractInBatches, BatchesArriveInOrderWithTheImagesOwnDescriptorsForAnyBatchSize) {
  const auto paths = imageSet().mixed();
  for (int batch : {1, 2, 3, 7, 100}) {
    SCOPED_TRACE("batch_images = " + std::to_string(batch));
    const Collected c = collect(paths, batch, 2);
    EXPECT_EQ(c.batches.size(), (paths.size() + static_cast<std::size_t>(batch) - 1) / static_cast<std::size_t>(batch));
    checkBatches(paths, c, batch);
  }
}

TEST(ExtractInBatches, FailuresNameEachBadFileInImageOrder) {
  const ImageSet& s = imageSet();
  const Collected c = collect(s.mixed(), 3, 2);
  ASSERT_EQ(c.failures.size(), 3u);
  const std::vector<std::string> bad = {s.truncated, s.text_as_png, s.missing};
  for (std::size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(c.failures[i].path, bad[i]);
    EXPECT_TRUE(contains(c.failures[i].message, fileName(bad[i]))) << c.failures[i].message;
  }
}

TEST(ExtractInBatches, OneAndTwoWorkersGiveIdenticalBatches) {
  const auto paths = imageSet().mixed();
  const Collected one = collect(paths, 3, 1), two = collect(paths, 3, 2);
  ASSERT_EQ(one.batches.size(), two.batches.size());
  for (std::size_t b = 0; b < one.batches.size(); ++b) {
    EXPECT_EQ(one.batches[b].first, two.batches[b].first);
    EXPECT_EQ(one.batches[b].offsets, two.batches[b].offsets);
    EXPECT_EQ(one.batches[b].failed, two.batches[b].failed);
    EXPECT_TRUE(sameMatrix(one.batches[b].descriptors, two.batches[b].descriptors)) << "batch " << b;
  }
  ASSERT_EQ(one.failures.size(), two.failures.size());
  for (std::size_t i = 0; i < one.failures.size(); ++i) EXPECT_EQ(one.failures[i].path, two.failures[i].path);
}

TEST(ExtractInBatches, StrictModeThrowsAtTheFirstBadImageAndConsumesNothingAfterIt) {
  const ImageSet& s = imageSet();
  const auto paths = s.mixed();  // the first bad image is paths[2], the truncated PNG
  for (int batch : {1, 2, 100}) {
    SCOPED_TRACE("batch_images = " + std::to_string(batch));
    PipelineOptions options;
    options.batch_images = batch;
    options.workers = 2;
    options.strict = true;
    std::size_t consumed = 0;
    try {
      extractInBatches(paths, surf(), options, [&](const ExtractedBatch& b) { consumed = b.first + b.failed.size(); });
      ADD_FAILURE() << "strict mode did not throw";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), fileName(s.truncated))) << e.what();
    }
    EXPECT_LE(consumed, 2u) << "a batch holding the bad image (or a later one) reached the consumer";
  }
  // Strict mode with only good images finishes normally.
  PipelineOptions options;
  options.strict = true;
  EXPECT_TRUE(extractInBatches(s.good(), surf(), options, [](const ExtractedBatch&) {}).empty());
}

TEST(ExtractInBatches, NoPathsNoBatchesNoFailures) {
  int calls = 0;
  const auto failures = extractInBatches({}, surf(), PipelineOptions(), [&](const ExtractedBatch&) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(failures.empty());
}

TEST(ExtractInBatches, AConsumerThatThrowsStopsTheRunCleanly) {
  // The exception reaches the caller; the workers are stopped and joined (no hang, no terminate).
  const auto paths = imageSet().mixed();
  for (int workers : {1, 2}) {
    PipelineOptions options;
    options.batch_images = 1;
    options.workers = workers;
    int calls = 0;
    EXPECT_THROW(extractInBatches(paths, surf(), options,
                                  [&](const ExtractedBatch&) {
                                    if (++calls == 2) throw std::runtime_error("consumer failed");
                                  }),
                 std::runtime_error);
    EXPECT_EQ(calls, 2);
  }
}

TEST(ExtractInBatches, ImagesOverThePixelLimitFailByName) {
  const ImageSet& s = imageSet();
  PipelineOptions options;
  options.max_pixels = 100 * 100;  // every fixture image is larger
  const Collected c = [&] {
    Collected r;
    r.failures = extractInBatches({s.box, s.texture}, surf(), options,
                                  [&](const ExtractedBatch& b) { r.batches.push_back(b); });
    return r;
  }();
  ASSERT_EQ(c.failures.size(), 2u);
  EXPECT_TRUE(contains(c.failures[0].message, fileName(s.box))) << c.failures[0].message;
  EXPECT_TRUE(contains(c.failures[1].message, fileName(s.texture))) << c.failures[1].message;
  ASSERT_EQ(c.batches.size(), 1u);
  EXPECT_EQ(c.batches[0].descriptors.rows(), 0);
  EXPECT_EQ(c.batches[0].failed, std::vector<bool>({true, true}));
}

// Counts extraction calls; returns one 64-D row per image, valued by the call's order.
class CountingExtractor final : public FeatureExtractor {
 public:
  DescriptorType descriptorType() const override { return DescriptorType("surf", 64); }
  int descriptorSize() const override { return 64; }
  ImageFeatures extractFeatures(const cv::Mat&) const override {
    const int n = ++calls;
    return {cv::Mat(1, 64, CV_32F, cv::Scalar(static_cast<float>(n))), {cv::KeyPoint(1.0f, 2.0f, 10.0f)}};
  }
  mutable std::atomic<int> calls{0};
};

TEST(ExtractInBatches, WorkersExtractAheadWhileTheConsumerRunsButAtMostTwoBatches) {
  // The device pass (the consumer) overlaps with extraction of the next images, and memory stays
  // bounded: while batch b is consumed, at most batches b+1 and b+2 are extracted.
  const std::vector<std::string> paths(12, imageSet().box);
  CountingExtractor extractor;
  PipelineOptions options;
  options.batch_images = 2;
  options.workers = 2;
  int batches = 0;
  extractInBatches(paths, extractor, options, [&](const ExtractedBatch& b) {
    ++batches;
    if (b.first == 0) {
      // A slow device pass: the next batch gets extracted meanwhile (waits up to 10 s for it).
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (extractor.calls.load() < 2 * options.batch_images && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      EXPECT_GE(extractor.calls.load(), 2 * options.batch_images)
          << "no image of the next batch was extracted while the first batch was consumed";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // time to overrun the window, if it could
    EXPECT_LE(extractor.calls.load(), static_cast<int>(b.first) + 3 * options.batch_images)
        << "extracted more than two batches ahead of batch " << b.first;
  });
  EXPECT_EQ(batches, 6);
  EXPECT_EQ(extractor.calls.load(), 12);
}

TEST(ExtractInBatches, ProgressCountsEveryImageFromTheCallingThread) {
  const auto paths = imageSet().mixed();
  const auto caller = std::this_thread::get_id();
  std::vector<PipelineProgress> reports;
  bool other_thread = false;
  PipelineOptions options;
  options.batch_images = 2;
  options.progress = [&](const PipelineProgress& p) {
    other_thread |= std::this_thread::get_id() != caller;
    reports.push_back(p);
  };
  extractInBatches(paths, surf(), options, [](const ExtractedBatch&) {});
  EXPECT_FALSE(other_thread);
  ASSERT_FALSE(reports.empty());
  for (std::size_t i = 1; i < reports.size(); ++i) EXPECT_LE(reports[i - 1].done, reports[i].done);
  EXPECT_EQ(reports.back().done, paths.size());
  EXPECT_EQ(reports.back().total, paths.size());
  EXPECT_EQ(reports.back().failed, 3u);
}

// ---------------------------------------------------------------------------------------------
// histogramImages

// K words picked among the good images' descriptors (so every image hits several words).
Vocabulary pickedVocabulary(int k) {
  std::vector<cv::Mat> all;
  for (const auto& path : imageSet().good()) all.push_back(reference(path).descriptors);
  cv::Mat stacked;
  cv::vconcat(all, stacked);
  Descriptors words(k, 64);
  for (int w = 0; w < k; ++w) {
    const int row = static_cast<int>(static_cast<std::int64_t>(w) * stacked.rows / k);
    for (int c = 0; c < 64; ++c) words(w, c) = stacked.at<float>(row, c);
  }
  return Vocabulary(words, DescriptorType("surf", 64));
}

Histograms serialHistogram(const cv::Mat& descriptors, const Vocabulary& vocabulary) {
  if (descriptors.rows == 0) return Histograms::Zero(1, vocabulary.size());
  HistogrammerConfig config;
  config.backend = Backend::Serial;
  const Descriptors d = toDescriptors(descriptors);
  return makeHistogrammer(config)->compute(DescriptorBatch::singleImage(d), vocabulary);
}

class HistogramImages : public testing::TestWithParam<Backend> {
 protected:
  std::unique_ptr<Histogrammer> histogrammer() {
    HistogrammerConfig config;
    config.backend = GetParam();
    config.variant = KernelVariant::Baseline;
    return makeHistogrammer(config);
  }
  void SetUp() override {
    if (GetParam() == Backend::OpenCL) BOVW_REQUIRE_OPENCL();
  }
};

TEST_P(HistogramImages, RowsEqualPerImageHistogramsAndBadFilesAreSkipped) {
  const ImageSet& s = imageSet();
  const Vocabulary vocabulary = pickedVocabulary(24);
  auto h = histogrammer();
  // The flat image has no features: a valid, all-zero histogram, alone in its batch of one too.
  std::vector<std::string> paths = s.mixed();
  paths.insert(paths.begin() + 3, s.flat);
  std::vector<std::string> expected_names;
  for (const auto& p : paths)
    if (!isBad(p)) expected_names.push_back(p);
  for (int batch : {1, 3, 256}) {
    SCOPED_TRACE("batch_images = " + std::to_string(batch));
    PipelineOptions options;
    options.batch_images = batch;
    const ImageHistograms result = histogramImages(paths, surf(), vocabulary, *h, options);
    EXPECT_EQ(result.names, expected_names);
    ASSERT_EQ(result.histograms.rows(), static_cast<Eigen::Index>(expected_names.size()));
    ASSERT_EQ(result.histograms.cols(), vocabulary.size());
    ASSERT_EQ(result.descriptor_counts.size(), expected_names.size());
    for (std::size_t i = 0; i < expected_names.size(); ++i) {
      SCOPED_TRACE(expected_names[i]);
      const cv::Mat& d = reference(expected_names[i]).descriptors;
      EXPECT_EQ(result.descriptor_counts[i], d.rows);
      EXPECT_TRUE(histogramsEqual(serialHistogram(d, vocabulary), result.histograms.row(static_cast<Eigen::Index>(i))));
      const std::int32_t sum = result.histograms.row(static_cast<Eigen::Index>(i)).sum();
      if (expected_names[i] == s.flat) {
        EXPECT_EQ(sum, 0);
      } else {
        EXPECT_GT(sum, 0);
      }
    }
    ASSERT_EQ(result.failures.size(), 3u);
    EXPECT_EQ(result.failures[0].path, s.truncated);
    EXPECT_EQ(result.failures[1].path, s.text_as_png);
    EXPECT_EQ(result.failures[2].path, s.missing);
  }
}

TEST_P(HistogramImages, OnlyImagesWithoutFeaturesGiveZeroRows) {
  const ImageSet& s = imageSet();
  const Vocabulary vocabulary = pickedVocabulary(8);
  auto h = histogrammer();
  const ImageHistograms result = histogramImages({s.flat, s.flat}, surf(), vocabulary, *h);
  EXPECT_TRUE(result.failures.empty());
  ASSERT_EQ(result.histograms.rows(), 2);
  EXPECT_TRUE(histogramsEqual(Histograms::Zero(2, 8), result.histograms));
}

INSTANTIATE_TEST_SUITE_P(Backends, HistogramImages, testing::Values(Backend::Serial, Backend::OpenMP, Backend::OpenCL),
                         [](const testing::TestParamInfo<Backend>& info) { return std::string(toString(info.param)); });

TEST(HistogramImagesInput, AVocabularyOfTheWrongWidthOrTypeIsRefused) {
  const ImageSet& s = imageSet();
  auto h = makeHistogrammer();
  BOVW_SEEDED_RNG(rng);
  const Vocabulary wide(randomMatrix(rng, 10, 128), DescriptorType::parse("surf128"));
  EXPECT_THROW(histogramImages(s.good(), surf(), wide, *h), InvalidInput);
  const Vocabulary wide_untyped(randomMatrix(rng, 10, 128), DescriptorType::unspecified());
  EXPECT_THROW(histogramImages(s.good(), surf(), wide_untyped, *h), InvalidInput);
  // Same width, another descriptor: SURF-128 descriptors against a SIFT vocabulary.
  const auto surf128 = makeFeatureExtractor(FeatureSpec::parse("surf extended=true"), builtinSurf());
  const Vocabulary sift(randomMatrix(rng, 10, 128), DescriptorType::parse("sift128"));
  try {
    histogramImages(s.good(), *surf128, sift, *h);
    ADD_FAILURE() << "a sift128 vocabulary accepted surf128 descriptors";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "sift128") && contains(e.what(), "surf128")) << e.what();
  }
  // A vocabulary that records no type (.npy) is accepted at the right width.
  const Vocabulary untyped(randomMatrix(rng, 10, 64), DescriptorType::unspecified());
  EXPECT_NO_THROW(histogramImages({s.box}, surf(), untyped, *h));
}

// ---------------------------------------------------------------------------------------------
// sampleDescriptors

std::set<std::vector<float>> rowSet(const std::vector<std::string>& paths) {
  std::set<std::vector<float>> rows;
  for (const auto& p : paths) {
    const cv::Mat& d = reference(p).descriptors;
    for (int r = 0; r < d.rows; ++r) rows.insert(std::vector<float>(d.ptr<float>(r), d.ptr<float>(r) + d.cols));
  }
  return rows;
}

std::int64_t totalDescriptors(const std::vector<std::string>& paths) {
  std::int64_t total = 0;
  for (const auto& p : paths) total += reference(p).failed ? 0 : reference(p).descriptors.rows;
  return total;
}

TEST(SampleDescriptors, AtMostMRowsEachOneOfTheImagesDescriptorsReproducibleBySeed) {
  BOVW_SEEDED_RNG(rng);
  const ImageSet& s = imageSet();
  const auto paths = s.mixed();
  const std::int64_t total = totalDescriptors(paths);
  ASSERT_GT(total, 400) << "the fixture images should give hundreds of descriptors";
  const std::int64_t m = 200;
  const unsigned long long seed = rng();
  PipelineOptions options;
  options.batch_images = 3;
  const DescriptorSample a = sampleDescriptors(paths, surf(), m, seed, options);
  EXPECT_EQ(a.descriptors.rows(), m);
  EXPECT_EQ(a.descriptors.cols(), 64);
  EXPECT_EQ(a.seen, total);
  EXPECT_EQ(a.failures.size(), 3u);

  const auto all = rowSet(paths);
  std::set<std::vector<float>> distinct;
  for (Eigen::Index r = 0; r < a.descriptors.rows(); ++r) {
    std::vector<float> row(a.descriptors.row(r).data(), a.descriptors.row(r).data() + a.descriptors.cols());
    EXPECT_TRUE(all.count(row)) << "sampled row " << r << " is no image's descriptor";
    distinct.insert(row);
  }
  EXPECT_GT(distinct.size(), static_cast<std::size_t>(m * 9 / 10)) << "a sample without replacement repeats few rows";

  // Same seed: the same sample, whatever the worker count or batch size (each descriptor's key
  // depends on its image and row only).
  PipelineOptions other;
  other.batch_images = 1;
  other.workers = 1;
  const DescriptorSample b = sampleDescriptors(paths, surf(), m, seed, other);
  EXPECT_TRUE(sameMatrix(a.descriptors, b.descriptors));
  // Another seed: another sample.
  const DescriptorSample c = sampleDescriptors(paths, surf(), m, seed + 1, options);
  EXPECT_FALSE(sameMatrix(a.descriptors, c.descriptors));
}

// Ranks that each extract a contiguous part of the list draw, together, the single-process sample:
// their rows in rank order equal it row for row, for several splits (a rank with no image, a rank
// with only a failing image), and each rank reports only its own failures.
TEST(SampleDescriptors, RanksTogetherDrawTheSingleProcessSample) {
  BOVW_SEEDED_RNG(rng);
  const auto paths = imageSet().mixed();
  const unsigned long long seed = rng();
  const std::int64_t m = 150;
  const DescriptorSample alone = sampleDescriptors(paths, surf(), m, seed);
  const std::size_t n = paths.size();
  for (const std::vector<std::size_t>& cuts : std::vector<std::vector<std::size_t>>{
           {0, n / 2, n}, {0, 1, 1, n - 2, n}, {0, 2, 5, 7, n}}) {
    const int ranks = static_cast<int>(cuts.size()) - 1;
    std::vector<DescriptorSample> parts(static_cast<std::size_t>(ranks));
    bovw::test::runOnRanks(ranks, [&](Communicator& group) {
      const std::size_t first = cuts[static_cast<std::size_t>(group.rank())];
      const std::size_t last = cuts[static_cast<std::size_t>(group.rank()) + 1];
      const std::vector<std::string> mine(paths.begin() + static_cast<std::ptrdiff_t>(first),
                                          paths.begin() + static_cast<std::ptrdiff_t>(last));
      parts[static_cast<std::size_t>(group.rank())] =
          sampleDescriptors(mine, static_cast<std::int64_t>(first), surf(), m, seed, PipelineOptions{}, group);
    });
    Descriptors joined(0, alone.descriptors.cols());
    std::size_t failures = 0;
    for (const DescriptorSample& part : parts) {
      EXPECT_EQ(part.seen, alone.seen);
      const Eigen::Index before = joined.rows();
      joined.conservativeResize(before + part.descriptors.rows(), Eigen::NoChange);
      joined.bottomRows(part.descriptors.rows()) = part.descriptors;
      failures += part.failures.size();
    }
    EXPECT_EQ(failures, alone.failures.size());
    EXPECT_TRUE(sameMatrix(joined, alone.descriptors)) << ranks << " ranks";
  }
}

TEST(SampleDescriptors, EveryImageContributesToAUniformSample) {
  BOVW_SEEDED_RNG(rng);
  const auto paths = imageSet().good();
  const std::int64_t total = totalDescriptors(paths);
  const DescriptorSample sample = sampleDescriptors(paths, surf(), 300, rng());
  // Row -> image; an image holding >= 10% of the descriptors is missed by a uniform sample of 300
  // with probability <= 0.9^300 ~ 2e-14.
  std::map<std::vector<float>, std::size_t> owner;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const cv::Mat& d = reference(paths[i]).descriptors;
    for (int r = 0; r < d.rows; ++r) owner[std::vector<float>(d.ptr<float>(r), d.ptr<float>(r) + d.cols)] = i;
  }
  std::vector<int> hits(paths.size(), 0);
  for (Eigen::Index r = 0; r < sample.descriptors.rows(); ++r) {
    auto it = owner.find(std::vector<float>(sample.descriptors.row(r).data(),
                                            sample.descriptors.row(r).data() + sample.descriptors.cols()));
    ASSERT_NE(it, owner.end());
    ++hits[it->second];
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (reference(paths[i]).descriptors.rows * 10 < total) continue;
    EXPECT_GT(hits[i], 0) << paths[i] << " holds " << reference(paths[i]).descriptors.rows << " of " << total
                          << " descriptors but none was sampled";
  }
}

TEST(SampleDescriptors, MoreThanAvailableGivesEveryDescriptorInOrder) {
  const ImageSet& s = imageSet();
  const auto paths = s.mixed();
  const std::int64_t total = totalDescriptors(paths);
  const DescriptorSample sample = sampleDescriptors(paths, surf(), total + 1000, 7);
  EXPECT_EQ(sample.seen, total);
  ASSERT_EQ(sample.descriptors.rows(), total);
  std::int64_t row = 0;
  for (const auto& p : paths) {
    if (isBad(p)) continue;
    const cv::Mat& d = reference(p).descriptors;
    EXPECT_TRUE(rowsEqual(sample.descriptors, row, row + d.rows, d)) << p;
    row += d.rows;
  }
  // Exactly as many as available: the same.
  const DescriptorSample exact = sampleDescriptors(paths, surf(), total, 99);
  EXPECT_TRUE(sameMatrix(exact.descriptors, sample.descriptors));
}

TEST(SampleDescriptors, OnlyFeaturelessOrBadImagesGiveAnEmptySample) {
  const ImageSet& s = imageSet();
  const DescriptorSample sample = sampleDescriptors({s.flat, s.truncated}, surf(), 100, 1);
  EXPECT_EQ(sample.descriptors.rows(), 0);
  EXPECT_EQ(sample.seen, 0);
  ASSERT_EQ(sample.failures.size(), 1u);
  EXPECT_EQ(sample.failures[0].path, s.truncated);
}

// ---------------------------------------------------------------------------------------------
// listImages

TEST(ListImages, SortedImageFilesOnly) {
  TempDir dir;
  for (const char* name : {"c.jpg", "a.png", "B.PNG", "d.TIFF", "e.jpeg", "notes.txt", "README", "archive.png.zip",
                           "f.webp"})
    writeText(dir.file(name), "x");
  std::filesystem::create_directory(dir.file("sub.png"));  // a folder named like an image
  writeText(dir.file("sub.png") + "/inner.png", "x");      // not recursive
  const auto images = listImages(dir.path());
  std::vector<std::string> expected;
  for (const char* name : {"B.PNG", "a.png", "c.jpg", "d.TIFF", "e.jpeg", "f.webp"})
    expected.push_back(dir.file(name));
  EXPECT_EQ(images, expected);
}

TEST(ListImages, EmptyFolderGivesNoImages) {
  TempDir dir;
  EXPECT_TRUE(listImages(dir.path()).empty());
}

TEST(ListImages, ANonDirectoryIsAnIoError) {
  TempDir dir;
  writeText(dir.file("file.png"), "x");
  for (const std::string& path : {dir.file("file.png"), dir.file("missing")}) {
    try {
      listImages(path);
      ADD_FAILURE() << path << " was listed";
    } catch (const IoError& e) {
      EXPECT_TRUE(contains(e.what(), path)) << e.what();
    }
  }
}

// SURF's auto beside the histograms' backend: a CPU backend named by the caller keeps SURF on the
// CPU (OpenCV's where built, else bovw's); auto and OpenCL histograms leave SURF's own auto to decide,
// and a SURF backend the caller named is kept whatever the histograms do.
TEST(ExtractorBeside, SurfAutoStaysOnTheCpuBesideANamedCpuBackend) {
  const SurfBackend cpu = openCvSurfAvailable() ? SurfBackend::OpenCV : SurfBackend::Builtin;
  ExtractorOptions automatic;
  automatic.surf_device = "gpu";
  automatic.max_pixels = 12345;
  HistogrammerConfig histograms;
  for (Backend backend : {Backend::Serial, Backend::OpenMP, Backend::OpenMPTiled, Backend::OpenMPApproximate}) {
    histograms.backend = backend;
    const ExtractorOptions chosen = extractorBeside(automatic, histograms);
    EXPECT_EQ(chosen.surf_backend, cpu) << toString(backend);
    EXPECT_EQ(chosen.surf_device, "gpu");
    EXPECT_EQ(chosen.max_pixels, 12345);
  }
  for (Backend backend : {Backend::Auto, Backend::OpenCL}) {
    histograms.backend = backend;
    EXPECT_EQ(extractorBeside(automatic, histograms).surf_backend, SurfBackend::Auto) << toString(backend);
  }
  ExtractorOptions named = automatic;
  for (SurfBackend surf : {SurfBackend::OpenCL, SurfBackend::Builtin}) {
    named.surf_backend = surf;
    for (Backend backend : {Backend::OpenMP, Backend::OpenCL, Backend::Auto}) {
      histograms.backend = backend;
      EXPECT_EQ(extractorBeside(named, histograms).surf_backend, surf) << toString(backend);
    }
  }
}

}  // namespace
}  // namespace bovw::test
