// k-means for vocabularies, on one process or on several ranks that each hold a part of the sample.
// Every step is deterministic for a given seed, whatever the backend, thread count or number of
// ranks: every rank draws from the same seeded generator, every sum that steers training is an exact
// fixed-point sum (vocabulary/fixed_point.hpp; integer sums do not depend on their order), and the
// two heavy passes (seeding distances, Lloyd's assignment) give the same numbers on the CPU and on a
// device (vocabulary/sample_passes.hpp). Across ranks each iteration exchanges one allreduce of the
// per-word sums and counts; each k-means++ word, one allreduce of R weights and one broadcast of the
// chosen row (docs/SCALING.md).
#include "distributed/rank_message.hpp"
#include "vocabulary/fixed_point.hpp"
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
// off the target (0 <= target < the weights' sum, so one always does).
std::size_t drawIndex(const std::vector<std::int64_t>& weights, std::int64_t& target) {
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (target < weights[i]) return i;
    target -= weights[i];
  }
  throw Error("k-means++: draw target beyond the weights' sum");  // unreachable: integer sums are exact
}

// The sample as the ranks hold it: rank r has global rows [start[r], start[r + 1]), so the global
// order is rank order, then local order.
struct SampleLayout {
  Communicator& ranks;
  std::vector<std::int64_t> start;  // size() + 1 entries
  std::int64_t total() const { return start.back(); }
  std::int64_t first() const { return start[static_cast<std::size_t>(ranks.rank())]; }
  int owner(std::int64_t global) const {
    return static_cast<int>(std::upper_bound(start.begin(), start.end(), global) - start.begin()) - 1;
  }
};

SampleLayout layoutOf(Communicator& ranks, std::int64_t local_rows) {
  const std::vector<std::int64_t> rows = valuesOfRanks(ranks, local_rows);
  SampleLayout layout{ranks, std::vector<std::int64_t>(rows.size() + 1, 0)};
  std::partial_sum(rows.begin(), rows.end(), layout.start.begin() + 1);
  return layout;
}

// Row `local` of rank `owner`'s sample, on every rank (the owner broadcasts it).
Eigen::RowVectorXf shareRow(const SampleLayout& layout, DescriptorsRef x, int owner, std::int64_t local) {
  Bytes bytes;
  if (layout.ranks.rank() == owner)
    bytes = detail::writeMessage([&](detail::ByteWriter& out) { out.array(x.row(local).data(), x.cols()); });
  layout.ranks.broadcast(bytes, owner);
  Eigen::RowVectorXf row(x.cols());
  detail::ByteReader in = detail::messageReader(bytes, "rank " + std::to_string(owner) + "'s seed row");
  in.array(row.data(), static_cast<std::size_t>(row.size()), "a seed row");
  detail::expectMessageEnd(in);
  return row;
}

// Global row `global` of the sample, on every rank.
Eigen::RowVectorXf shareGlobalRow(const SampleLayout& layout, DescriptorsRef x, std::int64_t global) {
  const int owner = layout.owner(global);
  return shareRow(layout, x, owner, global - layout.start[static_cast<std::size_t>(owner)]);
}

