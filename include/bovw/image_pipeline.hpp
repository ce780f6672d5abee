// From folders of images to descriptors and histograms. Images are decoded and their features
// extracted in parallel on the CPU cores, in order; histograms are computed in batches of many
// images per device pass while the workers already extract the next batch, so the device never
// waits for one image at a time. Bad files are reported and skipped; the good ones finish.
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/descriptors.hpp>
#include <bovw/feature_extractor.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_words.hpp>
#include <bovw/surf.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bovw {

// The image files of a folder (by extension, see hasImageExtension), sorted by name; not recursive.
// Throws IoError if `directory` is not a readable directory.
std::vector<std::string> listImages(const std::string& directory);

struct ImageFailure {
  std::string path;
  std::string message;
};

struct PipelineProgress {
  std::size_t done = 0;    // images finished (extracted, and histogrammed where that applies)
  std::size_t failed = 0;  // of which failed
  std::size_t total = 0;
  double seconds = 0;      // since the start
};

// Where the time of a pipeline call went (PipelineOptions::profile), for benchmarks and tuning.
struct PipelineProfile {
  double wall_s = 0;          // the whole call
  int workers = 0;
  double decode_s = 0;        // the workers' reading and decoding, summed over workers
  double work_s = 0;          // the workers' feature extraction (or gray conversion), summed
  double waiting_s = 0;       // the calling thread waiting for the workers' images
  // The fused device route: what it did before its workers started (making the pinned staging and
  // its queues), its batches, and the device's time per stage summed over them (device timestamps;
  // upload and integral images in surf.prepare_ms).
  double setup_s = 0;
  std::int64_t device_batches = 0;
  SurfStageTimes surf;
  double histogram_ms = 0;
  // The device's timeline: from the first batch's first upload to the last batch's last read-back
  // (device timestamps, ns); what the stages do not fill is idle time or the commands between them.
  std::uint64_t device_first_ns = 0, device_last_ns = 0;
  // The calling thread on that route (host clock): enqueueing batches (their upload and the wait for
  // each batch's keypoint count included), waiting for finished batches, and collecting their results.
  double enqueue_s = 0, count_wait_s = 0, finish_wait_s = 0, collect_s = 0;  // count_wait_s: part of enqueue_s
};

struct PipelineOptions {
  int workers = 0;                      // extraction threads; 0: all cores
  int batch_images = 256;               // images per histogram pass
  bool strict = false;                  // stop at the first bad image (its error is thrown)
  bool keep_words = false;              // histogramImages: also each image's words and keypoints
  std::int64_t max_pixels = 100'000'000;
  // histogramImages with SURF on the OpenCL backend and an OpenCL histogrammer on the same device:
  // SURF and the histogram search run there in batches of many images, and the descriptors never
  // leave the device; extractInBatches, extractImageFeatures and sampleDescriptors with SURF on the
  // OpenCL backend: SURF runs in such device batches. Either way the images are decoded straight into
  // pinned staging memory. The same results; false: extract image by image on the workers.
  bool fused_device = true;
  // Pixels per device batch on that path (an image more alone), fewer where the device's memory is
  // small (the batch's scale space within its largest allocation and an eighth of its memory).
  std::int64_t device_batch_pixels = 32'000'000;
  std::function<void(const PipelineProgress&)> progress;  // called from the calling thread
  PipelineProfile* profile = nullptr;                      // filled (added to) when given
};

// Consecutive images' descriptors, stacked: image first + i owns rows [offsets[i], offsets[i+1]).
// A failed image owns no rows and has failed[i] set (its failure is in the returned list).
struct ExtractedBatch {
  std::size_t first = 0;
  Descriptors descriptors;
  std::vector<cv::Point2f> points;     // the keypoint of each descriptor row
  std::vector<float> sizes, angles;    // its cv::KeyPoint::size and angle
  std::vector<std::int64_t> offsets;
  std::vector<cv::Size> image_sizes;   // per image (0 x 0 for a failed one)
  std::vector<bool> failed;
};

// Extracts every image's descriptors and calls `consume` in image order for consecutive batches of
// up to `batch_images` images. While `consume` runs, the workers already extract the next images
// (at most two batches ahead, which bounds memory). Returns the failures, in image order.
using BatchConsumer = std::function<void(const ExtractedBatch&)>;
std::vector<ImageFailure> extractInBatches(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                           const PipelineOptions& options, const BatchConsumer& consume);

