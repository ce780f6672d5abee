// Histogrammer's public operations: validation and the empty cases live here once; backends
// implement only computeImpl (and src/backends/make_histogrammer.cpp picks one).
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

namespace bovw {

namespace {

void validate(const DescriptorBatch& batch, const Vocabulary& vocabulary) {
  const auto& x = batch.descriptors();
  const std::int64_t n = x.rows();
  // No rows at all may come without a width (OpenCV's empty Mat is 0 x 0); any other width must match.
  if (x.cols() != vocabulary.dimension() && !(n == 0 && x.cols() == 0))
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

}  // namespace bovw

namespace bovw::detail {

ResidentHistograms* residentHistogramsOf(Histogrammer& histogrammer) {
  return histogrammer.resident();
}

}  // namespace bovw::detail
