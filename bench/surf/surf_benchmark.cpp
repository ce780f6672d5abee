// bovw_surf_bench: times one SURF backend (builtin by default; opencl: every stage on the device,
// stage times from device timestamps) per image at OpenCV's default settings, the detector
// (gray + integral, Hessian layers, extrema) and descriptor (orientation, descriptors) stages
// apart. Median of N runs after one warm-up run; all cores unless --threads says otherwise. Also the
// process CPU time (all threads) of detectAndCompute and of the descriptor stage alone (compute() on
// the detected keypoints: integral image, orientation, descriptors), which a loaded machine disturbs
// less than wall-clock time. --streams S then measures throughput: S threads extract the images
// (decoded beforehand) in turn, `runs` passes after a warm-up pass; with the OpenCL backend each thread
// has its own queue, so S images are in flight on the device at once. --batch B measures batches:
// detectAndComputeBatch on B images (the given ones in turn), median of `runs` after a warm-up, per
// image, with the batch's device stage times per image.
//   bovw_surf_bench [--runs 7] [--threads N] [--backend builtin|opencl|opencv] [--streams S] [--batch B]
//                   [--extended] [--upright] IMAGE_OR_FOLDER...
#include <bovw/image_io.hpp>
#include <bovw/surf.hpp>

// SURF's stage times and compute() at given keypoints are internal calls: this program measures them.
#include "features/surf_extractor.hpp"

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <filesystem>
#include <thread>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double cpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// Images per second when `streams` threads share `passes` passes over the images (after one warm-up
// pass: queues, buffers and kernels are made on first use).
void measureThroughput(const bovw::SurfExtractor& surf, const std::vector<cv::Mat>& images, int streams, int passes) {
  std::atomic<std::size_t> keypoints{0};
  auto run = [&](std::size_t jobs) {
    std::atomic<std::size_t> next{0};
    keypoints = 0;
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < streams; ++t)
      pool.emplace_back([&] {
        for (std::size_t j; (j = next++) < jobs;) {
          std::vector<cv::KeyPoint> kps;
          cv::Mat d;
          surf.detectAndCompute(images[j % images.size()], cv::noArray(), kps, d);
          keypoints += kps.size();
        }
      });
    for (auto& t : pool) t.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  run(images.size());
  const std::size_t jobs = images.size() * static_cast<std::size_t>(passes);
  const double s = run(jobs);
  std::printf("throughput, %d streams: %zu images in %.3f s = %.1f images/s (%.3f ms per image), %.0f keypoints/image\n",
              streams, jobs, s, jobs / s, 1e3 * s / jobs, static_cast<double>(keypoints) / jobs);
}

int usage() {
  std::fprintf(stderr, "usage: bovw_surf_bench [--runs N] [--threads N] [--backend builtin|opencl|opencv] [--streams S] [--batch B] "
               "[--extended] [--upright] IMAGE_OR_FOLDER...\n");
  return 2;
}

}  // namespace

// Milliseconds per image when batches of `batch` images (the given ones in turn) go through
// detectAndComputeBatch, median of `runs` batches after a warm-up batch, with the stages per image.
void measureBatches(const bovw::SurfExtractor& surf, const std::vector<cv::Mat>& images, int batch, int runs) {
  std::vector<cv::Mat> members;
  for (int i = 0; i < batch; ++i) members.push_back(images[i % images.size()]);
  std::vector<double> total, prep, hess, ext, ori, dsc;
  std::size_t keypoints = 0;
  for (int r = 0; r <= runs; ++r) {
    bovw::SurfStageTimes t;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<bovw::ImageFeatures> features = surf.detectAndComputeBatch(members, &t);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r == 0) continue;  // warm-up: buffers of the batch's size are made on first use
    keypoints = 0;
    for (const auto& f : features) keypoints += f.keypoints.size();
    total.push_back(ms / batch);
    prep.push_back(t.prepare_ms / batch);
    hess.push_back(t.hessian_ms / batch);
    ext.push_back(t.extrema_ms / batch);
    ori.push_back(t.orientation_ms / batch);
    dsc.push_back(t.descriptor_ms / batch);
  }
  std::printf("batches of %d: %.3f ms per image (%.1f images/s), %.0f keypoints/image; per image: prepare %.3f, "
              "hessian %.3f, extrema %.3f, orientation %.3f, descriptor %.3f ms\n",
              batch, median(total), 1e3 / median(total), static_cast<double>(keypoints) / batch, median(prep),
              median(hess), median(ext), median(ori), median(dsc));
}

