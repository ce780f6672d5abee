// The golden scan (golden_scan.hpp). It is still fast: the SIMD lanes run over words, not features
// (the words are kept transposed, D x K), which leaves every single distance's summation order
// untouched; 4 descriptors x 16 words of running sums stay in registers across the feature loop; and
// the block kernel is compiled for AVX-512, AVX2 and the baseline, chosen at run time. This file is
// compiled with -ffp-contract=off (src/CMakeLists.txt), so no FMA changes the rounding.
#include "cpu/golden_scan.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace bovw::detail {

TransposedWords transposeWords(const Descriptors& c) {
  TransposedWords words;
  words.dimension = static_cast<int>(c.cols());
  words.padded = static_cast<int>((c.rows() + kGoldenWords - 1) / kGoldenWords * kGoldenWords);
  words.values.assign(static_cast<std::size_t>(c.cols()) * words.padded, std::numeric_limits<float>::infinity());
  for (Eigen::Index j = 0; j < c.rows(); ++j)
    for (Eigen::Index f = 0; f < c.cols(); ++f)
      words.values[static_cast<std::size_t>(f * words.padded + j)] = c(j, f);
  return words;
}

// Ties go to the lower word: blocks and lanes are scanned in word order and a word replaces the best
// only when strictly nearer.
__attribute__((target_clones("avx512f", "avx2", "default")))
void nearestWordsOfFour(const float* const rows[kGoldenRows], const TransposedWords& words,
                        std::int32_t nearest[kGoldenRows]) {
  const int d = words.dimension;
  const int k_padded = words.padded;
  const float* words_t = words.values.data();
  float best[kGoldenRows];
  for (int r = 0; r < kGoldenRows; ++r) {
    best[r] = std::numeric_limits<float>::infinity();
    nearest[r] = 0;
  }
  // GCC vector extensions make the 4 x 16 running sums explicit values, which the compiler keeps in
  // registers (four zmm, eight ymm); the clones lower them to each target's vector width.
  using Lanes = float __attribute__((vector_size(kGoldenWords * sizeof(float))));
  for (int block = 0; block < k_padded; block += kGoldenWords) {
    Lanes sum[kGoldenRows] = {};
    for (int f = 0; f < d; ++f) {
      Lanes c;
      std::memcpy(&c, words_t + static_cast<std::size_t>(f) * k_padded + block, sizeof(c));
      for (int r = 0; r < kGoldenRows; ++r) {
        const Lanes t = rows[r][f] - c;
        sum[r] += t * t;
      }
    }
    for (int r = 0; r < kGoldenRows; ++r)
      for (int j = 0; j < kGoldenWords; ++j)
        if (sum[r][j] < best[r]) {
          best[r] = sum[r][j];
          nearest[r] = block + j;
        }
  }
}

void goldenNearestWords(const DescriptorsRef& x, const std::int64_t* rows, std::int64_t count,
                        const TransposedWords& words, std::int32_t* nearest, int threads) {
  const auto row = [rows](std::int64_t i) { return rows ? rows[i] : i; };
  // Blocks of 4 rows; the last block repeats its final row to fill up (results discarded).
  const std::int64_t blocks = (count + kGoldenRows - 1) / kGoldenRows;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const float* block[kGoldenRows];
    for (int r = 0; r < kGoldenRows; ++r) block[r] = x.row(row(std::min(b * kGoldenRows + r, count - 1))).data();
    std::int32_t found[kGoldenRows];
    nearestWordsOfFour(block, words, found);
    for (int r = 0; r < kGoldenRows && b * kGoldenRows + r < count; ++r) nearest[row(b * kGoldenRows + r)] = found[r];
  }
}

void countWords(const DescriptorBatch& batch, const std::int32_t* assignments, Histograms& histograms) {
  const auto& offsets = batch.offsets();
  for (std::int64_t image = 0; image < batch.imageCount(); ++image)
    for (std::int64_t i = offsets[image]; i < offsets[image + 1]; ++i) ++histograms(image, assignments[i]);
}

int CpuBackend::threadCount() const { return threads_ > 0 ? threads_ : omp_get_max_threads(); }

bool CpuBackend::prepareGolden(const Vocabulary& vocabulary) {
  if (vocabulary.id() == vocabulary_id_) return false;
  words_t_ = transposeWords(vocabulary.centroids());
  vocabulary_id_ = vocabulary.id();
  return true;
}

double CpuBackend::millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace bovw::detail
