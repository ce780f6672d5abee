// Shared image/feature options of the bovw subcommands.
#include "feature_options.hpp"

#include "histogrammer_options.hpp"
#include "number_checks.hpp"

#include <bovw/error.hpp>

#include <omp.h>
#include <cstdio>
#include <opencv2/core/utility.hpp>
#include <spdlog/spdlog.h>

namespace bovw::cli {

void addSurfBackendOption(CLI::App* command, std::string& backend) {
  command
      ->add_option("--surf-backend", backend,
                   "builtin: bovw's SURF on the CPU; opencv: OpenCV's xfeatures2d SURF (only in builds that "
                   "have it); opencl: every SURF stage on the OpenCL device ($BOVW_DEVICE, else the first GPU); "
                   "auto: opencl on a GPU, else opencv where available, else builtin")
      ->check(CLI::IsMember({"auto", "builtin", "opencv", "opencl"}))
      ->capture_default_str();
}

void FeatureOptions::addTo(CLI::App* command, FeatureOptionSet set) {
  command->add_option("--features", features, "features to extract:" + featureKindsHelp())
      ->check(CLI::IsMember(featureKindNames()))
      ->capture_default_str();
  command->add_option("--feature-param", parameters,
                      "NAME=VALUE, a parameter of the features (repeat for several), e.g. nfeatures=1000 for orb")
      ->type_name("NAME=VALUE");
  surf_options = {
      command->add_option("--hessian", surf.hessian_threshold, "SURF Hessian threshold")->capture_default_str(),
      command->add_option("--octaves", surf.octaves, "SURF octaves")->capture_default_str(),
      command->add_option("--layers", surf.octave_layers, "SURF layers per octave")->capture_default_str(),
      command->add_flag("--extended", surf.extended, "SURF 128-D descriptors"),
      command->add_flag("--upright", surf.upright, "SURF without orientation")};
  addSurfBackendOption(command, surf_backend);
  command->add_option("--max-pixels", surf.max_pixels, "refuse images with more pixels")
      ->check(kPositive)
      ->capture_default_str();
  command->add_flag("--strict", strict, "stop at the first unreadable image");
  if (set == FeatureOptionSet::Pipeline) addPipelineOptions(command);
  // Out-of-range or misplaced feature settings are usage errors (exit 2), reported before any file is read.
  command->parse_complete_callback([this] {
    for (const CLI::Option* option : surf_options)
      if (features != "surf" && option->count() > 0)
        throw CLI::ValidationError(option->get_name() + " is a SURF option; with --features " + features +
                                   " use --feature-param NAME=VALUE");
    try {
      validateSurfParams(surf);
      spec();
    } catch (const InvalidInput& e) {
      throw CLI::ValidationError(e.what());
    }
  });
}

void FeatureOptions::addPipelineOptions(CLI::App* command) {
  command->add_option("--workers", workers, "images extracted at once (0: as many as --threads, itself 0 for all cores)")
      ->check(kNonNegative)
      ->capture_default_str()
      ->group(kAdvancedGroup);
  command->add_option("--batch", batch_images, "images per histogram pass on the device")
      ->check(kPositive)
      ->capture_default_str()
      ->group(kAdvancedGroup);
  command->add_option("--device-batch-pixels", device_batch_pixels,
                      "with SURF and histograms on one OpenCL device (--surf-backend opencl, --backend opencl): "
                      "pixels per device batch (fewer where the device's memory is small), whose descriptors go "
                      "straight to the histogram kernel; 0: extract image by image, then histogram")
      ->check(kNonNegative)
      ->capture_default_str()
      ->group(kAdvancedGroup);
  command->add_flag("--profile", profile,
                    "after the run, print where the time went: decoding and extraction on the workers, and on "
                    "the fused device route each SURF stage and the histogram search on the device");
  command->add_flag("--quiet", quiet, "no progress bar");
}

FeatureSpec FeatureOptions::spec() const {
  FeatureSpec chosen = features == "surf" ? surfFeatureSpec(surf) : FeatureSpec(features);
  for (const std::string& parameter : parameters) {
    const auto equals = parameter.find('=');
    if (equals == std::string::npos)
      throw InvalidInput("--feature-param '" + parameter + "': expected NAME=VALUE");
    chosen.set(parameter.substr(0, equals), parameter.substr(equals + 1));
  }
  return normalizeFeatureSpec(chosen);
}

ExtractorOptions FeatureOptions::extractorOptions() const {
  ExtractorOptions options;
  options.surf_backend = parseSurfBackend(surf_backend);
  options.surf_device = surf_device;
  options.max_pixels = surf.max_pixels;
  return options;
}

std::unique_ptr<FeatureExtractor> FeatureOptions::extractor() const {
  return makeFeatureExtractor(spec(), extractorOptions());
}

std::string featureKindsHelp() {
  std::string text;
  for (const std::string& name : featureKindNames()) {
    const FeatureKind kind = featureKind(name);
    text += "\n  " + name + ": " + kind.description;
    if (name == "surf") continue;  // SURF's parameters have options of their own
    std::string parameters;
    for (const FeatureParameter& p : kind.parameters)
      parameters += (parameters.empty() ? "" : ", ") + p.name + "=" + p.default_value;
    text += "\n    --feature-param " + parameters;
  }
  return text;
}

PipelineOptions FeatureOptions::pipeline(ProgressBar& bar) const {
  PipelineOptions options;
  options.workers = workers > 0 ? workers : threads;
  options.batch_images = batch_images;
  options.fused_device = device_batch_pixels > 0;
  if (options.fused_device) options.device_batch_pixels = device_batch_pixels;
  options.strict = strict;
  options.max_pixels = surf.max_pixels;
  options.progress = [&bar](const PipelineProgress& p) { bar.update(p); };
  if (profile) options.profile = &measured;
  return options;
}

void FeatureOptions::printProfile() const {
  if (!profile) return;
  const PipelineProfile& p = measured;
  std::fprintf(stderr,
               "profile: %.3f s wall; %d workers: decode %.3f s, extraction %.3f s (summed over workers; busy "
               "%.0f%%); waiting for the workers %.3f s\n",
               p.wall_s, p.workers, p.decode_s, p.work_s,
               p.wall_s > 0 && p.workers > 0 ? 100 * (p.decode_s + p.work_s) / (p.wall_s * p.workers) : 0.0,
               p.waiting_s);
  if (p.device_batches == 0) return;
  const SurfStageTimes& t = p.surf;
  const double device_ms = t.prepare_ms + t.hessian_ms + t.extrema_ms + t.orientation_ms + t.descriptor_ms +
                           p.histogram_ms;
  std::fprintf(stderr,
               "profile: fused device route, %.3f s before the workers started (staging, queues), %lld batches, "
               "device %.3f s (%.0f%% of wall): upload + integral %.3f, hessian %.3f, extrema %.3f, orientation "
               "%.3f, descriptor %.3f, histogram %.3f s\n",
               p.setup_s, static_cast<long long>(p.device_batches), device_ms / 1e3,
               p.wall_s > 0 ? device_ms / 10 / p.wall_s : 0.0, t.prepare_ms / 1e3, t.hessian_ms / 1e3,
               t.extrema_ms / 1e3, t.orientation_ms / 1e3, t.descriptor_ms / 1e3, p.histogram_ms / 1e3);
  std::fprintf(stderr,
               "profile: the device thread: enqueueing %.3f s (of which waiting for keypoint counts %.3f s), "
               "waiting for finished batches %.3f s, collecting results %.3f s\n",
               p.enqueue_s, p.count_wait_s, p.finish_wait_s, p.collect_s);
  if (p.device_last_ns > p.device_first_ns) {
    const double timeline_s = static_cast<double>(p.device_last_ns - p.device_first_ns) * 1e-9;
    std::fprintf(stderr,
                 "profile: the device's timeline (first upload to last read-back) %.3f s, %.0f%% of wall; the "
                 "stages fill %.0f%% of it\n",
                 timeline_s, p.wall_s > 0 ? 100 * timeline_s / p.wall_s : 0.0, device_ms / 10 / timeline_s);
  }
}

std::size_t FeatureOptions::histogramFolder(const std::string& directory, const std::vector<std::string>& images,
                                            const FeatureExtractor& extractor, const Vocabulary& vocabulary,
                                            Histogrammer& histogrammer, const char* label,
                                            const HistogramConsumer& consume) const {
  std::size_t succeeded = 0;
  std::vector<ImageFailure> failures;
  {
    ProgressBar bar(label, quiet);
    failures = histogramImagesInBatches(images, extractor, vocabulary, histogrammer, pipeline(bar),
                                        [&](ImageHistograms&& batch) {
                                          succeeded += batch.names.size();
                                          consume(std::move(batch));
                                        });
  }
  printProfile();
  reportFailures(failures, images.size());
  if (succeeded == 0) throw InvalidInput("no readable image in '" + directory + "'");
  return succeeded;
}

std::vector<std::string> listFolderImages(const std::string& directory) {
  std::vector<std::string> images = listImages(directory);
  if (images.empty()) throw InvalidInput("'" + directory + "' holds no image files");
  return images;
}

void FeatureOptions::useThreads(int count) {
  threads = count;
  applyThreadCount(count);
}

void applyThreadCount(int threads) {
  if (threads <= 0) return;
  cv::setNumThreads(threads);
  omp_set_num_threads(threads);
}

std::size_t reportFailures(const std::vector<ImageFailure>& failures, std::size_t total) {
  for (const auto& f : failures) spdlog::warn("skipped {}", f.message);
  if (!failures.empty()) spdlog::warn("{} of {} images could not be used", failures.size(), total);
  return failures.size();
}

}  // namespace bovw::cli