// k-means++ (Arthur & Vassilvitskii 2007): each next word is a sample row drawn with probability
// proportional to its squared distance to the nearest word chosen so far (its integer weight). The
// passes keep those distances (on the device when they run there) and return each block's weight;
// the draw walks the ranks' totals, then the blocks and rows of the one rank it lands in: the same
// row a walk over the whole sample in global order would find.
Descriptors seedPlusPlus(DescriptorsRef x, int k, detail::SamplePasses& passes, double weight_scale,
                         const SampleLayout& layout, std::mt19937_64& rng) {
  Communicator& ranks = layout.ranks;
  Descriptors words(k, x.cols());
  auto uniformRow = [&] { return std::uniform_int_distribution<std::int64_t>(0, layout.total() - 1)(rng); };
  words.row(0) = shareGlobalRow(layout, x, uniformRow());
  for (int w = 1; w < k; ++w) {
    const std::vector<std::int64_t>& block_sums = passes.addSeed(words.row(w - 1).data());
    const std::vector<std::int64_t> rank_totals =
        valuesOfRanks(ranks, std::accumulate(block_sums.begin(), block_sums.end(), std::int64_t{0}));
    const std::int64_t total = std::accumulate(rank_totals.begin(), rank_totals.end(), std::int64_t{0});
    if (total <= 0) {  // fewer distinct rows than words: any row; duplicates get re-seeded later
      words.row(w) = shareGlobalRow(layout, x, uniformRow());
      continue;
    }
    std::int64_t target = std::uniform_int_distribution<std::int64_t>(0, total - 1)(rng);
    const int owner = static_cast<int>(drawIndex(rank_totals, target));
    std::int64_t local = -1;
    if (ranks.rank() == owner) {
      const std::size_t block = drawIndex(block_sums, target);
      const std::vector<float> nearest = passes.blockNearest(static_cast<std::int64_t>(block));
      std::vector<std::int64_t> weights(nearest.size());
      for (std::size_t i = 0; i < nearest.size(); ++i) weights[i] = detail::seedWeight(nearest[i], weight_scale);
      local = static_cast<std::int64_t>(block) * detail::kSeedBlock + static_cast<std::int64_t>(drawIndex(weights, target));
    }
    words.row(w) = shareRow(layout, x, owner, local);
  }
  passes.endSeeding();
  return words;
}

// The `count` rows that are worst served (largest distance to their word; ties: lower global row
// first) over all ranks, on every rank: each rank offers its own worst `count`, all see all offers.
// Rows travel as rank messages (distributed/rank_message.hpp), as every exchange between ranks does.
Descriptors worstRows(DescriptorsRef x, const std::vector<double>& distances, const SampleLayout& layout, int count) {
  struct Offer {
    double distance;
    std::int64_t row;
  };
  std::vector<Eigen::Index> order(static_cast<std::size_t>(x.rows()));
  std::iota(order.begin(), order.end(), 0);
  const auto by_badness = [](const Offer& a, const Offer& b) {
    return a.distance != b.distance ? a.distance > b.distance : a.row < b.row;
  };
  const std::size_t offered = std::min<std::size_t>(order.size(), static_cast<std::size_t>(count));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(offered), order.end(),
                    [&](Eigen::Index a, Eigen::Index b) {
                      return by_badness({distances[static_cast<std::size_t>(a)], a}, {distances[static_cast<std::size_t>(b)], b});
                    });
  const int d = static_cast<int>(x.cols());
  const Bytes mine = detail::writeMessage([&](detail::ByteWriter& out) {
    out.u64(offered);
    for (std::size_t i = 0; i < offered; ++i) {
      out.f64(distances[static_cast<std::size_t>(order[i])]);
      out.number<std::int64_t>(layout.first() + order[i]);
      out.array(x.row(order[i]).data(), static_cast<std::size_t>(d));
    }
  });
  struct Candidate {
    Offer offer;
    Eigen::RowVectorXf row;
  };
  std::vector<Candidate> candidates;
  const std::vector<Bytes> all = layout.ranks.allGather(mine);
  for (std::size_t r = 0; r < all.size(); ++r) {
    detail::ByteReader in = detail::messageReader(all[r], "rank " + std::to_string(r) + "'s worst rows");
    const std::size_t offers = detail::readCount(in, 16 + sizeof(float) * static_cast<std::size_t>(d), "the offers");
    for (std::size_t i = 0; i < offers; ++i) {
      Candidate c{{in.f64("a distance"), in.number<std::int64_t>("a row")}, Eigen::RowVectorXf(d)};
      in.array(c.row.data(), static_cast<std::size_t>(d), "a row");
      candidates.push_back(std::move(c));
    }
    detail::expectMessageEnd(in);
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](const Candidate& a, const Candidate& b) { return by_badness(a.offer, b.offer); });
  Descriptors rows(count, d);
  for (int i = 0; i < count; ++i) rows.row(i) = candidates[static_cast<std::size_t>(i)].row;
  return rows;
}

