// The histogram benchmark behind `bovw-bench`: every backend and kernel variant over a grid of
// sizes, timed with profiling events (median after warm-up), against the device's measured ceilings.
#pragma once

#include <bovw/device.hpp>
#include <bovw/histogrammer.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bovw::bench {

struct ProblemSize {
  std::int64_t n;  // descriptors
  int k;           // words
};

// One benchmarked implementation: a CPU backend, or an OpenCL variant.
struct Contender {
  Backend backend;
  KernelVariant variant;  // meaningful for OpenCL only
  std::string name() const;
};

struct BenchmarkOptions {
  std::string device;                  // OpenCL device spec
  std::vector<ProblemSize> sizes;      // default: the chapter's grid plus 1,048,576 x 1,024
  std::vector<Contender> contenders;   // default: the CPU backends and every concrete variant
  int dimension = 64;
  int work_group_size = 64;
  TileSizes tiles;                     // for the tiled contender (0s: the device's defaults)
  std::string build_options;           // extra OpenCL compiler options for the device contenders
  int warmup = 2;
  int repetitions = 10;
  double max_seconds = 60;             // skip a case estimated to take longer than this
  unsigned seed = 1;
};

struct Measurement {
  std::string contender;
  ProblemSize size;
  int dimension;
  std::string skipped;          // why it was not run; empty if it ran
  double kernel_ms = 0;         // median
  double kernel_min_ms = 0;
  double kernel_max_ms = 0;
  double call_ms = 0;           // median of the whole Histogrammer::compute call, checks included
  double transpose_ms = 0;      // median
  double upload_ms = 0;         // median
  double download_ms = 0;       // median
  double gflops = 0;            // 2 N K D / kernel time
  double fraction_of_peak = 0;  // gflops / measured FP32 peak (OpenCL contenders only)
  // Assignments that differ from the OpenMP reference on the same data (near-ties: a few at most);
  // -1 when the reference was not run for this size.
  std::int64_t differing_assignments = -1;
  std::int64_t rechecked_rows = 0;  // tiled: rows re-checked by direct sums (of N)
  std::int64_t fully_rechecked_rows = 0;  // ... of which every word was summed
  double recheck_ms = 0;            // tiled: the re-check pass (median; part of kernel_ms)
};

struct BenchmarkReport {
  DeviceInfo device;
  DeviceCeilings ceilings;
  // makeHistogrammer (OpenCL, default variant) + one query of 1,000 x D against 64 words, wall
  // time: the first in the process (context, compilation) and a second one (process-wide cache).
  double first_histogrammer_ms = 0;
  double later_histogrammer_ms = 0;
  int cpu_threads = 0;
  std::string date;
  std::vector<Measurement> measurements;
};

std::vector<ProblemSize> defaultSizes();
std::vector<Contender> defaultContenders();

// Runs the benchmark; `progress` sees each measurement as it completes.
BenchmarkReport runBenchmark(const BenchmarkOptions& options,
                             const std::function<void(const Measurement&)>& progress = {});

void printTable(std::ostream& out, const BenchmarkReport& report);
nlohmann::json toJson(const BenchmarkReport& report);

// `bovw-bench --tune`: the tiled kernel with each candidate tile shape on one problem size.
struct TuningReport {
  DeviceInfo device;
  DeviceCeilings ceilings;
  std::string date;
  ProblemSize size;
  int dimension = 64;
  std::vector<std::pair<TileSizes, Measurement>> candidates;  // in the order tried
  TileSizes best;                                             // fastest with no differing assignment
};

// Tile shapes worth trying on GPUs and CPUs (each a multiple of 4 where the kernel needs it).
std::vector<TileSizes> tuningCandidates();

TuningReport runTuning(const BenchmarkOptions& options, ProblemSize size,
                       const std::function<void(const TileSizes&, const Measurement&)>& progress = {});
void printTuning(std::ostream& out, const TuningReport& report);
nlohmann::json toJson(const TuningReport& report);

}  // namespace bovw::bench
