// bovw_feature_batches_bench: how many images a second `bovw serve`'s features stage can turn into
// words, without HTTP or ranking: T threads each take decoded JPEGs in turn and call
// ImageSearch::words, one image a call, or through serve's DynamicBatcher (batches of up to B images,
// as `bovw serve --batch-images B` runs them). Reports images/s and the mean and p99 time a call took.
//
// With --phases, first where one thread's time goes per image, for batches of each size: SURF
// (its stages as the extractor times them), the nearest words, the signatures.
//
// Usage: bovw_feature_batches_bench --vocabulary V --images FOLDER [--threads 1,16] [--batches 1,4,16]
//        [--seconds 5] [--backend auto] [--variant auto] [--phases]
#include "features/surf_extractor.hpp"
#include "serve/dynamic_batcher.hpp"

#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>
#include <bovw/vocabulary_io.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::size_t> numbers(const std::string& list) {
  std::vector<std::size_t> values;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) values.push_back(std::stoul(item));
  return values;
}

// One thread, the images in batches of `batch`: milliseconds per image in each phase.
void phases(const std::vector<cv::Mat>& images, const bovw::Vocabulary& vocabulary,
            const bovw::HistogrammerConfig& config, std::size_t batch) {
  const auto surf = bovw::surf::makeSurfExtractor(bovw::SurfParams(), bovw::SurfBackend::OpenCL);
  const auto nearest = bovw::makeHistogrammer(config);
  double extract = 0, assign = 0, sign = 0;
  bovw::SurfStageTimes stages;
  std::size_t features = 0;
  for (int round = 0; round < 2; ++round) {  // the first warms every size up
    extract = assign = sign = 0;
    stages = {};
    features = 0;
    for (std::size_t first = 0; first < images.size(); first += batch) {
      const std::vector<cv::Mat> group(images.begin() + first, images.begin() + std::min(images.size(), first + batch));
      Clock::time_point t = Clock::now();
      const std::vector<bovw::ImageFeatures> found = surf->detectAndComputeBatch(group, &stages);
      extract += std::chrono::duration<double, std::milli>(Clock::now() - t).count();
      Eigen::Index rows = 0;
      for (const auto& f : found) rows += f.descriptors.rows;
      bovw::Descriptors all(rows, vocabulary.dimension());
      rows = 0;
      for (const auto& f : found) {
        if (f.descriptors.rows == 0) continue;
        all.middleRows(rows, f.descriptors.rows) = bovw::viewDescriptors(f.descriptors);
        rows += f.descriptors.rows;
      }
      t = Clock::now();
      const std::vector<std::int32_t> words = nearest->assign(all, vocabulary);
      assign += std::chrono::duration<double, std::milli>(Clock::now() - t).count();
      t = Clock::now();
      std::uint64_t sum = 0;
      for (Eigen::Index r = 0; r < rows; ++r)
        sum += bovw::wordSignature(all.row(r).data(), vocabulary, words[static_cast<std::size_t>(r)]);
      sign += std::chrono::duration<double, std::milli>(Clock::now() - t).count() + (sum == 1 ? 1e-9 : 0);
      features += static_cast<std::size_t>(rows);
    }
  }
  const double n = static_cast<double>(images.size());
  std::printf("batch %2zu, ms per image: SURF %.2f (prepare %.2f hessian %.2f extrema %.2f orientation %.2f "
              "descriptor %.2f), words %.2f, signatures %.3f; %.0f features per image\n",
              batch, extract / n, stages.prepare_ms / n, stages.hessian_ms / n, stages.extrema_ms / n,
              stages.orientation_ms / n, stages.descriptor_ms / n, assign / n, sign / n, features / n);
}

}  // namespace

int main(int argc, char** argv) {
  std::string vocabulary_path, folder, threads_list = "1,16", batches_list = "1,4,16";
  double seconds = 5;
  std::string backend = "auto", variant = "auto";
  bool show_phases = false;
  CLI::App app("Images per second through bovw serve's features stage, one image a call or in batches");
  app.add_option("--vocabulary", vocabulary_path, "the vocabulary (SURF)")->required()->check(CLI::ExistingFile);
  app.add_option("--images", folder, "a folder of images, decoded once")->required()->check(CLI::ExistingDirectory);
  app.add_option("--threads", threads_list, "threads calling at once")->capture_default_str();
  app.add_option("--batches", batches_list, "largest batch (1: each thread on its own)")->capture_default_str();
  app.add_option("--seconds", seconds, "seconds per case")->capture_default_str();
  app.add_option("--backend", backend, "histogram backend (auto, opencl, openmp-tiled, ...)")->capture_default_str();
  app.add_option("--variant", variant, "OpenCL kernel variant (auto, tiled, tiled-tf32, ...)")->capture_default_str();
  app.add_flag("--phases", show_phases, "first, where one thread's time goes (SURF on OpenCL, words, signatures)");
  CLI11_PARSE(app, argc, argv);

  bovw::ImageSearchOptions options;
  options.histogrammer.backend = bovw::parseBackend(backend);
  options.histogrammer.variant = bovw::parseKernelVariant(variant);
  const bovw::ImageSearch database =
      bovw::ImageSearch::create(bovw::loadVocabulary(vocabulary_path), bovw::FeatureSpec("surf"), {}, options);
  database.prepare();
  std::vector<cv::Mat> images;
  for (const std::string& path : bovw::listImages(folder)) images.push_back(bovw::loadImage(path));
  std::printf("%zu images, features in device batches: %s\n", images.size(),
              database.extractsInDeviceBatches() ? "yes" : "no");
  for (const cv::Mat& image : images) database.words(image);  // warm-up: every size once
  if (show_phases)
    for (const std::size_t batch : numbers(batches_list)) phases(images, database.vocabulary(), options.histogrammer, batch);

  std::printf("%7s %6s %10s %9s %9s %10s\n", "threads", "batch", "images/s", "mean ms", "p99 ms", "mean batch");
  for (const std::size_t threads : numbers(threads_list))
    for (const std::size_t batch : numbers(batches_list)) {
      std::atomic<std::size_t> batches{0}, batched{0};
      bovw::serve::DynamicBatcher<cv::Mat, bovw::ImageWords> batcher(
          [&](const std::vector<cv::Mat>& in) { return database.words(in); }, batch,
          [](const cv::Mat& image) { return static_cast<std::size_t>(image.total()); }, 16'000'000,
          [&](std::size_t n) { ++batches, batched += n; });
      std::atomic<std::size_t> next{0};
      std::mutex mutex;
      std::vector<double> latencies;
      const Clock::time_point start = Clock::now(), end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
      std::vector<std::thread> workers;
      for (std::size_t t = 0; t < threads; ++t)
        workers.emplace_back([&] {
          std::vector<double> mine;
          while (Clock::now() < end) {
            const cv::Mat& image = images[next++ % images.size()];
            const Clock::time_point called = Clock::now();
            const bovw::ImageWords words = batch > 1 ? batcher.call(image) : database.words(image);
            mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - called).count());
          }
          const std::lock_guard<std::mutex> lock(mutex);
          latencies.insert(latencies.end(), mine.begin(), mine.end());
        });
      for (std::thread& worker : workers) worker.join();
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      std::sort(latencies.begin(), latencies.end());
      double sum = 0;
      for (const double l : latencies) sum += l;
      std::printf("%7zu %6zu %10.1f %9.2f %9.2f %10.2f\n", threads, batch, latencies.size() / elapsed,
                  sum / latencies.size(), latencies[latencies.size() * 99 / 100],
                  batches ? double(batched) / double(batches) : 1.0);
      std::fflush(stdout);
    }
}
