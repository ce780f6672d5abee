// k-means' passes in host memory (sample_passes.hpp). The seeding distance's eight partial sums are
// the eight lanes of one vector, so each row is read once, in place, at the speed of a vectorised
// reduction. This file is compiled with -ffp-contract=off (src/CMakeLists.txt): no FMA may change
// the rounding that the device kernel reproduces.
#include "vocabulary/sample_passes.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace bovw::detail {

namespace {

// seedDistance (sample_passes.hpp) of `count` rows to `word`, folded into their running minima.
__attribute__((target_clones("avx2", "default")))
void foldSeedDistances(const float* rows, std::int64_t stride, int count, int d, const float* word, bool first,
                       float* nearest) {
  using Lanes = float __attribute__((vector_size(kSeedLanes * sizeof(float))));
  const int whole = d / kSeedLanes * kSeedLanes;
  for (int i = 0; i < count; ++i) {
    const float* x = rows + i * stride;
    Lanes p = {};
    for (int f = 0; f < whole; f += kSeedLanes) {
      Lanes a, b;
      std::memcpy(&a, x + f, sizeof(a));
      std::memcpy(&b, word + f, sizeof(b));
      const Lanes t = a - b;
      p += t * t;
    }
    for (int f = whole; f < d; ++f) {
      const float t = x[f] - word[f];
      p[f - whole] += t * t;
    }
    float q[4], r[2];
    for (int l = 0; l < 4; ++l) q[l] = p[l] + p[l + 4];
    for (int l = 0; l < 2; ++l) r[l] = q[l] + q[l + 2];
    const float distance = r[0] + r[1];
    nearest[i] = first || distance < nearest[i] ? distance : nearest[i];
  }
}

class CpuSamplePasses final : public SamplePasses {
 public:
  CpuSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment, double seed_weight_scale)
      : sample_(sample),
        scale_(seed_weight_scale),
        rows_(sample.rows()),
        blocks_((rows_ + kSeedBlock - 1) / kSeedBlock),
        threads_(assignment.threads > 0 ? assignment.threads : omp_get_max_threads()),
        histogrammer_(makeHistogrammer(assignment)),
        block_sums_(static_cast<std::size_t>(blocks_), 0) {}

  const std::vector<std::int64_t>& addSeed(const float* word) override {
    const bool first = nearest_.empty();
    if (first) nearest_.resize(static_cast<std::size_t>(rows_));
    const int d = static_cast<int>(sample_.cols());
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t b = 0; b < blocks_; ++b) {
      float* nearest = nearest_.data() + b * kSeedBlock;
      const int count = blockRows(b);
      foldSeedDistances(sample_.row(b * kSeedBlock).data(), sample_.outerStride(), count, d, word, first, nearest);
      block_sums_[static_cast<std::size_t>(b)] = seedBlockSum(nearest, count, scale_);
    }
    return block_sums_;
  }

  std::vector<float> blockNearest(std::int64_t block) override {
    const auto begin = nearest_.begin() + block * kSeedBlock;
    return std::vector<float>(begin, begin + blockRows(block));
  }

  void endSeeding() override { nearest_ = std::vector<float>(); }

  std::vector<std::int32_t> assign(const Vocabulary& words) override { return histogrammer_->assign(sample_, words); }

  std::string description() const override { return histogrammer_->description(); }

 private:
  int blockRows(std::int64_t block) const {
    return static_cast<int>(std::min<std::int64_t>(kSeedBlock, rows_ - block * kSeedBlock));
  }

  DescriptorsRef sample_;
  double scale_;
  std::int64_t rows_;
  std::int64_t blocks_;
  int threads_;
  std::unique_ptr<Histogrammer> histogrammer_;
  std::vector<float> nearest_;
  std::vector<std::int64_t> block_sums_;
};

}  // namespace

std::unique_ptr<SamplePasses> makeCpuSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment,
                                                  double seed_weight_scale) {
  return std::make_unique<CpuSamplePasses>(sample, assignment, seed_weight_scale);
}

}  // namespace bovw::detail