// The local rows grouped by word: rows order[start[w]] .. order[start[w + 1] - 1] are word w's. A
// counting sort in parallel: each part of the rows is counted, then placed, by its own thread (the
// order within a word does not matter: the sums over it are exact).
struct RowsByWord {
  std::vector<std::int64_t> start;  // K + 1 entries
  std::vector<Eigen::Index> order;
};

RowsByWord groupByWord(const std::vector<std::int32_t>& assignment, int k, int threads) {
  const auto n = static_cast<std::int64_t>(assignment.size());
  // Parts of at least 65,536 rows, and at most ~4 M counters in all (large K).
  const std::int64_t most = std::max<std::int64_t>(1, std::min<std::int64_t>(n / 65536, (std::int64_t{1} << 22) / k));
  const int parts = static_cast<int>(std::min<std::int64_t>(threadCount(threads), most));
  const auto first = [&](int part) { return n * part / parts; };
  std::vector<std::int64_t> next(static_cast<std::size_t>(parts) * k, 0);  // [part][word]: count, then next slot
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int p = 0; p < parts; ++p)
    for (std::int64_t i = first(p); i < first(p + 1); ++i)
      ++next[static_cast<std::size_t>(p) * k + static_cast<std::size_t>(assignment[static_cast<std::size_t>(i)])];
  RowsByWord groups{std::vector<std::int64_t>(static_cast<std::size_t>(k) + 1, 0),
                    std::vector<Eigen::Index>(static_cast<std::size_t>(n))};
  std::int64_t slot = 0;
  for (int w = 0; w < k; ++w) {
    groups.start[static_cast<std::size_t>(w)] = slot;
    for (int p = 0; p < parts; ++p) {
      std::int64_t& counter = next[static_cast<std::size_t>(p) * k + static_cast<std::size_t>(w)];
      const std::int64_t count = counter;
      counter = slot;
      slot += count;
    }
  }
  groups.start[static_cast<std::size_t>(k)] = slot;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int p = 0; p < parts; ++p)
    for (std::int64_t i = first(p); i < first(p + 1); ++i)
      groups.order[static_cast<std::size_t>(
          next[static_cast<std::size_t>(p) * k + static_cast<std::size_t>(assignment[static_cast<std::size_t>(i)])]++)] = i;
  return groups;
}

struct LloydUpdate {
  double inertia = 0;  // of the assignment the update started from
  int reseeded = 0;
  double exchange_seconds = 0;  // the allreduce
};

