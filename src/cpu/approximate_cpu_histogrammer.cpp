// OpenMPApproximate: at K = 65,536 an exact search costs K x D per descriptor however well it is
// blocked; a vocabulary tree over the words (Nister & Stewenius 2006) costs about `checks` x D. The
// tree is OpenCV FLANN's hierarchical k-means index (Muja & Lowe), built once per vocabulary and kept
// while the vocabulary's fingerprint is unchanged; descriptors are searched in blocks on OpenMP
// threads (FLANN's search keeps its heap per thread).
//
// FLANN's few best words per descriptor are re-ranked with the golden distance (plain float sum in
// feature order, no FMA: this file is compiled with -ffp-contract=off), ties to the lower word: when
// the exact nearest word is among them the answer equals the Serial backend's bit for bit, and
// equal distances among the checked words resolve as on every other backend.
#include "cpu/approximate_cpu_histogrammer.hpp"

#include "cpu/golden_scan.hpp"

#include <opencv2/core.hpp>
#include <opencv2/flann.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

namespace bovw::detail {

namespace {

constexpr int kCandidates = 4;        // FLANN's best words per descriptor that are re-ranked exactly
constexpr int kRowsPerSearch = 256;   // descriptors per FLANN call: one OpenMP work item
// FLANN's defaults for its k-means tree. Chosen over its randomized kd-trees and a branching of 16 on
// SURF of the opencv-doc images at K = 16,384 (2-core machine, busy, 2026-11-23): 128 checks gave recall@1
// 0.92 at 55k descriptors/s here, 0.95 at 15-27k/s with 4 kd-trees, 0.93 at 25k/s with branching 16;
// re-ranking 4 candidates instead of 1 cost no measurable time.
constexpr int kTreeBranching = 32;
constexpr int kTreeIterations = 11;
// FLANN draws its tree's initial centres from cv::theRNG(); a fixed seed makes the tree, and so
// every answer, the same in every run.
constexpr std::uint64_t kTreeSeed = 0x626f7677;  // "bovw"

float goldenDistance(const float* x, const float* word, int d) {
  float sum = 0;
  for (int f = 0; f < d; ++f) {
    const float t = x[f] - word[f];
    sum += t * t;
  }
  return sum;
}

// The FLANN tree of one vocabulary; `words` holds the rows the index points into.
struct WordTree {
  std::uint64_t vocabulary_id = 0;
  std::uint64_t fingerprint = 0;
  cv::Mat words;
  std::unique_ptr<cv::flann::Index> index;
};

class ApproximateCpuHistogrammer final : public CpuBackend {
 public:
  ApproximateCpuHistogrammer(int threads, int checks) : CpuBackend(threads), checks_(checks) {}

  std::string description() const override {
    return "openmp-ann (FLANN k-means tree, " + std::to_string(checks_) + " checks, " +
           std::to_string(threadCount()) + " threads)";
  }

 protected:
  void computeImpl(const DescriptorBatch& batch, const Vocabulary& vocabulary, std::int32_t* assignments,
                   Histograms& histograms, StageTimes& times) override {
    const auto start = std::chrono::steady_clock::now();
    prepareTree(vocabulary);
    const DescriptorsRef x = batch.descriptors();
    const int d = vocabulary.dimension();
    const int candidates = std::min(kCandidates, vocabulary.size());
    const cv::flann::SearchParams search(checks_);
    const std::int64_t blocks = (x.rows() + kRowsPerSearch - 1) / kRowsPerSearch;
#pragma omp parallel for num_threads(threadCount()) schedule(dynamic)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t first = b * kRowsPerSearch;
      const int count = static_cast<int>(std::min<std::int64_t>(kRowsPerSearch, x.rows() - first));
      cv::Mat queries(count, d, CV_32F);  // contiguous, as FLANN wants; x may have a row stride
      for (int r = 0; r < count; ++r) std::copy_n(x.row(first + r).data(), d, queries.ptr<float>(r));
      cv::Mat indices, distances;
      tree_.index->knnSearch(queries, indices, distances, candidates, search);
      for (int r = 0; r < count; ++r) {
        std::int32_t best = -1;
        float best_distance = std::numeric_limits<float>::infinity();
        for (int c = 0; c < candidates; ++c) {
          const std::int32_t word = indices.at<int>(r, c);
          if (word < 0) continue;  // FLANN found fewer than `candidates` words
          const float distance = goldenDistance(queries.ptr<float>(r), tree_.words.ptr<float>(word), d);
          if (best < 0 || distance < best_distance || (distance == best_distance && word < best)) {
            best = word;
            best_distance = distance;
          }
        }
        assignments[first + r] = best;
      }
    }
    countWords(batch, assignments, histograms);
    times.kernel_ms = millisecondsSince(start);
  }

 private:
  // Builds the tree unless this vocabulary, or one with the same contents, has it already.
  void prepareTree(const Vocabulary& vocabulary) {
    if (tree_.index && tree_.vocabulary_id == vocabulary.id()) return;
    const std::uint64_t fingerprint = vocabulary.fingerprint();
    if (tree_.index && tree_.fingerprint == fingerprint) {
      tree_.vocabulary_id = vocabulary.id();
      return;
    }
    const Descriptors& centroids = vocabulary.centroids();
    WordTree tree;
    tree.vocabulary_id = vocabulary.id();
    tree.fingerprint = fingerprint;
    cv::Mat(static_cast<int>(centroids.rows()), static_cast<int>(centroids.cols()), CV_32F,
            const_cast<float*>(centroids.data()))
        .copyTo(tree.words);
    const cv::RNG callers_rng = cv::theRNG();
    cv::theRNG() = cv::RNG(kTreeSeed);
    tree.index = std::make_unique<cv::flann::Index>(tree.words, cv::flann::KMeansIndexParams(kTreeBranching, kTreeIterations),
                                                    cvflann::FLANN_DIST_L2);
    cv::theRNG() = callers_rng;
    tree_ = std::move(tree);
  }

  int checks_;
  WordTree tree_;
};

}  // namespace

std::unique_ptr<Histogrammer> makeApproximateCpuHistogrammer(int threads, int checks) {
  return std::make_unique<ApproximateCpuHistogrammer>(threads, checks);
}

}  // namespace bovw::detail
