// The histogram benchmark: data generation, timing loop, medians, table and JSON.
#include "histogram_benchmark.hpp"

#include <bovw/error.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <random>

namespace bovw::bench {

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

double flopsOf(const ProblemSize& size, int d) {
  return 2.0 * static_cast<double>(size.n) * size.k * d;
}

Descriptors uniformMatrix(std::int64_t rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Descriptors m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = uniform(rng);
  return m;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
  return text;
}

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

}  // namespace

std::string Contender::name() const {
  return backend == Backend::OpenCL ? std::string(toString(variant)) : std::string(toString(backend));
}

std::vector<ProblemSize> defaultSizes() {
  std::vector<ProblemSize> sizes;
  for (std::int64_t n : {4096, 16384, 65536})
    for (int k : {8, 16, 64, 128, 256}) sizes.push_back({n, k});
  sizes.push_back({1048576, 1024});
  return sizes;
}

std::vector<Contender> defaultContenders() {
  std::vector<Contender> contenders = {{Backend::Serial, KernelVariant::Baseline},
                                       {Backend::OpenMP, KernelVariant::Baseline},
                                       {Backend::OpenMPTiled, KernelVariant::Baseline}};
  for (KernelVariant v : allKernelVariants()) contenders.push_back({Backend::OpenCL, v});
  return contenders;
}

namespace {

HistogrammerConfig configFor(const Contender& contender, const BenchmarkOptions& options) {
  HistogrammerConfig config;
  config.backend = contender.backend;
  config.variant = contender.variant;
  config.device = options.device;
  config.work_group_size = options.work_group_size;
  config.tiles = options.tiles;
  config.build_options = options.build_options;
  // The whole batch in one transfer chunk: the kernel table times one launch per case (chunked
  // transfers, which add a launch per chunk, are measured through `bovw histogram`).
  config.transfer_rows = std::numeric_limits<std::int32_t>::max();
  return config;
}

// Warm-up runs, then the timed ones: medians (and the kernel's min and max) into `m`, and the
// differences from `reference` when it is not empty. Returns the last run's assignments.
std::vector<std::int32_t> timeRuns(Histogrammer& histogrammer, const DescriptorBatch& batch,
                                   const Vocabulary& vocabulary, const BenchmarkOptions& options,
                                   const std::vector<std::int32_t>& reference, double peak_gflops,
                                   Measurement& m) {
  std::vector<double> kernel, call, transpose, upload, download, recheck;
  std::vector<std::int32_t> assignments;
  const std::int64_t n = batch.descriptors().rows();
  for (int r = 0; r < options.warmup + options.repetitions; ++r) {
    StageTimes t;
    const auto start = std::chrono::steady_clock::now();
    const Histograms h = histogrammer.compute(batch, vocabulary, &assignments, &t);
    const double call_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (h.sum() != n)
      throw Error(m.contender + ": histogram sum " + std::to_string(h.sum()) + " differs from N = " + std::to_string(n));
    m.rechecked_rows = t.rechecked_rows;
    m.fully_rechecked_rows = t.fully_rechecked_rows;
    if (r < options.warmup) continue;
    kernel.push_back(t.kernel_ms);
    call.push_back(call_ms);
    transpose.push_back(t.transpose_ms);
    upload.push_back(t.upload_ms);
    download.push_back(t.download_ms);
    recheck.push_back(t.recheck_ms);
  }
  m.kernel_ms = median(kernel);
  m.call_ms = median(call);
  m.recheck_ms = median(recheck);
  m.kernel_min_ms = *std::min_element(kernel.begin(), kernel.end());
  m.kernel_max_ms = *std::max_element(kernel.begin(), kernel.end());
  m.transpose_ms = median(transpose);
  m.upload_ms = median(upload);
  m.download_ms = median(download);
  m.gflops = flopsOf(m.size, m.dimension) / (m.kernel_ms * 1e-3) * 1e-9;
  if (peak_gflops > 0) m.fraction_of_peak = m.gflops / peak_gflops;
  if (!reference.empty()) {
    m.differing_assignments = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) m.differing_assignments += reference[i] != assignments[i];
  }
  return assignments;
}

