// Histogrammer's public operations: validation, the empty cases and the factory live here once;
// backends implement only computeImpl.
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include "cpu/cpu_histogrammer.hpp"
#include "cpu/tiled_cpu_histogrammer.hpp"
#include "opencl/opencl_histogrammer.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

namespace bovw {

namespace {

void validate(const DescriptorBatch& batch, const Vocabulary& vocabulary) {
  const auto& x = batch.descriptors();
  const std::int64_t n = x.rows();
  if (n > 0 && x.cols() != vocabulary.dimension())
    throw InvalidInput("descriptors have width D = " + std::to_string(x.cols()) +
                       " but the vocabulary's words have D = " + std::to_string(vocabulary.dimension()));
  constexpr std::int64_t kIndexLimit = std::numeric_limits<std::int32_t>::max();
  if (n * x.cols() > kIndexLimit)
    throw CapacityError("descriptors: N x D = " + std::to_string(n * x.cols()) +
                        " values exceed the 32-bit index limit (" + std::to_string(kIndexLimit) +
                        "); split the batch");
  if (batch.imageCount() * vocabulary.size() > kIndexLimit)
    throw CapacityError("histograms: images x K = " +
                        std::to_string(batch.imageCount() * vocabulary.size()) +
                        " bins exceed the 32-bit index limit; split the batch");
  std::int64_t first_bad = n;
#pragma omp parallel for reduction(min : first_bad) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    if (!x.row(i).allFinite()) first_bad = std::min(first_bad, i);
  }
  if (first_bad < n)
    throw InvalidInput("descriptors: row " + std::to_string(first_bad) + " contains NaN or Inf");
}

}  // namespace

Histograms Histogrammer::compute(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                                 std::vector<std::int32_t>* assignments, StageTimes* times) {
  validate(batch, vocabulary);
  Histograms histograms = Histograms::Zero(batch.imageCount(), vocabulary.size());
  std::vector<std::int32_t> words(static_cast<std::size_t>(batch.descriptors().rows()));
  StageTimes stage_times;
  const auto start = std::chrono::steady_clock::now();
  if (!words.empty()) computeImpl(batch, vocabulary, words.data(), histograms, stage_times);
  stage_times.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (assignments) *assignments = std::move(words);
  if (times) *times = stage_times;
  return histograms;
}

std::vector<std::int32_t> Histogrammer::assign(DescriptorsRef descriptors,
                                               const Vocabulary& vocabulary, StageTimes* times) {
  std::vector<std::int32_t> assignments;
  compute(DescriptorBatch::singleImage(descriptors), vocabulary, &assignments, times);
  return assignments;
}

std::unique_ptr<Histogrammer> makeHistogrammer(const HistogrammerConfig& config) {
  if (config.work_group_size < 1)
    throw InvalidInput("work-group size " + std::to_string(config.work_group_size) + " must be >= 1");
  if (config.threads < 0)
    throw InvalidInput("threads " + std::to_string(config.threads) + " must be >= 0 (0: all cores)");
  switch (config.backend) {
    case Backend::Serial:
      return detail::makeCpuHistogrammer(1);
    case Backend::OpenMP:
      return detail::makeCpuHistogrammer(config.threads);
    case Backend::OpenMPTiled:
      return detail::makeTiledCpuHistogrammer(config.threads);
    case Backend::OpenCL:
      return detail::makeOpenCLHistogrammer(config);
  }
  throw InvalidInput("unknown backend");
}

}  // namespace bovw
