// The CPU nearest-word search. It is the golden reference, so each distance is the plain float sum
// of (x_k - c_k)^2 in feature order k = 0..D-1, exactly as a naive loop would compute it. It is
// still vectorised: the SIMD lanes run over words, not features (centroids are kept transposed,
// D x K), which leaves every single distance's summation order untouched.
#include "cpu/cpu_histogrammer.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <vector>

namespace bovw::detail {

namespace {

constexpr int kWordBlock = 512;  // words per block: the block's distances stay in L1

class CpuHistogrammer final : public Histogrammer {
 public:
  explicit CpuHistogrammer(int threads) : threads_(threads) {}

  std::string description() const override {
    return threads_ == 1 ? "serial (1 thread)"
                         : "openmp (" + std::to_string(threadCount()) + " threads)";
  }

 protected:
  void computeImpl(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                   std::int32_t* assignments, Histograms& histograms, StageTimes& times) override {
    const auto start = std::chrono::steady_clock::now();
    prepare(vocabulary);
    const auto& x = batch.descriptors();
    const std::int64_t n = x.rows();
    const int k_words = vocabulary.size();
    const int d = vocabulary.dimension();

#pragma omp parallel num_threads(threadCount())
    {
      std::vector<float> dist(kWordBlock);
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) {
        float best = std::numeric_limits<float>::infinity();
        int best_word = 0;
        for (int block = 0; block < k_words; block += kWordBlock) {
          const int width = std::min(kWordBlock, k_words - block);
          std::fill(dist.begin(), dist.begin() + width, 0.0f);
          for (int f = 0; f < d; ++f) {
            const float xf = x(i, f);
            const float* c = centroids_t_.data() + static_cast<std::size_t>(f) * k_words + block;
            for (int j = 0; j < width; ++j) {
              const float t = xf - c[j];
              dist[j] += t * t;
            }
          }
          // Ties go to the lower word: scan in order, replace only on strictly smaller.
          for (int j = 0; j < width; ++j) {
            if (dist[j] < best) {
              best = dist[j];
              best_word = block + j;
            }
          }
        }
        assignments[i] = best_word;
      }
    }

    const auto& offsets = batch.offsets();
    for (std::int64_t image = 0; image < batch.imageCount(); ++image)
      for (std::int64_t i = offsets[image]; i < offsets[image + 1]; ++i)
        ++histograms(image, assignments[i]);

    times.kernel_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  int threadCount() const { return threads_ > 0 ? threads_ : omp_get_max_threads(); }

  // Keeps the transposed words of the last vocabulary, so repeated calls skip the transpose.
  void prepare(const Vocabulary& vocabulary) {
    if (vocabulary.id() == vocabulary_id_) return;
    const auto& c = vocabulary.centroids();
    centroids_t_.resize(static_cast<std::size_t>(c.size()));
    for (Eigen::Index j = 0; j < c.rows(); ++j)
      for (Eigen::Index f = 0; f < c.cols(); ++f)
        centroids_t_[static_cast<std::size_t>(f * c.rows() + j)] = c(j, f);
    vocabulary_id_ = vocabulary.id();
  }

  int threads_;
  std::uint64_t vocabulary_id_ = 0;
  std::vector<float> centroids_t_;  // D x K
};

}  // namespace

std::unique_ptr<Histogrammer> makeCpuHistogrammer(int threads) {
  return std::make_unique<CpuHistogrammer>(threads);
}

}  // namespace bovw::detail
