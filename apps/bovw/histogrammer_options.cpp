// Shared histogrammer options of the bovw subcommands.
#include "histogrammer_options.hpp"

#include "number_checks.hpp"
#include "thread_count.hpp"

#include <bovw/device.hpp>
#include <bovw/error.hpp>

#include <spdlog/spdlog.h>

#include <cstdlib>

namespace bovw::cli {

std::vector<std::string> backendNames() {
  std::vector<std::string> names;
  for (Backend b : allBackends()) names.emplace_back(toString(b));
  names.emplace_back(toString(Backend::Auto));
  return names;
}

std::vector<std::string> variantNames() {
  std::vector<std::string> names;
  for (KernelVariant v : allKernelVariants()) names.emplace_back(toString(v));
  names.emplace_back(toString(KernelVariant::Auto));
  return names;
}

void HistogrammerOptions::addTo(CLI::App* command) {
  command->add_option("--backend", backend,
                      "where to compute: auto is opencl where the device (--device, $BOVW_DEVICE, else the first "
                      "GPU) is a GPU, with SURF fused there, else openmp-tiled (`bovw devices` says which); "
                      "openmp is the golden reference; openmp-ann: approximate nearest words, for large K")
      ->check(CLI::IsMember(backendNames()))
      ->capture_default_str();
  command->add_option("--variant", variant, "OpenCL kernel variant: the chapter's GPU1..GPU5, bovw's tiled, or tiled-tf32 or tiled-fp16 (tensor cores), or auto (tiled-tf32 on NVIDIA GPUs, tiled on other GPUs)")
      ->check(CLI::IsMember(variantNames()))
      ->capture_default_str();
  command->add_option("--device", device,
                      "OpenCL device: P:D indices, gpu/cpu, or a name substring (default: $BOVW_DEVICE, "
                      "else the first GPU, else the first CPU)");
  command->add_option("--work-group", work_group_size, "OpenCL work-group size")
      ->check(kPositive)
      ->capture_default_str()
      ->group(kAdvancedGroup);
  command->add_option("--threads", threads,
                      "threads (0: all cores): OpenMP (CPU histogrammer, k-means) and, where images are read, "
                      "feature extraction (OpenCV's threads and the extraction workers)")
      ->check(threadCount(true))
      ->capture_default_str();
  command->add_option("--build-options", build_options, "extra OpenCL compiler options")
      ->group(kAdvancedGroup);
  command->add_option("--device-memory-limit", device_memory_limit_mib,
                      "MiB of device memory bovw may use (0: all of it)")
      ->group(kAdvancedGroup);
  command->add_option("--transfer-rows", transfer_rows,
                      "OpenCL: descriptors per pinned transfer chunk (0: about 64 MiB)")
      ->check(kNonNegative)
      ->capture_default_str()
      ->group(kAdvancedGroup);
  command->add_option("--approximate-checks", approximate_checks,
                      "openmp-ann: words each descriptor's search checks (more: higher recall, slower)")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str()
      ->group(kAdvancedGroup);
  auto* tiles_option = command->add_option(
      "--tiles", tiles, "tiled variant's tile sizes TM,TN,ROWS,WORDS,DEPTH (default: the device's)");
  tiles_option->group(kAdvancedGroup);
  command->add_option("--tuning", tuning, "tile sizes from a `bovw-bench --tune --save-tuning` file")
      ->excludes(tiles_option)
      ->group(kAdvancedGroup);
}

HistogrammerConfig HistogrammerOptions::config() const {
  HistogrammerConfig config;
  config.backend = parseBackend(backend);
  config.variant = parseKernelVariant(variant);
  config.device = device;
  config.work_group_size = work_group_size;
  config.threads = threads;
  config.build_options = build_options;
  config.device_memory_limit = device_memory_limit_mib << 20;
  config.transfer_rows = transfer_rows;
  config.approximate_checks = approximate_checks;
  if (!tiles.empty()) config.tiles = parseTileSizes(tiles);
  config.tuning_file = tuning;  // read, and checked against the device, when an OpenCL histogrammer is made
  if (config.backend != Backend::Auto) return config;
  config = withResolvedBackend(config);
  // A device named for auto (--device, $BOVW_DEVICE) that matches nothing is a typo or a platform not
  // installed: say so rather than run on the CPU without a word.
  const char* env = std::getenv("BOVW_DEVICE");
  if (config.backend != Backend::OpenCL && (!config.device.empty() || (env && *env))) {
    try {
      selectDevice(config.device);
    } catch (const Error& e) {
      spdlog::warn("{}; --backend auto runs on the CPU", e.what());
    }
  }
  return config;
}

}  // namespace bovw::cli
