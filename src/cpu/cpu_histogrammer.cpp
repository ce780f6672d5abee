// The CPU nearest-word search. It is the golden reference, so each distance is the plain float sum
// of (x_k - c_k)^2 in feature order k = 0..D-1, exactly as a naive loop would compute it (and this
// file is compiled with -ffp-contract=off, so no FMA changes the rounding). It is still fast: the
// SIMD lanes run over words, not features (centroids are kept transposed, D x K), which leaves every
// single distance's summation order untouched; 4 descriptors x 16 words of running sums stay in
// registers across the feature loop; and the block kernel is compiled for AVX-512, AVX2 and the
// baseline, chosen at run time.
#include "cpu/cpu_histogrammer.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace bovw::detail {

namespace {

constexpr int kRows = 4;    // descriptors per block
constexpr int kWords = 16;  // words per block: 4 x 16 running sums fit the vector registers

// Nearest word of 4 descriptors (rows of width d). `words_t` holds the words transposed, D x
// k_padded, with k_padded a multiple of kWords and the padding words +inf (their distance is +inf and
// never wins). Ties go to the lower word: blocks and lanes are scanned in word order and a word
// replaces the best only when strictly nearer.
__attribute__((target_clones("avx512f", "avx2", "default")))
void nearestWordsOfFour(const float* const rows[kRows], int d, const float* words_t, int k_padded,
                        std::int32_t nearest[kRows]) {
  float best[kRows];
  for (int r = 0; r < kRows; ++r) {
    best[r] = std::numeric_limits<float>::infinity();
    nearest[r] = 0;
  }
  // GCC vector extensions make the 4 x 16 running sums explicit values, which the compiler keeps in
  // registers (four zmm, eight ymm); the clones lower them to each target's vector width.
  using Lanes = float __attribute__((vector_size(kWords * sizeof(float))));
  for (int block = 0; block < k_padded; block += kWords) {
    Lanes sum[kRows] = {};
    for (int f = 0; f < d; ++f) {
      Lanes c;
      std::memcpy(&c, words_t + static_cast<std::size_t>(f) * k_padded + block, sizeof(c));
      for (int r = 0; r < kRows; ++r) {
        const Lanes t = rows[r][f] - c;
        sum[r] += t * t;
      }
    }
    for (int r = 0; r < kRows; ++r)
      for (int j = 0; j < kWords; ++j)
        if (sum[r][j] < best[r]) {
          best[r] = sum[r][j];
          nearest[r] = block + j;
        }
  }
}

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
    const int d = vocabulary.dimension();

    // Blocks of 4 descriptors; the last block repeats its final row to fill up (results discarded).
    const std::int64_t blocks = (n + kRows - 1) / kRows;
#pragma omp parallel for num_threads(threadCount()) schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const float* rows[kRows];
      for (int r = 0; r < kRows; ++r) rows[r] = x.row(std::min(b * kRows + r, n - 1)).data();
      std::int32_t nearest[kRows];
      nearestWordsOfFour(rows, d, centroids_t_.data(), padded_words_, nearest);
      for (int r = 0; r < kRows && b * kRows + r < n; ++r) assignments[b * kRows + r] = nearest[r];
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

  // Keeps the transposed, padded words of the last vocabulary, so repeated calls skip the transpose.
  void prepare(const Vocabulary& vocabulary) {
    if (vocabulary.id() == vocabulary_id_) return;
    const auto& c = vocabulary.centroids();
    padded_words_ = static_cast<int>((c.rows() + kWords - 1) / kWords * kWords);
    centroids_t_.assign(static_cast<std::size_t>(c.cols()) * padded_words_, std::numeric_limits<float>::infinity());
    for (Eigen::Index j = 0; j < c.rows(); ++j)
      for (Eigen::Index f = 0; f < c.cols(); ++f)
        centroids_t_[static_cast<std::size_t>(f * padded_words_ + j)] = c(j, f);
    vocabulary_id_ = vocabulary.id();
  }

  int threads_;
  std::uint64_t vocabulary_id_ = 0;
  int padded_words_ = 0;
  std::vector<float> centroids_t_;  // D x padded_words_, padding +inf
};

}  // namespace

std::unique_ptr<Histogrammer> makeCpuHistogrammer(int threads) {
  return std::make_unique<CpuHistogrammer>(threads);
}

}  // namespace bovw::detail
