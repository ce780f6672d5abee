// The two passes of k-means that cost K x N x D: k-means++ seeding's distance updates and Lloyd's
// assignment step. They sit behind one interface so that an OpenCL device keeps the sample resident
// and runs both there (the sample is uploaded once per training, not once per iteration), while the
// CPU runs them in host memory.
//
// Same seed, same vocabulary on every backend: both implementations compute each seeding distance
// as seedDistance() defines it and sum the running minima in float64 over blocks of kSeedBlock rows in
// the one order seedBlockSum() defines; the device kernel (kernels/kmeans_seeding.cl) follows both
// step for step. Lloyd's assignments are exact on every exact backend (golden or re-checked), so
// identical seeds give identical iterations on all of them (openmp-ann, approximate, gives its own).
#pragma once

#include <bovw/descriptors.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/vocabulary.hpp>

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

// The float64 sum of one block's values (count <= kSeedBlock; missing rows count as 0): item t first
// adds rows t, t + 256, t + 512, t + 768 in that order, then the 256 partial sums are folded pairwise
// (p[t] += p[t + s] for s = 128, 64, ..., 1), exactly as the kernel's work-group does.
inline double seedBlockSum(const float* values, int count) {
  double partial[kSeedGroup];
  for (int t = 0; t < kSeedGroup; ++t) {
    double sum = 0.0;
    for (int r = 0; r < kSeedRowsPerItem; ++r) {
      const int i = r * kSeedGroup + t;
      sum += i < count ? static_cast<double>(values[i]) : 0.0;
    }
    partial[t] = sum;
  }
  for (int s = kSeedGroup / 2; s > 0; s /= 2)
    for (int t = 0; t < s; ++t) partial[t] += partial[t + s];
  return partial[0];
}

class SamplePasses {
 public:
  virtual ~SamplePasses() = default;

  // k-means++: nearest[i] = min(nearest[i], seeding distance of row i to row `chosen`) for every row
  // (the first call sets it), then the float64 sum of nearest over each block of kSeedBlock rows.
  virtual const std::vector<double>& addSeed(std::int64_t chosen) = 0;
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
// a histogrammer made from `assignment`.
std::unique_ptr<SamplePasses> makeCpuSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment);

// The device passes for an OpenCL configuration; null when the sample cannot stay resident on the
// device (it exceeds the memory limit or the largest allocation) or the device lacks float64
// (cl_khr_fp64), in which case training falls back to the CPU passes for seeding and to uploads
// per iteration for the assignment.
std::unique_ptr<SamplePasses> makeOpenCLSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment);

}  // namespace bovw::detail
