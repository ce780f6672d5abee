// The two passes of k-means that cost K x N x D: k-means++ seeding's distance updates and Lloyd's
// assignment step. They sit behind one interface so that an OpenCL device keeps the sample resident
// and runs both there (the sample is uploaded once per training, not once per iteration), while the
// CPU runs them in host memory.
//
// Same seed, same vocabulary on every backend and any number of ranks: both implementations compute
// each seeding distance as seedDistance() defines it and weight it as seedWeight() does, an exact
// integer, so the block sums agree whatever order a device adds them in; the device kernel
// (kernels/kmeans_seeding.cl) follows both step for step. Lloyd's assignments are exact on every exact
// backend (golden or re-checked), so identical seeds give identical iterations on all of them
// (openmp-ann, approximate, gives its own).
#pragma once

#include <bovw/descriptors.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/vocabulary.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bovw::detail {

// The seeding distance |x - w|^2 (it only weights a random draw, so it need not be the golden
// distance, only the same everywhere): kSeedLanes float partial sums, lane l adding (x_f - w_f)^2 for
// f = l, l + 8, l + 16, ... in that order, each square rounded before its addition (no FMA); then
// folded as q_l = p_l + p_{l+4}, r_l = q_l + q_{l+2}, distance = r_0 + r_1. Eight lanes let the CPU
// vectorise over the features of a row-major sample, and the device reads its rows as they are.
constexpr int kSeedLanes = 8;

constexpr int kSeedGroup = 256;                            // work-items of one block's reduction
constexpr int kSeedRowsPerItem = 4;                        // rows each work-item adds first
constexpr int kSeedBlock = kSeedGroup * kSeedRowsPerItem;  // rows per block sum

// A row's k-means++ draw weight: its seeding distance times `scale` (a power of two, so exact in
// float64), rounded to the nearest integer, ties to even (the device's convert_long_rte). The caller
// chooses the scale so that no sum of weights overflows (vocabulary/fixed_point.hpp).
inline std::int64_t seedWeight(float distance, double scale) {
  return std::llrint(static_cast<double>(distance) * scale);
}

// The sum of the weights of one block's `count` seeding distances: exact, so any order gives it.
inline std::int64_t seedBlockSum(const float* distances, int count, double scale) {
  std::int64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += seedWeight(distances[i], scale);
  return sum;
}

class SamplePasses {
 public:
  virtual ~SamplePasses() = default;

  // k-means++: nearest[i] = min(nearest[i], seeding distance of row i to `word`) for every row (the
  // first call sets it), then the sum of the rows' seedWeight(nearest) over each block of kSeedBlock
  // rows. `word` has the sample's width; on several ranks it may be another rank's row.
  virtual const std::vector<std::int64_t>& addSeed(const float* word) = 0;
  // nearest[i] for the rows of one block (after the last addSeed).
  virtual std::vector<float> blockNearest(std::int64_t block) = 0;
  // Seeding is over: a device may release what only seeding needed.
  virtual void endSeeding() {}

  // Lloyd: the nearest word of every row (exact, equal to the golden path, on every backend but the
  // approximate openmp-ann, which a caller may choose for the CPU passes).
  virtual std::vector<std::int32_t> assign(const Vocabulary& words) = 0;
  // What runs the passes, for reports: "OpenMP", "opencl ... (sample resident)".
  virtual std::string description() const = 0;
};

// The CPU passes: seeding on `assignment.threads` OpenMP threads (0: all cores), assignment through
// a histogrammer made from `assignment`; seeding weights with `seed_weight_scale` (seedWeight).
std::unique_ptr<SamplePasses> makeCpuSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment,
                                                  double seed_weight_scale);

// The device passes for an OpenCL configuration; null when the sample cannot stay resident on the
// device (it exceeds the memory limit or the largest allocation) or the device lacks float64
// (cl_khr_fp64), in which case training falls back to the CPU passes for seeding and to uploads
// per iteration for the assignment. An empty sample is never resident.
std::unique_ptr<SamplePasses> makeOpenCLSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment,
                                                     double seed_weight_scale);

}  // namespace bovw::detail