// Lloyd's update: each word moves to the mean of its rows over all ranks, from exact fixed-point
// sums (one allreduce of K x D sums, K counts and the inertia). One pass over the rows, grouped by
// word so that the words are summed in parallel, adds each row to its word's sums and its squared
// distance to its word to the inertia. An empty word takes the row that is currently worst served
// (largest distance) over all ranks, so no word is wasted; rows are taken in decreasing distance
// order and each at most once.
LloydUpdate updateWords(DescriptorsRef x, const std::vector<std::int32_t>& assignment, const detail::FixedPoint& values,
                        const detail::FixedPoint& inertia, const SampleLayout& layout, Descriptors& words, int threads) {
  const int k = static_cast<int>(words.rows());
  const int d = static_cast<int>(words.cols());
  const RowsByWord groups = groupByWord(assignment, k, threads);

  // [K x D sums | K counts | inertia], all fixed point but the counts.
  const std::size_t counts_at = static_cast<std::size_t>(k) * d;
  std::vector<std::int64_t> reduced(counts_at + static_cast<std::size_t>(k) + 1, 0);
  std::int64_t inertia_sum = 0;  // integers: any order, so any thread split, gives the same sum
#pragma omp parallel for num_threads(threadCount(threads)) schedule(dynamic, 16) reduction(+ : inertia_sum)
  for (int w = 0; w < k; ++w) {
    std::int64_t* sum = reduced.data() + static_cast<std::size_t>(w) * d;
    const std::int64_t begin = groups.start[static_cast<std::size_t>(w)];
    const std::int64_t end = groups.start[static_cast<std::size_t>(w) + 1];
    for (std::int64_t p = begin; p < end; ++p) {
      const float* row = x.row(groups.order[static_cast<std::size_t>(p)]).data();
      for (int f = 0; f < d; ++f) sum[f] += values.toFixed(row[f]);
      inertia_sum += inertia.toFixed(squaredDistance(row, &words(w, 0), d));
    }
    reduced[counts_at + static_cast<std::size_t>(w)] = end - begin;
  }
  reduced.back() = inertia_sum;
  LloydUpdate update;
  const auto exchange_start = Clock::now();
  layout.ranks.sum(reduced.data(), reduced.size());
  update.exchange_seconds = std::chrono::duration<double>(Clock::now() - exchange_start).count();
  update.inertia = inertia.toDouble(static_cast<double>(reduced.back()));

  std::vector<int> empty;
  for (int w = 0; w < k; ++w)
    if (reduced[counts_at + static_cast<std::size_t>(w)] == 0) empty.push_back(w);
  // The worst-served rows are measured against the words this update started from.
  const Descriptors worst =
      empty.empty() ? Descriptors()
                    : worstRows(x, rowDistances(x, words, assignment, threads), layout, static_cast<int>(empty.size()));
  for (int w = 0; w < k; ++w) {
    const std::int64_t count = reduced[counts_at + static_cast<std::size_t>(w)];
    for (int f = 0; count > 0 && f < d; ++f)
      words(w, f) = static_cast<float>(values.toDouble(static_cast<double>(reduced[static_cast<std::size_t>(w) * d + f]) /
                                                       static_cast<double>(count)));
  }
  for (std::size_t i = 0; i < empty.size(); ++i) words.row(empty[i]) = worst.row(static_cast<Eigen::Index>(i));
  update.reseeded = static_cast<int>(empty.size());
  return update;
}

// The device's passes where it can hold the sample, else the CPU's (which still assign through the
// configured backend, uploading the sample per iteration if that is OpenCL).
std::unique_ptr<detail::SamplePasses> samplePasses(DescriptorsRef sample, const HistogrammerConfig& configured,
                                                   double seed_weight_scale) {
  const HistogrammerConfig assignment = withResolvedBackend(configured);  // Auto: the GPU where there is one
  if (assignment.backend == Backend::OpenCL)
    if (auto device = detail::makeOpenCLSamplePasses(sample, assignment, seed_weight_scale)) return device;
  return detail::makeCpuSamplePasses(sample, assignment, seed_weight_scale);
}

// Beyond this a squared distance could overflow a float (the seeding distances are floats).
constexpr double kLargestValue = 1e18;

// The first problem of this rank's rows (global row numbers), or "".
std::string sampleProblem(DescriptorsRef sample, std::int64_t first_row) {
  for (Eigen::Index i = 0; i < sample.rows(); ++i)  // row by row: rows are contiguous, columns are strided
    if (!sample.row(i).allFinite() || sample.row(i).cwiseAbs().maxCoeff() > kLargestValue)
      return "k-means: sample row " + std::to_string(first_row + i) + " contains NaN, Inf or a value beyond +-1e18";
  return "";
}

// The descriptor width all ranks that hold rows share (a rank without rows has none); throws on
// every rank alike if they differ.
Eigen::Index commonWidth(Communicator& ranks, DescriptorsRef sample) {
  const std::vector<std::int64_t> widths = valuesOfRanks(ranks, sample.rows() ? sample.cols() : -1);
  std::int64_t width = -1;
  for (std::size_t r = 0; r < widths.size(); ++r) {
    if (widths[r] < 0) continue;
    if (width >= 0 && widths[r] != width)
      throw InvalidInput("k-means: the ranks hold descriptors of different widths (" + std::to_string(width) + " and " +
                         std::to_string(widths[r]) + " on rank " + std::to_string(r) + ")");
    width = widths[r];
  }
  return width >= 0 ? static_cast<Eigen::Index>(width) : sample.cols();
}

}  // namespace

