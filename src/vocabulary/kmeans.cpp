// k-means for vocabularies. Every step is deterministic for a given seed, whatever the backend and
// thread count: sampling uses one seeded generator, every sum over the sample is taken in a fixed
// order, and the two heavy passes (seeding distances, Lloyd's assignment) give the same numbers on
// the CPU and on a device (vocabulary/sample_passes.hpp).
#include "vocabulary/sample_passes.hpp"
#include "vocabulary/vocabulary_tree.hpp"

#include <bovw/error.hpp>
#include <bovw/kmeans.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace bovw {

namespace {

using Clock = std::chrono::steady_clock;

double squaredDistance(const float* a, const float* b, int d) {
  double sum = 0;
  for (int f = 0; f < d; ++f) {
    const double t = static_cast<double>(a[f]) - b[f];
    sum += t * t;
  }
  return sum;
}

// The OpenMP threads of a configuration's `threads` (0: all cores).
int threadCount(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

// Squared distance of every sample row to its assigned word (parallel per row; no reduction here).
std::vector<double> rowDistances(DescriptorsRef x, const Descriptors& words, const std::vector<std::int32_t>& assignment,
                                 int threads) {
  std::vector<double> distances(static_cast<std::size_t>(x.rows()));
  const int d = static_cast<int>(x.cols());
#pragma omp parallel for num_threads(threadCount(threads)) schedule(static)
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    distances[static_cast<std::size_t>(i)] = squaredDistance(x.row(i).data(), &words(assignment[i], 0), d);
  return distances;
}

// The first index whose weight the target falls under, walking the weights in order and taking each
// off the target; rounding can leave the target past the end: then the last index with any weight
// (and an infinite target, so that a walk below it also ends at its last).
template <typename Weight>
std::size_t drawIndex(const std::vector<Weight>& weights, double& target) {
  std::size_t last = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    last = i;
    if (target < weights[i]) return i;
    target -= weights[i];
  }
  target = std::numeric_limits<double>::infinity();
  return last;
}

// k-means++ (Arthur & Vassilvitskii 2007): each next word is a sample row drawn with probability
// proportional to its squared distance to the nearest word chosen so far. The passes keep those
// distances (on the device when they run there) and return their sums per block; the draw walks the
// block sums, then the rows of the one block it lands in.
Descriptors seedPlusPlus(DescriptorsRef x, int k, detail::SamplePasses& passes, std::mt19937_64& rng) {
  const Eigen::Index n = x.rows();
  Descriptors words(k, x.cols());
  Eigen::Index chosen = std::uniform_int_distribution<Eigen::Index>(0, n - 1)(rng);
  for (int w = 0; w < k; ++w) {
    words.row(w) = x.row(chosen);
    if (w + 1 == k) break;
    const std::vector<double>& block_sums = passes.addSeed(chosen);
    const double total = std::accumulate(block_sums.begin(), block_sums.end(), 0.0);
    if (total <= 0) {  // fewer distinct rows than words: any row; duplicates get re-seeded later
      chosen = std::uniform_int_distribution<Eigen::Index>(0, n - 1)(rng);
      continue;
    }
    double target = std::uniform_real_distribution<double>(0.0, total)(rng);
    const std::size_t block = drawIndex(block_sums, target);
    const std::size_t row = drawIndex(passes.blockNearest(static_cast<std::int64_t>(block)), target);
    chosen = static_cast<Eigen::Index>(block) * detail::kSeedBlock + static_cast<Eigen::Index>(row);
  }
  passes.endSeeding();
  return words;
}

// Lloyd's update: each word moves to the mean of its rows, summed in float64 in sample order. The
// rows are grouped by word first (a stable counting sort), so the words can be summed in parallel
// and each sum still adds its rows in the order a serial pass would. An empty word takes the row that
// is currently worst served (largest distance), so no word is wasted; rows are taken in decreasing
// distance order and each at most once.
int updateWords(DescriptorsRef x, const std::vector<std::int32_t>& assignment, const std::vector<double>& distances,
                Descriptors& words, int threads) {
  const int k = static_cast<int>(words.rows());
  std::vector<std::int64_t> start(static_cast<std::size_t>(k) + 1, 0);
  for (const std::int32_t word : assignment) ++start[static_cast<std::size_t>(word) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<Eigen::Index> order(assignment.size());
  std::vector<std::int64_t> next(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < assignment.size(); ++i)
    order[static_cast<std::size_t>(next[static_cast<std::size_t>(assignment[i])]++)] = static_cast<Eigen::Index>(i);
#pragma omp parallel for num_threads(threadCount(threads)) schedule(dynamic, 16)
  for (int w = 0; w < k; ++w) {
    const std::int64_t begin = start[static_cast<std::size_t>(w)];
    const std::int64_t end = start[static_cast<std::size_t>(w) + 1];
    if (begin == end) continue;
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(words.cols());
    for (std::int64_t p = begin; p < end; ++p) sum += x.row(order[static_cast<std::size_t>(p)]).cast<double>();
    words.row(w) = (sum / static_cast<double>(end - begin)).cast<float>();
  }
  std::vector<Eigen::Index> worst;
  int reseeded = 0;
  for (int w = 0; w < k; ++w) {
    if (start[static_cast<std::size_t>(w)] < start[static_cast<std::size_t>(w) + 1]) continue;
    if (worst.empty()) {
      worst.resize(static_cast<std::size_t>(x.rows()));
      std::iota(worst.begin(), worst.end(), 0);
      std::stable_sort(worst.begin(), worst.end(), [&](Eigen::Index a, Eigen::Index b) {
        return distances[static_cast<std::size_t>(a)] > distances[static_cast<std::size_t>(b)];
      });
    }
    words.row(w) = x.row(worst[static_cast<std::size_t>(reseeded)]);
    ++reseeded;
  }
  return reseeded;
}

// The device's passes where it can hold the sample, else the CPU's (which still assign through the
// configured backend, uploading the sample per iteration if that is OpenCL).
std::unique_ptr<detail::SamplePasses> samplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment) {
  if (assignment.backend == Backend::OpenCL)
    if (auto device = detail::makeOpenCLSamplePasses(sample, assignment)) return device;
  return detail::makeCpuSamplePasses(sample, assignment);
}

}  // namespace