int main(int argc, char** argv) {
  int runs = 7, threads = cv::getNumberOfCPUs(), streams = 0, batch = 0;
  bovw::SurfParams params;
  bovw::SurfBackend backend = bovw::SurfBackend::Builtin;
  std::vector<std::string> images;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--threads" && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--streams" && i + 1 < argc) {
      streams = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--batch" && i + 1 < argc) {
      batch = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--backend" && i + 1 < argc) {
      backend = bovw::parseSurfBackend(argv[++i]);
    } else if (a == "--extended") {
      params.extended = true;
    } else if (a == "--upright") {
      params.upright = true;
    } else if (a.rfind("--", 0) == 0) {
      return usage();
    } else if (std::filesystem::is_directory(a)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (bovw::hasImageExtension(e.path().string())) found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      images.insert(images.end(), found.begin(), found.end());
    } else {
      images.push_back(a);
    }
  }
  if (images.empty()) return usage();
  cv::setNumThreads(threads);
  const auto surf = bovw::surf::makeSurfExtractor(params, backend);

  std::printf("%s SURF, hessian %.0f, %d octaves x %d layers%s%s, %d threads, median of %d runs (ms)\n",
              bovw::surfBackendName(surf->backend()).c_str(), params.hessian_threshold, params.octaves, params.octave_layers, params.extended ? ", extended" : "",
              params.upright ? ", upright" : "", threads, runs);
  std::printf("%-18s %9s %6s | %8s %8s %8s | %8s %8s %8s %8s %8s | %8s | %9s %9s\n", "image", "size", "kpts", "total",
              "detector", "descr.", "prepare", "hessian", "extrema", "orient.", "desc.", "spread", "CPU total",
              "CPU descr");
  for (const std::string& path : images) {
    cv::Mat img;
    try {
      img = bovw::loadImage(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "skipping %s: %s\n", path.c_str(), e.what());
      continue;
    }
    std::vector<double> total, det, des, prep, hess, ext, ori, dsc, cpu_total, cpu_des;
    size_t n = 0;
    for (int r = 0; r <= runs; ++r) {
      std::vector<cv::KeyPoint> kps;
      cv::Mat d;
      bovw::SurfStageTimes t;
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = cpuMs();
      surf->detectAndCompute(img, cv::noArray(), kps, d, &t);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      const double cpu_detect_and_compute = cpuMs() - cpu_start;
      std::vector<cv::KeyPoint> again = kps;
      cv::Mat d_again;
      const double cpu_compute_start = cpuMs();
      surf->compute(img, again, d_again);
      const double cpu_compute = cpuMs() - cpu_compute_start;
      if (r == 0) continue;  // warm-up: first-touch page faults, thread pool start
      n = kps.size();
      total.push_back(ms);
      det.push_back(t.detectorMs());
      des.push_back(t.descriptorMs());
      prep.push_back(t.prepare_ms);
      hess.push_back(t.hessian_ms);
      ext.push_back(t.extrema_ms);
      ori.push_back(t.orientation_ms);
      dsc.push_back(t.descriptor_ms);
      cpu_total.push_back(cpu_detect_and_compute);
      cpu_des.push_back(cpu_compute);
    }
    const auto [lo, hi] = std::minmax_element(total.begin(), total.end());
    char size[32];
    std::snprintf(size, sizeof size, "%dx%d", img.cols, img.rows);
    std::printf("%-18s %9s %6zu | %8.2f %8.2f %8.2f | %8.2f %8.2f %8.2f %8.2f %8.2f | %.2f-%-.2f | %9.1f %9.1f\n",
                std::filesystem::path(path).filename().string().c_str(), size, n, median(total), median(det),
                median(des), median(prep), median(hess), median(ext), median(ori), median(dsc), *lo, *hi,
                median(cpu_total), median(cpu_des));
  }
  std::vector<cv::Mat> decoded;
  if (streams > 0 || batch > 0)
    for (const std::string& path : images) decoded.push_back(bovw::loadImage(path));
  if (streams > 0) measureThroughput(*surf, decoded, streams, runs);
  if (batch > 0) measureBatches(*surf, decoded, batch, runs);
  return 0;
}