double kmeansInertia(DescriptorsRef sample, const Vocabulary& vocabulary, Histogrammer& histogrammer) {
  const auto assignment = histogrammer.assign(sample, vocabulary);
  const auto distances = rowDistances(sample, vocabulary.centroids(), assignment, 0);
  return std::accumulate(distances.begin(), distances.end(), 0.0);
}

Vocabulary trainVocabulary(DescriptorsRef sample, const KMeansOptions& options) {
  return trainVocabulary(sample, options, singleProcess());
}

Vocabulary trainVocabulary(DescriptorsRef sample, const KMeansOptions& options, Communicator& ranks) {
  // Every check fails alike on every rank: each depends on the options or on collective values only.
  if (options.words < 1) throw InvalidInput("k-means: K = " + std::to_string(options.words) + " words; need K >= 1");
  if (options.branching != 0 && ranks.size() > 1)
    throw InvalidInput("k-means: a vocabulary tree (branching " + std::to_string(options.branching) +
                       ") trains in one process; train it without MPI, or train flat k-means on the ranks");
  const SampleLayout layout = layoutOf(ranks, sample.rows());
  const Eigen::Index width = commonWidth(ranks, sample);
  if (options.words > layout.total())
    throw InvalidInput("k-means: K = " + std::to_string(options.words) + " words is larger than the sample (" +
                       std::to_string(layout.total()) + " descriptors); use fewer words or more descriptors");
  if (width < 1) throw InvalidInput("k-means: descriptors have width 0");
  if (options.max_iterations < 1) throw InvalidInput("k-means: max_iterations must be >= 1");
  const std::string problem = sampleProblem(sample, layout.first());
  if (!allRanksAgree(ranks, problem.empty()))
    throw InvalidInput(problem.empty() ? "k-means: another rank's sample has a bad value (that rank names the row)"
                                       : problem);
  if (options.branching != 0) return detail::trainVocabularyTree(sample, options);

  // Fixed-point scales for every sum: the descriptors' values, and squared distances (at most
  // D (2 max|x|)^2 between points of the sample's bounding box, where the words also lie).
  double magnitude = sample.size() ? static_cast<double>(sample.cwiseAbs().maxCoeff()) : 0.0;
  ranks.max(&magnitude, 1);
  const auto values = detail::FixedPoint::forSums(magnitude, layout.total());
  const auto distances = detail::FixedPoint::forSums(static_cast<double>(width) * 4 * magnitude * magnitude, layout.total());

  std::mt19937_64 rng(options.seed);  // the same draws on every rank
  const auto seeding_start = Clock::now();
  const auto passes = samplePasses(sample, options.assignment, distances.scale());
  Descriptors words = seedPlusPlus(sample, options.words, *passes, distances.scale(), layout, rng);
  const double seeding_seconds = std::chrono::duration<double>(Clock::now() - seeding_start).count();
  double previous = std::numeric_limits<double>::infinity();
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    const auto start = Clock::now();
    const Vocabulary current(words, options.descriptor_type);
    const auto assignment = passes->assign(current);
    const double assign_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const LloydUpdate update = updateWords(sample, assignment, values, distances, layout, words, options.assignment.threads);
    KMeansIteration report;
    report.iteration = iteration;
    report.inertia = update.inertia;
    report.relative_improvement = std::isinf(previous) ? std::numeric_limits<double>::infinity()
                                                       : (previous - report.inertia) / std::max(previous, 1e-300);
    report.reseeded = update.reseeded;
    report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    report.assign_seconds = assign_seconds;
    report.exchange_seconds = update.exchange_seconds;
    report.seeding_seconds = seeding_seconds;
    report.assignment = passes->description();
    if (options.progress) options.progress(report);
    previous = report.inertia;
    if (report.reseeded == 0 && report.relative_improvement < options.tolerance) break;
  }
  return Vocabulary(std::move(words), options.descriptor_type);
}

}  // namespace bovw