double kmeansInertia(DescriptorsRef sample, const Vocabulary& vocabulary, Histogrammer& histogrammer) {
  const auto assignment = histogrammer.assign(sample, vocabulary);
  const auto distances = rowDistances(sample, vocabulary.centroids(), assignment, 0);
  return std::accumulate(distances.begin(), distances.end(), 0.0);
}

Vocabulary trainVocabulary(DescriptorsRef sample, const KMeansOptions& options) {
  const Eigen::Index n = sample.rows();
  if (options.words < 1) throw InvalidInput("k-means: K = " + std::to_string(options.words) + " words; need K >= 1");
  if (options.words > n)
    throw InvalidInput("k-means: K = " + std::to_string(options.words) + " words is larger than the sample (" +
                       std::to_string(n) + " descriptors); use fewer words or more descriptors");
  if (sample.cols() < 1) throw InvalidInput("k-means: descriptors have width 0");
  if (options.max_iterations < 1) throw InvalidInput("k-means: max_iterations must be >= 1");
  for (Eigen::Index i = 0; i < n; ++i)  // row by row: rows are contiguous, columns are strided
    if (!sample.row(i).allFinite()) throw InvalidInput("k-means: sample row " + std::to_string(i) + " contains NaN or Inf");
  if (options.branching != 0) return detail::trainVocabularyTree(sample, options);

  std::mt19937_64 rng(options.seed);
  const auto seeding_start = Clock::now();
  const auto passes = samplePasses(sample, options.assignment);
  Descriptors words = seedPlusPlus(sample, options.words, *passes, rng);
  const double seeding_seconds = std::chrono::duration<double>(Clock::now() - seeding_start).count();
  double previous = std::numeric_limits<double>::infinity();
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    const auto start = Clock::now();
    const Vocabulary current(words, options.descriptor_type);
    const auto assignment = passes->assign(current);
    const auto distances = rowDistances(sample, words, assignment, options.assignment.threads);
    KMeansIteration report;
    report.iteration = iteration;
    report.inertia = std::accumulate(distances.begin(), distances.end(), 0.0);
    report.relative_improvement = std::isinf(previous) ? std::numeric_limits<double>::infinity()
                                                       : (previous - report.inertia) / std::max(previous, 1e-300);
    report.reseeded = updateWords(sample, assignment, distances, words, options.assignment.threads);
    report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    report.seeding_seconds = seeding_seconds;
    report.assignment = passes->description();
    if (options.progress) options.progress(report);
    previous = report.inertia;
    if (report.reseeded == 0 && report.relative_improvement < options.tolerance) break;
  }
  return Vocabulary(std::move(words), options.descriptor_type);
}

}  // namespace bovw
