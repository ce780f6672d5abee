// Hierarchical k-means (Nister & Stewenius 2006): a small flat k-means splits the sample, another
// splits each part, level by level, until every node has one leaf to make. At K = 65,536 with b = 16
// each descriptor meets 16 words per level (64 in all) instead of 65,536. Every node's clustering is
// trainVocabulary's flat k-means; this file only routes descriptors down and shares out the leaves.
#include "vocabulary/vocabulary_tree.hpp"

#include <bovw/error.hpp>

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <iterator>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

namespace bovw::detail {

namespace {

using Path = std::vector<int>;  // child indices from the root

// A node still to split: the sample rows that reached it (ascending) and the leaves it must make.
struct Node {
  Path path;
  std::vector<Eigen::Index> rows;
  int leaves = 0;
  unsigned long long seed = 0;
};

struct Leaf {
  Path path;
  Eigen::RowVectorXf word;
};

// Nodes with fewer descriptors than this run their k-means on one thread each, side by side: most
// nodes of a deep tree are small (K = 65,536 from 327,680 descriptors: 4,096 nodes of ~80 at the last
// split), and their k-means are too short for OpenMP to pay off within one (thread start-ups cost more
// than the work). Larger nodes run one at a time on all threads.
constexpr std::size_t kSharedNodeRows = 32768;

// Small nodes train side by side: their progress reports are handed over one at a time.
std::mutex& progressMutex() {
  static std::mutex mutex;
  return mutex;
}

// What splitting a node gives: children still to split, and children that are leaves already.
struct Split {
  std::vector<Node> children;
  std::vector<Leaf> leaves;
};

// A child's k-means seed: SplitMix64's finaliser of the parent's seed and the child's index, so that
// siblings, and parent and child, draw unrelated seedings.
unsigned long long childSeed(unsigned long long parent, int child) {
  std::uint64_t z = parent + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(child + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string pathText(const Path& path) {
  std::string text;
  for (int child : path) text += (text.empty() ? "" : ".") + std::to_string(child);
  return text;
}

Path childPath(const Path& parent, int child) {
  Path path = parent;
  path.push_back(child);
  return path;
}

Descriptors gather(DescriptorsRef sample, const std::vector<Eigen::Index>& rows) {
  Descriptors x(static_cast<Eigen::Index>(rows.size()), sample.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) x.row(static_cast<Eigen::Index>(i)) = sample.row(rows[i]);
  return x;
}

// The float64 mean of the rows, summed in sample order (as Lloyd's update sums), rounded to float.
Eigen::RowVectorXf meanOf(DescriptorsRef sample, const std::vector<Eigen::Index>& rows) {
  Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(sample.cols());
  for (Eigen::Index row : rows) sum += sample.row(row).cast<double>();
  return (sum / static_cast<double>(rows.size())).cast<float>();
}

// `leaves` shared among children of the given sizes: as evenly as possible (the first children take
// the remainder), but never more than a child's descriptors; what that cap leaves over goes, one at a
// time in child order, to the children that still have room. Needs sum(sizes) >= leaves >= sizes.size().
std::vector<int> shareLeaves(const std::vector<std::size_t>& sizes, int leaves) {
  const int children = static_cast<int>(sizes.size());
  std::vector<int> share(sizes.size());
  int left = leaves;
  for (int c = 0; c < children; ++c) {
    const int even = leaves / children + (c < leaves % children ? 1 : 0);
    share[c] = static_cast<int>(std::min<std::size_t>(sizes[c], static_cast<std::size_t>(even)));
    left -= share[c];
  }
  while (left > 0)
    for (int c = 0; c < children && left > 0; ++c)
      if (static_cast<std::size_t>(share[c]) < sizes[c]) ++share[c], --left;
  return share;
}

// Splits one node: its k-means, its descriptors sent to their nearest word, its leaves shared out.
// Children with one leaf become leaves at once.
Split split(DescriptorsRef sample, const Node& node, const KMeansOptions& options) {
  Split result;
  const Descriptors x = gather(sample, node.rows);
  KMeansOptions flat = options;
  flat.branching = 0;
  flat.words = std::min(options.branching, node.leaves);
  flat.seed = node.seed;
  if (options.progress)
    flat.progress = [&](const KMeansIteration& iteration) {
      KMeansIteration report = iteration;
      report.node = pathText(node.path);
      const std::lock_guard<std::mutex> one_report_at_a_time(progressMutex());
      options.progress(report);
    };
  const Vocabulary centres = trainVocabulary(x, flat);
  const std::vector<std::int32_t> nearest = makeHistogrammer(options.assignment)->assign(x, centres);
  std::vector<std::vector<Eigen::Index>> children(static_cast<std::size_t>(flat.words));
  for (std::size_t i = 0; i < nearest.size(); ++i) children[static_cast<std::size_t>(nearest[i])].push_back(node.rows[i]);
  children.erase(std::remove_if(children.begin(), children.end(), [](const auto& rows) { return rows.empty(); }),
                 children.end());
  if (children.size() == 1) {  // every descriptor at one word: identical descriptors, no split possible
    const Eigen::RowVectorXf mean = meanOf(sample, node.rows);
    for (int leaf = 0; leaf < node.leaves; ++leaf) result.leaves.push_back({childPath(node.path, leaf), mean});
    return result;
  }
  std::vector<std::size_t> sizes;
  for (const auto& rows : children) sizes.push_back(rows.size());
  const std::vector<int> share = shareLeaves(sizes, node.leaves);
  for (std::size_t c = 0; c < children.size(); ++c) {
    const int index = static_cast<int>(c);
    if (share[c] == 1)
      result.leaves.push_back({childPath(node.path, index), meanOf(sample, children[c])});
    else
      result.children.push_back({childPath(node.path, index), std::move(children[c]), share[c], childSeed(node.seed, index)});
  }
  return result;
}

// Splits every node of one level; results in node order, whatever ran where. Small nodes run on one
// thread each (kSharedNodeRows), their exceptions carried out of the parallel loop.
std::vector<Split> splitLevel(DescriptorsRef sample, const std::vector<Node>& level, const KMeansOptions& options) {
  std::vector<Split> splits(level.size());
  std::vector<std::size_t> small;
  for (std::size_t i = 0; i < level.size(); ++i) {
    if (level[i].rows.size() >= kSharedNodeRows)
      splits[i] = split(sample, level[i], options);
    else
      small.push_back(i);
  }
  KMeansOptions one_thread = options;
  one_thread.assignment.threads = 1;
  const int threads = options.assignment.threads > 0 ? options.assignment.threads : omp_get_max_threads();
  std::vector<std::exception_ptr> failures(small.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic)
  for (std::size_t s = 0; s < small.size(); ++s) {
    try {
      splits[small[s]] = split(sample, level[small[s]], one_thread);
    } catch (...) {
      failures[s] = std::current_exception();
    }
  }
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return splits;
}

}  // namespace

Vocabulary trainVocabularyTree(DescriptorsRef sample, const KMeansOptions& options) {
  const int branching = options.branching;
  if (branching < 2)
    throw InvalidInput("k-means: branching " + std::to_string(branching) +
                       " makes no vocabulary tree; use b >= 2 (or 0 for flat k-means)");
  if (branching > options.words)
    throw InvalidInput("k-means: branching " + std::to_string(branching) + " is larger than K = " +
                       std::to_string(options.words) + " words; use b <= K (b = K is one level of flat k-means)");
  Node root{{}, std::vector<Eigen::Index>(static_cast<std::size_t>(sample.rows())), options.words, options.seed};
  std::iota(root.rows.begin(), root.rows.end(), Eigen::Index{0});
  std::vector<Leaf> leaves;
  std::vector<Node> level;
  level.push_back(std::move(root));
  while (!level.empty()) {  // breadth first: a level's nodes, then their children
    std::vector<Node> next;
    for (Split& part : splitLevel(sample, level, options)) {
      std::move(part.children.begin(), part.children.end(), std::back_inserter(next));
      std::move(part.leaves.begin(), part.leaves.end(), std::back_inserter(leaves));
    }
    level = std::move(next);
  }
  std::sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) { return a.path < b.path; });
  Descriptors words(static_cast<Eigen::Index>(leaves.size()), sample.cols());
  for (std::size_t w = 0; w < leaves.size(); ++w) words.row(static_cast<Eigen::Index>(w)) = leaves[w].word;
  return Vocabulary(std::move(words), options.descriptor_type);
}

}  // namespace bovw::detail
