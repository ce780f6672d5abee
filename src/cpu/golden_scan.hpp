// The golden nearest-word scan, shared by the CPU backends: OpenMP/Serial run it on every
// descriptor, OpenMPTiled on the descriptors its fast path cannot decide. Each distance is the plain
// float sum of (x_k - c_k)^2 in feature order k = 0..D-1, no FMA (golden_scan.cpp is compiled with
// -ffp-contract=off); equal distances go to the lower word. One function, so both backends give the
// same answer by construction.
#pragma once

#include <bovw/descriptors.hpp>
#include <bovw/histogrammer.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

namespace bovw::detail {

constexpr int kGoldenRows = 4;    // descriptors per call of nearestWordsOfFour
constexpr int kGoldenWords = 16;  // words per register block

// The words transposed, D x padded (padded a multiple of kGoldenWords), padding words +inf (their
// distance is +inf and never wins).
struct TransposedWords {
  int dimension = 0;
  int padded = 0;
  std::vector<float> values;
};

TransposedWords transposeWords(const Descriptors& centroids);

// Nearest word of 4 descriptors (each a row of `words.dimension` floats; repeat a row to fill up).
void nearestWordsOfFour(const float* const rows[kGoldenRows], const TransposedWords& words,
                        std::int32_t nearest[kGoldenRows]);

// The golden nearest word of `count` rows of x, 4 at a time on `threads` OpenMP threads:
// nearest[rows[i]] for i < count, or nearest[i] for every row i < count when `rows` is null.
void goldenNearestWords(const DescriptorsRef& x, const std::int64_t* rows, std::int64_t count,
                        const TransposedWords& words, std::int32_t* nearest, int threads);

// Adds each descriptor's word to its image's histogram (the batch's offsets say which image).
void countWords(const DescriptorBatch& batch, const std::int32_t* assignments, Histograms& histograms);

// What the CPU backends share: the OpenMP thread count and the golden layout of the last vocabulary.
class CpuBackend : public Histogrammer {
 protected:
  explicit CpuBackend(int threads) : threads_(threads) {}

  int threadSetting() const { return threads_; }  // as configured: 0 means all cores
  int threadCount() const;                         // the OpenMP threads that setting gives
  // Transposes the words when the vocabulary is not the last one (Vocabulary::id()); true if it did,
  // so that a backend can rebuild its own per-vocabulary data with it.
  bool prepareGolden(const Vocabulary& vocabulary);
  const TransposedWords& goldenWords() const { return words_t_; }
  static double millisecondsSince(std::chrono::steady_clock::time_point start);

 private:
  int threads_;
  std::uint64_t vocabulary_id_ = 0;
  TransposedWords words_t_;
};

}  // namespace bovw::detail
