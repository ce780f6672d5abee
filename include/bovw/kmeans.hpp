// Vocabulary training: k-means with k-means++ seeding and Lloyd iterations. With an OpenCL
// assignment the sample is uploaded once and both the seeding distances and the assignments run on
// the device; the result is the same vocabulary as on the CPU for the same seed.
#pragma once

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
  double seconds = 0;                // wall time of the iteration
  double seeding_seconds = 0;        // wall time of k-means++ seeding (the same in every report)
  std::string assignment;            // where the passes ran: the histogrammer's description, with
                                     // "(sample resident)" when the sample stays on the device
};

struct KMeansOptions {
  int words = 1000;                  // K
  int max_iterations = 30;           // hard cap: training always finishes
  double tolerance = 1e-4;           // stop when the relative inertia improvement falls below this
  unsigned long long seed = 0;       // same seed, same sample, same backend: identical vocabulary
  // Recorded in the vocabulary: the extractor's descriptorType(), so that an image database or
  // pipeline can check its features against the words. Unspecified (the default): only widths are checked.
  DescriptorType descriptor_type;
  HistogrammerConfig assignment;     // where the assignment step runs (default: OpenMP)
  std::function<void(const KMeansIteration&)> progress;  // called after every iteration
};

// Trains K words on the sample (N x D, N >= K). Throws InvalidInput for K < 1, K > N, or NaN/Inf.
Vocabulary trainVocabulary(DescriptorsRef sample, const KMeansOptions& options);

// The k-means objective of a vocabulary on a sample (float64 sum of squared distances to the
// nearest word), for comparing training runs and other k-means implementations.
double kmeansInertia(DescriptorsRef sample, const Vocabulary& vocabulary, Histogrammer& histogrammer);

}  // namespace bovw
