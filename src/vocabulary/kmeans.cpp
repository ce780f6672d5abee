// k-means for vocabularies. Every step is deterministic for a given seed and backend: sampling uses
// one seeded generator, and all sums over the sample are taken in a fixed order (per-row values may be
// computed in parallel, their reduction is serial), so thread counts do not change the result.
#include <bovw/error.hpp>
#include <bovw/kmeans.hpp>

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

// Squared distance of every sample row to its assigned word (parallel per row; no reduction here).
std::vector<double> rowDistances(DescriptorsRef x, const Descriptors& words, const std::vector<std::int32_t>& assignment) {
  std::vector<double> distances(static_cast<std::size_t>(x.rows()));
  const int d = static_cast<int>(x.cols());
#pragma omp parallel for schedule(static)
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    distances[static_cast<std::size_t>(i)] = squaredDistance(x.row(i).data(), &words(assignment[i], 0), d);
  return distances;
}

// k-means++ (Arthur & Vassilvitskii 2007): each next word is a sample row drawn with probability
// proportional to its squared distance to the nearest word chosen so far.
Descriptors seedPlusPlus(DescriptorsRef x, int k, std::mt19937_64& rng) {
  const Eigen::Index n = x.rows();
  const int d = static_cast<int>(x.cols());
  Descriptors words(k, d);
  std::vector<double> nearest(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
  Eigen::Index chosen = std::uniform_int_distribution<Eigen::Index>(0, n - 1)(rng);
  for (int w = 0; w < k; ++w) {
    words.row(w) = x.row(chosen);
    if (w + 1 == k) break;
    // K passes over the sample: the cost of exact k-means++ is K x N x D, so each pass uses Eigen's
    // vectorised float reduction (these distances only weight the sampling; no exactness is needed).
    const Eigen::RowVectorXf word = words.row(w);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i)
      nearest[static_cast<std::size_t>(i)] =
          std::min(nearest[static_cast<std::size_t>(i)], static_cast<double>((x.row(i) - word).squaredNorm()));
    const double total = std::accumulate(nearest.begin(), nearest.end(), 0.0);
    if (total <= 0) {  // fewer distinct rows than words: any row; duplicates get re-seeded later
      chosen = std::uniform_int_distribution<Eigen::Index>(0, n - 1)(rng);
      continue;
    }
    double target = std::uniform_real_distribution<double>(0.0, total)(rng);
    chosen = n - 1;
    for (Eigen::Index i = 0; i < n; ++i) {
      target -= nearest[static_cast<std::size_t>(i)];
      if (target < 0) {
        chosen = i;
        break;
      }
    }
  }
  return words;
}

// Lloyd's update: each word moves to the mean of its rows (float64 sums, serial over the sample).
// An empty word takes the row that is currently worst served (largest distance), so no word is
// wasted; rows are taken in decreasing distance order and each at most once.
int updateWords(DescriptorsRef x, const std::vector<std::int32_t>& assignment, const std::vector<double>& distances,
                Descriptors& words) {
  const int k = static_cast<int>(words.rows());
  const int d = static_cast<int>(words.cols());
  // Row-major, so that adding a sample row touches one contiguous row of sums.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> sums =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>::Zero(k, d);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(k), 0);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    sums.row(assignment[i]) += x.row(i).cast<double>();
    ++counts[static_cast<std::size_t>(assignment[i])];
  }
  std::vector<Eigen::Index> worst;
  int reseeded = 0;
  for (int w = 0; w < k; ++w) {
    if (counts[static_cast<std::size_t>(w)] > 0) {
      words.row(w) = (sums.row(w) / static_cast<double>(counts[static_cast<std::size_t>(w)])).cast<float>();
      continue;
    }
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

}  // namespace

double kmeansInertia(DescriptorsRef sample, const Vocabulary& vocabulary, Histogrammer& histogrammer) {
  const auto assignment = histogrammer.assign(sample, vocabulary);
  const auto distances = rowDistances(sample, vocabulary.centroids(), assignment);
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

  std::mt19937_64 rng(options.seed);
  Descriptors words = seedPlusPlus(sample, options.words, rng);
  auto histogrammer = makeHistogrammer(options.assignment);
  double previous = std::numeric_limits<double>::infinity();
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    const auto start = Clock::now();
    const Vocabulary current(words, options.descriptor_type);
    const auto assignment = histogrammer->assign(sample, current);
    const auto distances = rowDistances(sample, words, assignment);
    KMeansIteration report;
    report.iteration = iteration;
    report.inertia = std::accumulate(distances.begin(), distances.end(), 0.0);
    report.relative_improvement = std::isinf(previous) ? std::numeric_limits<double>::infinity()
                                                       : (previous - report.inertia) / std::max(previous, 1e-300);
    report.reseeded = updateWords(sample, assignment, distances, words);
    report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (options.progress) options.progress(report);
    previous = report.inertia;
    if (report.reseeded == 0 && report.relative_improvement < options.tolerance) break;
  }
  return Vocabulary(std::move(words), options.descriptor_type);
}

}  // namespace bovw
