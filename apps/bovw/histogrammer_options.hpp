// The options every histogram-computing subcommand shares (--backend, --variant, --device, ...),
// declared once so that all subcommands spell and validate them the same way.
#pragma once

#include <bovw/histogrammer.hpp>

#include <CLI/CLI.hpp>

#include <string>

namespace bovw::cli {

// The --help section of the options that tune how the work runs (kernels, batches, memory): their
// defaults suit most machines, so --help lists them after the options that say what to do.
inline constexpr const char* kAdvancedGroup = "Advanced (tuning; the defaults suit most machines)";

struct HistogrammerOptions {
  std::string backend = "auto";
  std::string variant = "auto";
  std::string device;
  int work_group_size = 64;
  int threads = 0;
  std::string build_options;
  std::uint64_t device_memory_limit_mib = 0;
  std::int64_t transfer_rows = 0;
  std::string tiles;   // "TM,TN,ROWS,WORDS,DEPTH" for the tiled variant
  std::string tuning;  // a tuning file from `bovw-bench --tune --save-tuning`
  int approximate_checks = HistogrammerConfig{}.approximate_checks;  // openmp-ann's search budget

  // Adds the options to `command`; unknown backend/variant names become usage errors (exit 2).
  void addTo(CLI::App* command);
  // The configuration, with --backend auto resolved (bovw::resolveBackend) so that what the command
  // does and reports names the backend that runs.
  HistogrammerConfig config() const;
};

// "a, b, c": the valid names (auto included), for CLI11's IsMember checks and help text.
std::vector<std::string> backendNames();
std::vector<std::string> variantNames();

}  // namespace bovw::cli
