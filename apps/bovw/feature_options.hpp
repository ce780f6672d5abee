// Options of every subcommand that reads images: which features, SURF's parameters, the
// extraction pipeline (workers, batch size, pixel limit, --strict) and progress output.
#pragma once

#include "progress_bar.hpp"

#include <bovw/feature_extractor.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <functional>
#include <string>
#include <vector>

namespace bovw::cli {

// --surf-backend, for every command that extracts (their --backend is the histogram backend).
void addSurfBackendOption(CLI::App* command, std::string& backend);

// Which options FeatureOptions::addTo declares: the commands that run the extraction pipeline take
// them all; `extract`, which writes each image's features as it goes, only those that choose the
// features and limit the images (no workers, batches, progress bar or profile).
enum class FeatureOptionSet { Pipeline, PerImage };

struct FeatureOptions {
  std::string features = "surf";
  std::vector<std::string> parameters;  // --feature-param NAME=VALUE, for any kind
  std::string surf_backend = "auto";
  std::string surf_device;  // the OpenCL SURF's device: "" for $BOVW_DEVICE, else the first GPU (rank_device.hpp)
  SurfParams surf;
  std::vector<CLI::Option*> surf_options;  // --hessian ... --upright: SURF's own, refused with other kinds
  int workers = 0;
  int threads = 0;  // the command's --threads (useThreads); 0: all cores
  int batch_images = 256;
  std::int64_t device_batch_pixels = PipelineOptions().device_batch_pixels;  // 0: no fused device route
  bool strict = false;
  bool quiet = false;
  bool profile = false;                       // --profile: printProfile() reports `measured`
  mutable PipelineProfile measured;           // filled by pipelines run with pipeline()'s options

  void addTo(CLI::App* command, FeatureOptionSet set = FeatureOptionSet::Pipeline);
  void addPipelineOptions(CLI::App* command);  // --workers, --batch, --device-batch-pixels, --profile, --quiet
  // The features chosen: --features with SURF's options or --feature-param, normalised (every
  // parameter present). Throws InvalidInput for an unknown parameter or a value out of range.
  FeatureSpec spec() const;
  ExtractorOptions extractorOptions() const;  // --surf-backend, the SURF device, --max-pixels
  std::unique_ptr<FeatureExtractor> extractor() const;
  // Pipeline options reporting to `bar` (which must outlive the run); `--workers` 0 follows the
  // command's thread count (useThreads), itself 0 for all cores.
  PipelineOptions pipeline(ProgressBar& bar) const;
  // With --profile, one line on stderr: where the pipelines' time went (decode, extraction, device stages).
  void printProfile() const;
  // The command's --threads: applied to OpenCV and OpenMP (applyThreadCount) and the default for --workers.
  void useThreads(int count);

  // The histograms of `images`, the image files of `directory` (listFolderImages), by `extractor`,
  // handed to `consume` batch by batch in order (histogramImagesInBatches), with a progress bar
  // labelled `label`; bad images are reported and skipped. Returns how many images succeeded; throws
  // InvalidInput naming the folder if none could be read.
  std::size_t histogramFolder(const std::string& directory, const std::vector<std::string>& images,
                              const FeatureExtractor& extractor, const Vocabulary& vocabulary,
                              Histogrammer& histogrammer, const char* label, const HistogramConsumer& consume) const;
};

// The image files of a folder (listImages). Throws InvalidInput if it holds none.
std::vector<std::string> listFolderImages(const std::string& directory);

// One line per registered feature kind, with its --feature-param defaults: --features' help text.
std::string featureKindsHelp();

// Sets OpenCV's thread count (cv::setNumThreads: the SURF stages run in cv::parallel_for_, whose TBB
// backend in Debian's build ignores OPENCV_FOR_THREADS_NUM) and OpenMP's (omp_set_num_threads) to
// `threads`; 0 leaves both at their defaults (all cores).
void applyThreadCount(int threads);

// One warning line per failed image, then a summary; returns the number of failures.
std::size_t reportFailures(const std::vector<ImageFailure>& failures, std::size_t total);

}  // namespace bovw::cli
