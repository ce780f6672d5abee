// Vocabulary training: k-means with k-means++ seeding and Lloyd iterations, flat or hierarchical (a
// vocabulary tree, for large K). With an OpenCL assignment the sample is uploaded once and both the
// seeding distances and the assignments run on the device; the result is the same vocabulary as on
// the CPU for the same seed.
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/vocabulary.hpp>

#include <functional>
#include <string>

namespace bovw {

// One Lloyd iteration, as reported to the progress callback.
struct KMeansIteration {
  int iteration = 0;                 // 1-based
  double inertia = 0;                // sum of squared distances to the assigned words (float64)
  double relative_improvement = 0;   // (previous - inertia) / previous; +inf on the first iteration
  int reseeded = 0;                  // empty clusters re-seeded after this iteration
  double seconds = 0;                // wall time of the iteration, of which:
  double assign_seconds = 0;         //   the assignment pass (on the device when it runs there)
  double exchange_seconds = 0;       //   the allreduce of the sums across ranks, waiting for the slowest
                                     //   rank included (0 in one process)
                                     //   (the rest: distances, grouping by word and the fixed-point sums)
  double seeding_seconds = 0;        // wall time of k-means++ seeding (the same in every report)
  std::string assignment;            // where the passes ran: the histogrammer's description, with
                                     // "(sample resident)" when the sample stays on the device
  // Vocabulary tree (KMeansOptions::branching): the path of the node whose k-means this is, its
  // child indices from the root joined by '.' ("2.13"); empty for the root and for flat k-means.
  std::string node;
};

struct KMeansOptions {
  int words = 1000;                  // K
  int max_iterations = 30;           // hard cap: training always finishes
  double tolerance = 1e-4;           // stop when the relative inertia improvement falls below this
  unsigned long long seed = 0;       // same seed, same sample, same backend: identical vocabulary
  // Recorded in the vocabulary: the extractor's descriptorType(), so that an image database or
  // pipeline can check its features against the words. Unspecified (the default): only widths are checked.
  DescriptorType descriptor_type;
  HistogrammerConfig assignment;     // where the assignment step runs (default: Auto, the GPU where there is one); an approximate
                                     // backend (openmp-ann) makes the assignments, and so the words, approximate
  std::function<void(const KMeansIteration&)> progress;  // called after every iteration (of every node)
  // 0: flat k-means of all K words at once. b >= 2: hierarchical k-means (a vocabulary tree, Nister &
  // Stewenius 2006) of branching factor b, for large K; see trainVocabulary.
  int branching = 0;
};

// Trains K words on the sample (N x D, N >= K). Throws InvalidInput for K < 1, K > N, NaN/Inf (or a
// value beyond +-1e18, whose squared distances would overflow a float), or a branching other than 0
// or 2..K.
//
// Vocabulary tree (branching b >= 2). A node that must still produce m > 1 leaves (the root: K) runs
// the flat k-means above with min(b, m) words on the descriptors that reached it, sends each of them
// to its nearest word (through `assignment`), and shares its m leaves among those children as evenly
// as their descriptor counts allow (never more leaves than descriptors, so N >= K always suffices).
// A node with one leaf to make is a leaf: its word is the float64 mean of the descriptors that
// reached it. So K = b^L gives the full tree of depth L, and any other K a tree whose nodes split
// unevenly (fewer than b children where fewer leaves remain). Degenerate nodes: a child that no
// descriptor reaches is dropped (its parent has fewer children), and a node whose descriptors all
// reach one child (identical descriptors) cannot be split: its leaves all repeat its mean, duplicated
// words of which the nearest-word search picks the first (as flat k-means re-seeds duplicates).
// The words are the leaves ordered by tree path (depth first, children in their k-means order);
// each node's seed derives from `seed` and its path (the root's is `seed`), so the same seed, sample
// and backend give the same vocabulary, byte for byte. max_iterations, tolerance and `assignment`
// apply to every node; `progress` reports every node's iterations with the node's path, one report at
// a time but from several threads (the small nodes of a level train side by side, one thread each).
Vocabulary trainVocabulary(DescriptorsRef sample, const KMeansOptions& options);

// Flat k-means over a sample spread across ranks: each rank passes its part (the whole sample is the
// ranks' parts in rank order; a rank may hold none) and all ranks return the same vocabulary. Every
// sum that steers training is exact (fixed point: the values to 2^-s for the largest s at which the
// sample's sums cannot overflow int64), so with the same seed the vocabulary is identical, byte for
// byte, for any number of ranks and any split of the same sample, and equal to the single-process
// trainVocabulary(sample, options) above, which is this with singleProcess(). Each rank assigns its
// rows through `options.assignment` (its own device). Per Lloyd iteration the ranks allreduce K x D
// + K + 1 int64; per k-means++ word, R int64 and one broadcast row. Collective: every rank must call
// it; the checks above fail on every rank alike, a NaN naming its global row on the rank that holds
// it. A vocabulary tree (branching != 0) is trained in one process only (InvalidInput on several).
Vocabulary trainVocabulary(DescriptorsRef sample, const KMeansOptions& options, Communicator& ranks);

// The k-means objective of a vocabulary on a sample (float64 sum of squared distances to the
// nearest word), for comparing training runs and other k-means implementations.
double kmeansInertia(DescriptorsRef sample, const Vocabulary& vocabulary, Histogrammer& histogrammer);

}  // namespace bovw