// Every image's keypoints and descriptors, as extractor.extractFeatures gives them: `consume(index,
// features)` for each image that succeeded (index into `paths`), in image order, on the calling
// thread, while the workers decode ahead as for extractInBatches (which this is underneath). With
// SURF on the OpenCL backend (and options.fused_device) the images run through SURF in device
// batches of many images, uploaded from pinned memory: the same features. Returns the failures, in
// image order; with options.strict throws the first as InvalidInput.
using FeatureConsumer = std::function<void(std::size_t index, ImageFeatures& features)>;
std::vector<ImageFailure> extractImageFeatures(const std::vector<std::string>& paths,
                                               const FeatureExtractor& extractor, const PipelineOptions& options,
                                               const FeatureConsumer& consume);

struct ImageHistograms {
  std::vector<std::string> names;     // the images that succeeded, in input order
  Histograms histograms;              // one row per name
  std::vector<std::int64_t> descriptor_counts;
  std::vector<ImageWords> words;      // one per name with PipelineOptions::keep_words, else empty
  std::vector<ImageFailure> failures;
};

// Histograms of every image (the vocabulary must match the extractor's descriptor type and width).
ImageHistograms histogramImages(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                const Vocabulary& vocabulary, Histogrammer& histogrammer,
                                const PipelineOptions& options = {});

// histogramImages batch by batch, for results written or sent while the next images are computed
// (`bovw histogram` streams them into its output file; a rank of a distributed index sends them to
// rank 0): the images of consecutive batches that succeeded (names, histograms, descriptor counts
// and, with keep_words, words; their `failures` empty) handed to `consume` on the calling thread in
// input order. Together the batches are histogramImages' images. Returns the failures, in input
// order; with options.strict throws the first as InvalidInput.
using HistogramConsumer = std::function<void(ImageHistograms&& batch)>;
std::vector<ImageFailure> histogramImagesInBatches(const std::vector<std::string>& paths,
                                                   const FeatureExtractor& extractor, const Vocabulary& vocabulary,
                                                   Histogrammer& histogrammer, const PipelineOptions& options,
                                                   const HistogramConsumer& consume);

// The extractor options for images whose histograms `histograms` makes: `extractor`, except that
// SurfBackend::Auto stays on the CPU (cpuSurfBackend) beside a CPU backend named in `histograms`
// (not Auto, not OpenCL): there is nothing to fuse on a device, and no OpenCL platform is loaded for
// SURF alone (PoCL with its LLVM: about 40 ms of a one-shot search on the 2-core machine).
ExtractorOptions extractorBeside(ExtractorOptions extractor, const HistogrammerConfig& histograms);

struct DescriptorSample {
  Descriptors descriptors;            // at most max_descriptors rows, a uniform sample, in image order
  std::int64_t seen = 0;              // descriptors extracted in all (on all ranks)
  std::vector<ImageFailure> failures;
};

// A uniform random sample without replacement of the images' descriptors, for vocabulary training:
// the max_descriptors descriptors with the smallest keys, a seeded hash of each descriptor's image
// number and row. So the sample depends on the seed and the images only, not on the worker count,
// the batch size or, below, the number of ranks.
DescriptorSample sampleDescriptors(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                   std::int64_t max_descriptors, unsigned long long seed,
                                   const PipelineOptions& options = {});

// The same sample drawn by ranks that each extract a contiguous part of one image list: this rank's
// `paths` are the list's images first_image, first_image + 1, ... and the ranks' parts, in rank
// order, make up the list. Each rank returns its own rows of the sample (in image order), so the
// ranks' rows in rank order are the single-process sample of the whole list exactly; `failures` are
// this rank's. Collective (64 allreduces of one integer to agree on the sample's largest key).
// Throws CapacityError for an image with 2^24 descriptors or more.
DescriptorSample sampleDescriptors(const std::vector<std::string>& paths, std::int64_t first_image,
                                   const FeatureExtractor& extractor, std::int64_t max_descriptors,
                                   unsigned long long seed, const PipelineOptions& options, Communicator& ranks);

// The sample of a folder's image files drawn by the ranks of a job (bovw train, bovw-mpi train):
// rank 0 lists the folder (listImages), each rank extracts a contiguous part of about equal bytes.
struct FolderSample {
  DescriptorSample sample;   // this rank's rows and failures, as sampleDescriptors over ranks
  std::int64_t images = 0;   // image files in the folder
  std::int64_t failed = 0;   // of which could not be read, on all ranks
};
// Collective. Throws InvalidInput on every rank if the folder cannot be listed or holds no image
// files.
FolderSample sampleFolder(Communicator& ranks, const std::string& folder, const FeatureExtractor& extractor,
                          std::int64_t max_descriptors, unsigned long long seed, const PipelineOptions& options = {});

}  // namespace bovw