// What an application pays to make an OpenCL histogrammer and answer one small query.
double histogrammerStartupMs(const BenchmarkOptions& options) {
  std::mt19937 rng(options.seed);
  const Descriptors x = uniformMatrix(1000, options.dimension, rng);
  const Vocabulary vocabulary(uniformMatrix(64, options.dimension, rng));
  const auto start = std::chrono::steady_clock::now();
  HistogrammerConfig config;
  config.backend = Backend::OpenCL;
  config.device = options.device;
  makeHistogrammer(config)->assign(x, vocabulary);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BenchmarkReport runBenchmark(const BenchmarkOptions& options,
                             const std::function<void(const Measurement&)>& progress) {
  BenchmarkReport report;
  report.device = selectDevice(options.device);
  report.first_histogrammer_ms = histogrammerStartupMs(options);
  report.later_histogrammer_ms = histogrammerStartupMs(options);
  report.ceilings = measureDeviceCeilings(options.device);
  report.cpu_threads = omp_get_max_threads();
  report.date = today();

  std::vector<ProblemSize> sizes = options.sizes.empty() ? defaultSizes() : options.sizes;
  const std::vector<Contender> contenders =
      options.contenders.empty() ? defaultContenders() : options.contenders;
  // Smallest work first: each contender's rate on small sizes predicts whether a big one fits the budget.
  std::stable_sort(sizes.begin(), sizes.end(), [&](const ProblemSize& a, const ProblemSize& b) {
    return flopsOf(a, options.dimension) < flopsOf(b, options.dimension);
  });

  std::map<std::string, std::unique_ptr<Histogrammer>> histogrammers;
  std::map<std::string, double> last_gflops;
  std::mt19937 rng(options.seed);
  for (const ProblemSize& size : sizes) {
    const Descriptors x = uniformMatrix(size.n, options.dimension, rng);
    const Vocabulary vocabulary(uniformMatrix(size.k, options.dimension, rng));
    const DescriptorBatch batch = DescriptorBatch::singleImage(x);
    std::vector<std::int32_t> reference;

    for (const Contender& contender : contenders) {
      const std::string name = contender.name();
      Measurement m;
      m.contender = name;
      m.size = size;
      m.dimension = options.dimension;
      const int runs = options.warmup + options.repetitions;
      if (auto rate = last_gflops.find(name); rate != last_gflops.end()) {
        const double estimate = runs * flopsOf(size, options.dimension) / (rate->second * 1e9);
        if (estimate > options.max_seconds) {
          m.skipped = "estimated " + fixed(estimate, 0) + " s for " + std::to_string(runs) +
                      " runs > --max-seconds " + fixed(options.max_seconds, 0);
        }
      }
      if (m.skipped.empty()) {
        auto& histogrammer = histogrammers[name];
        if (!histogrammer) histogrammer = makeHistogrammer(configFor(contender, options));
        // Each kernel against the units it runs on: the tensor cores' ceiling for its operands.
        const double peak = contender.backend != Backend::OpenCL ? 0
                            : contender.variant == KernelVariant::TiledTF32 && report.ceilings.tf32_gflops > 0
                                ? report.ceilings.tf32_gflops
                            : contender.variant == KernelVariant::TiledFP16 && report.ceilings.fp16_gflops > 0
                                ? report.ceilings.fp16_gflops
                                : report.ceilings.fp32_gflops;
        auto assignments = timeRuns(*histogrammer, batch, vocabulary, options, reference, peak, m);
        last_gflops[name] = m.gflops;
        if (contender.backend == Backend::OpenMP) reference = std::move(assignments);
      }
      if (progress) progress(m);
      report.measurements.push_back(m);
    }
  }
  return report;
}

std::vector<TileSizes> tuningCandidates() {
  // {rows per item, words per item, items along rows, items along words, depth}
  return {{8, 8, 16, 16, 16}, {8, 8, 16, 16, 8},  {8, 8, 16, 16, 32}, {8, 8, 8, 16, 16},
          {8, 8, 16, 8, 16},  {8, 8, 32, 8, 16},  {4, 8, 16, 16, 16}, {8, 4, 16, 16, 16},
          {4, 4, 16, 16, 16}, {8, 16, 16, 8, 16}, {16, 8, 8, 16, 16}, {4, 4, 8, 8, 16},
          {8, 8, 8, 8, 16}};
}

TuningReport runTuning(const BenchmarkOptions& options, ProblemSize size,
                       const std::function<void(const TileSizes&, const Measurement&)>& progress) {
  TuningReport report;
  report.device = selectDevice(options.device);
  report.ceilings = measureDeviceCeilings(options.device);
  report.date = today();
  report.size = size;
  report.dimension = options.dimension;
  std::mt19937 rng(options.seed);
  const Descriptors x = uniformMatrix(size.n, options.dimension, rng);
  const Vocabulary vocabulary(uniformMatrix(size.k, options.dimension, rng));
  const DescriptorBatch batch = DescriptorBatch::singleImage(x);
  HistogrammerConfig golden;
  golden.backend = Backend::OpenMP;
  const std::vector<std::int32_t> reference = makeHistogrammer(golden)->assign(x, vocabulary);

  double best_ms = 0;
  for (const TileSizes& tiles : tuningCandidates()) {
    Measurement m;
    m.contender = "tiled " + toString(tiles);
    m.size = size;
    m.dimension = options.dimension;
    BenchmarkOptions candidate = options;
    candidate.tiles = tiles;
    try {
      auto histogrammer = makeHistogrammer(configFor({Backend::OpenCL, KernelVariant::Tiled}, candidate));
      timeRuns(*histogrammer, batch, vocabulary, candidate, reference, report.ceilings.fp32_gflops, m);
      if (m.differing_assignments == 0 && (best_ms == 0 || m.kernel_ms < best_ms)) {
        best_ms = m.kernel_ms;
        report.best = tiles;
      }
    } catch (const CapacityError& e) {  // too large for this device: say so and go on
      m.skipped = e.what();
    } catch (const KernelBuildError& e) {
      m.skipped = std::string("does not build: ") + e.what();
    }
    if (progress) progress(tiles, m);
    report.candidates.emplace_back(tiles, m);
  }
  if (best_ms == 0) throw Error("bench --tune: no tile shape ran correctly on " + report.device.name);
  return report;
}

void printTuning(std::ostream& out, const TuningReport& report) {
  out << "Device: " << report.device.name << "; FP32 ceiling " << fixed(report.ceilings.fp32_gflops, 1)
      << " GFLOP/s\nTiled kernel, N = " << report.size.n << ", K = " << report.size.k << ", D = " << report.dimension
      << "; kernel time in ms (median)\n\n";
  out << std::left << std::setw(22) << "tiles TM,TN,R,W,BK" << std::right << std::setw(10) << "block" << std::setw(12)
      << "kernel" << std::setw(10) << "GFLOP/s" << std::setw(8) << "%peak" << std::setw(7) << "diff" << "\n";
  for (const auto& [tiles, m] : report.candidates) {
    out << std::left << std::setw(22) << toString(tiles) << std::right << std::setw(10)
        << (std::to_string(tiles.rows_per_item * tiles.group_rows) + "x" +
            std::to_string(tiles.words_per_item * tiles.group_words));
    if (!m.skipped.empty()) {
      out << "  skipped: " << m.skipped << "\n";
      continue;
    }
    out << std::setw(12) << fixed(m.kernel_ms, 3) << std::setw(10) << fixed(m.gflops, 1) << std::setw(8)
        << fixed(100 * m.fraction_of_peak, 1) << std::setw(7) << m.differing_assignments << std::setw(9)
        << fixed(m.recheck_ms, 3) << "\n";
  }
  out << "\nbest: " << toString(report.best) << "\n";
}

nlohmann::json toJson(const TuningReport& report) {
  nlohmann::json j;
  j["date"] = report.date;
  j["device"] = report.device.name;
  j["fp32_gflops"] = report.ceilings.fp32_gflops;
  j["n"] = report.size.n;
  j["k"] = report.size.k;
  j["d"] = report.dimension;
  j["best"] = toString(report.best);
  for (const auto& [tiles, m] : report.candidates) {
    nlohmann::json row = {{"tiles", toString(tiles)}};
    if (!m.skipped.empty()) {
      row["skipped"] = m.skipped;
    } else {
      row.update({{"kernel_ms", m.kernel_ms}, {"gflops", m.gflops}, {"fraction_of_peak", m.fraction_of_peak},
                  {"differing_assignments", m.differing_assignments}, {"rechecked_rows", m.rechecked_rows},
                  {"recheck_ms", m.recheck_ms}});
    }
    j["candidates"].push_back(row);
  }
  return j;
}

void printTable(std::ostream& out, const BenchmarkReport& report) {
  out << "Device: " << report.device.name << " (" << report.device.platform << ", "
      << report.device.compute_units << " compute units); CPU backends: " << report.cpu_threads
      << " OpenMP threads\n"
      << "Measured ceilings: FP32 " << fixed(report.ceilings.fp32_gflops, 1) << " GFLOP/s (FMA microkernel), TF32 "
      << fixed(report.ceilings.tf32_gflops, 1) << " and FP16 " << fixed(report.ceilings.fp16_gflops, 1)
      << " GFLOP/s (mma.sync microkernels; 0: not NVIDIA), copy "
      << fixed(report.ceilings.copy_gb_per_s, 1) << " GB/s; host to device "
      << fixed(report.ceilings.pinned_upload_gb_per_s, 1) << " GB/s pinned, "
      << fixed(report.ceilings.pageable_upload_gb_per_s, 1) << " GB/s pageable\n"
      << "OpenCL histogrammer made + one small query: first in the process "
      << fixed(report.first_histogrammer_ms, 1) << " ms, a later one " << fixed(report.later_histogrammer_ms, 1)
      << " ms\n"
      << "Times in ms, medians; kernel = nearest word + histogram; GFLOP/s of 2*N*K*D.\n\n";
  out << std::left << std::setw(13) << "variant" << std::right << std::setw(9) << "N" << std::setw(6) << "K"
      << std::setw(5) << "D" << std::setw(12) << "kernel" << std::setw(22) << "[min, max]" << std::setw(11)
      << "transpose" << std::setw(10) << "upload" << std::setw(10) << "download" << std::setw(10) << "GFLOP/s"
      << std::setw(8) << "%peak" << std::setw(7) << "diff" << std::setw(9) << "recheck" << std::setw(10)
      << "(rows)" << std::setw(9) << "(full)" << "\n";
  for (const Measurement& m : report.measurements) {
    out << std::left << std::setw(13) << m.contender << std::right << std::setw(9) << m.size.n << std::setw(6)
        << m.size.k << std::setw(5) << m.dimension;
    if (!m.skipped.empty()) {
      out << "  skipped: " << m.skipped << "\n";
      continue;
    }
    out << std::setw(12) << fixed(m.kernel_ms, 3) << std::setw(22)
        << ("[" + fixed(m.kernel_min_ms, 3) + ", " + fixed(m.kernel_max_ms, 3) + "]") << std::setw(11)
        << fixed(m.transpose_ms, 3) << std::setw(10) << fixed(m.upload_ms, 3) << std::setw(10)
        << fixed(m.download_ms, 3) << std::setw(10) << fixed(m.gflops, 1) << std::setw(8)
        << (m.fraction_of_peak > 0 ? fixed(100 * m.fraction_of_peak, 1) : "-") << std::setw(7)
        << (m.differing_assignments >= 0 ? std::to_string(m.differing_assignments) : "-") << std::setw(9)
        << fixed(m.recheck_ms, 3) << std::setw(10) << m.rechecked_rows << std::setw(9) << m.fully_rechecked_rows
        << "\n";
  }
}

nlohmann::json toJson(const BenchmarkReport& report) {
  nlohmann::json j;
  j["date"] = report.date;
  j["device"] = {{"name", report.device.name},
                 {"platform", report.device.platform},
                 {"version", report.device.version},
                 {"driver", report.device.driver_version},
                 {"compute_units", report.device.compute_units}};
  j["ceilings"] = {{"fp32_gflops", report.ceilings.fp32_gflops},
                   {"tf32_gflops", report.ceilings.tf32_gflops},
                   {"fp16_gflops", report.ceilings.fp16_gflops},
                   {"copy_gb_per_s", report.ceilings.copy_gb_per_s},
                   {"pinned_upload_gb_per_s", report.ceilings.pinned_upload_gb_per_s},
                   {"pageable_upload_gb_per_s", report.ceilings.pageable_upload_gb_per_s}};
  j["cpu_threads"] = report.cpu_threads;
  j["first_histogrammer_ms"] = report.first_histogrammer_ms;
  j["later_histogrammer_ms"] = report.later_histogrammer_ms;
  for (const Measurement& m : report.measurements) {
    nlohmann::json row = {{"contender", m.contender}, {"n", m.size.n}, {"k", m.size.k}, {"d", m.dimension}};
    if (!m.skipped.empty()) {
      row["skipped"] = m.skipped;
    } else {
      row.update({{"kernel_ms", m.kernel_ms}, {"kernel_min_ms", m.kernel_min_ms},
                  {"kernel_max_ms", m.kernel_max_ms}, {"call_ms", m.call_ms}, {"transpose_ms", m.transpose_ms},
                  {"upload_ms", m.upload_ms}, {"download_ms", m.download_ms}, {"gflops", m.gflops},
                  {"fraction_of_peak", m.fraction_of_peak}, {"differing_assignments", m.differing_assignments},
                  {"rechecked_rows", m.rechecked_rows}, {"fully_rechecked_rows", m.fully_rechecked_rows},
                  {"recheck_ms", m.recheck_ms}});
    }
    j["measurements"].push_back(row);
  }
  return j;
}

}  // namespace bovw::bench
