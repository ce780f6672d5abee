// bovw_decode_bench: the decode-only rate of the device routes: files to 8-bit gray in pinned staging
// on every core, through the pipeline's own workers, window and staging (src/pipeline), with no device
// work: what the files-to-histograms route could reach if the device were free. Issue 25 holds that
// route to within 1.2x of the larger of this rate and the device-only rate (the fused route's
// --profile: images / device busy time). Median of R rounds after one warm-up round.
//   bovw_decode_bench [--rounds 3] [--workers N] [--batch 256] FOLDER
// And, to make the benchmark's larger photos from a set: every image of FOLDER resized to W x H
// (area interpolation down, cubic up) and written as a JPEG of quality 95 into OUT.
//   bovw_decode_bench --resize WxH FOLDER OUT
#include "features/image_allocation.hpp"
#include "pipeline/device_batches.hpp"
#include "pipeline/image_workers.hpp"
#include "pipeline/pinned_staging.hpp"

#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/surf.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int resizeSet(const std::string& size, const std::string& from, const std::string& to) {
  int width = 0, height = 0;
  if (std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2 || width < 1 || height < 1) {
    std::fprintf(stderr, "bovw_decode_bench: --resize takes WxH, got '%s'\n", size.c_str());
    return 2;
  }
  std::filesystem::create_directories(to);
  for (const std::string& path : bovw::listImages(from)) {
    const cv::Mat image = cv::imread(path, cv::IMREAD_COLOR);
    if (image.empty()) continue;
    cv::Mat resized;
    cv::resize(image, resized, cv::Size(width, height), 0, 0,
               width * height < image.cols * image.rows ? cv::INTER_AREA : cv::INTER_CUBIC);
    const std::string out = (std::filesystem::path(to) / std::filesystem::path(path).filename()).string();
    if (!cv::imwrite(std::filesystem::path(out).replace_extension(".jpg").string(), resized,
                     {cv::IMWRITE_JPEG_QUALITY, 95})) {
      std::fprintf(stderr, "bovw_decode_bench: cannot write '%s'\n", out.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--resize") return resizeSet(argv[2], argv[3], argv[4]);
  int rounds = 3;
  bovw::PipelineOptions options;
  std::string folder;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--workers" && i + 1 < argc) options.workers = std::atoi(argv[++i]);
    else if (a == "--batch" && i + 1 < argc) options.batch_images = std::max(1, std::atoi(argv[++i]));
    else if (folder.empty() && a[0] != '-') folder = a;
    else {
      std::fprintf(stderr, "usage: bovw_decode_bench [--rounds 3] [--workers N] [--batch 256] FOLDER\n");
      return 2;
    }
  }
  if (folder.empty()) {
    std::fprintf(stderr, "usage: bovw_decode_bench [--rounds 3] [--workers N] [--batch 256] FOLDER\n");
    return 2;
  }
  try {
    const std::vector<std::string> paths = bovw::listImages(folder);
    if (paths.empty()) throw bovw::InvalidInput(folder, "holds no image files");
    bovw::detail::DeviceContext device("");  // $BOVW_DEVICE, else the first GPU: the staging's context
    bovw::detail::PinnedStaging staging(device.anotherQueue(), bovw::detail::kStagingDepth);
    std::vector<double> rates;
    std::size_t failed = 0;
    for (int round = 0; round <= rounds; ++round) {  // round 0: the warm-up (the arenas are allocated)
      bovw::PipelineProfile profile;
      options.profile = &profile;
      const auto start = std::chrono::steady_clock::now();
      const auto failures = bovw::detail::runImageWorkers(
          paths, options,
          [&](std::size_t i) {
            const bovw::detail::PinnedStaging::Serving serving(staging, bovw::detail::pipelineBatch(i, options));
            return bovw::detail::loadImage(paths[i], options.max_pixels, cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH,
                                           &staging);
          },
          [&](std::size_t i, const cv::Mat& image, bovw::detail::ImageSlot& slot) {
            slot.kept = staging.stage(bovw::toSurfGray(image), bovw::detail::pipelineBatch(i, options));
            slot.image_size = image.size();
          },
          [&](std::size_t first, std::size_t end, std::vector<bovw::detail::ImageSlot>& slots) {
            for (std::size_t i = first; i < end; ++i) slots[i].kept.release();
            staging.release(bovw::detail::pipelineBatch(first, options));
            return end;
          });
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      failed = failures.size();
      if (round > 0) rates.push_back(static_cast<double>(paths.size()) / seconds);
      std::printf("decode-only round %d%s: %.3f s, %.1f images/s, %d workers, %.3f ms per image per worker\n", round,
                  round == 0 ? " (warm-up)" : "", seconds, static_cast<double>(paths.size()) / seconds,
                  profile.workers, 1e3 * (profile.decode_s + profile.work_s) / static_cast<double>(paths.size()));
    }
    std::sort(rates.begin(), rates.end());
    std::printf("decode-only: %zu images (%zu failed), median %.1f images/s (min %.1f, max %.1f)\n", paths.size(),
                failed, rates[rates.size() / 2], rates.front(), rates.back());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bovw_decode_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
