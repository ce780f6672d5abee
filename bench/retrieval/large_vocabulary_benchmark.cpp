// Large vocabularies on the CPU: for each K, a vocabulary tree trained on real descriptors
// (hierarchical k-means, KMeansOptions::branching; its held-out distortion beside flat k-means' up to
// --flat-up-to), then the assignment throughput of the exact openmp-tiled backend against the
// approximate openmp-ann at several `checks`, with its recall@1 (the share of descriptors given the
// exact nearest word). Timings are medians after warm-up calls.
//
// The descriptors are SURF (the library's extractor, default parameters) of a folder of images, or
// a float32 .npy sample. They are shuffled once (seeded); the first --queries are held out for the
// assignment timings and never trained on; training takes up to --per-word x K of the rest (all of
// them when fewer, as the report says). No descriptor is repeated.
//
// Usage: bovw_large_vocabulary_bench [--images DIR | --descriptors X.npy] [--words 4096,16384,65536]
//          [--branching 16] [--checks 32,128,512] [--queries 20000] [--per-word 5] [--repeats 3]
//          [--warmup 1] [--flat-up-to 0] [--threads 0] [--seed 1]
#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/npy.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

struct Arguments {
  std::string images = "/usr/share/doc/opencv-doc/examples/data";
  std::string descriptors;
  std::vector<int> words = {4096, 16384, 65536};
  int branching = 16;
  std::vector<int> checks = {32, 128, 512};
  std::int64_t queries = 20000;
  int per_word = 5;
  int repeats = 3;
  int warmup = 1;
  int flat_up_to = 0;
  int threads = 0;
  unsigned long long seed = 1;
};

// Every descriptor of the images (or the .npy), rows shuffled with the seed.
bovw::Descriptors loadShuffled(const Arguments& args) {
  bovw::Descriptors all;
  const auto start = Clock::now();
  if (!args.descriptors.empty()) {
    all = bovw::npy::readFloat32Matrix(args.descriptors);
    std::printf("descriptors: %lld x %lld from %s\n", static_cast<long long>(all.rows()),
                static_cast<long long>(all.cols()), args.descriptors.c_str());
  } else {
    const auto paths = bovw::listImages(args.images);
    const auto extractor = bovw::makeFeatureExtractor(bovw::surfFeatureSpec(bovw::SurfParams{}));
    std::vector<float> values;
    const auto failures = bovw::extractInBatches(paths, *extractor, {}, [&](const bovw::ExtractedBatch& batch) {
      values.insert(values.end(), batch.descriptors.data(), batch.descriptors.data() + batch.descriptors.size());
    });
    const int d = extractor->descriptorType().width();
    all = Eigen::Map<const bovw::Descriptors>(values.data(), static_cast<Eigen::Index>(values.size()) / d, d);
    std::printf("descriptors: %lld %s from %zu images of %s (%zu unreadable), extracted in %.1f s\n",
                static_cast<long long>(all.rows()), extractor->descriptorType().toString().c_str(),
                paths.size() - failures.size(), args.images.c_str(), failures.size(), secondsSince(start));
  }
  std::vector<Eigen::Index> order(static_cast<std::size_t>(all.rows()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::mt19937_64 rng(args.seed);
  std::shuffle(order.begin(), order.end(), rng);
  bovw::Descriptors shuffled(all.rows(), all.cols());
  for (std::size_t i = 0; i < order.size(); ++i) shuffled.row(static_cast<Eigen::Index>(i)) = all.row(order[i]);
  return shuffled;
}

// Median seconds of one assign() call after the warm-up calls; `first` gets the first call's time
// (for the approximate backend it includes building the tree).
double timeAssign(bovw::Histogrammer& histogrammer, const bovw::Descriptors& x, const bovw::Vocabulary& vocabulary,
                  const Arguments& args, std::vector<std::int32_t>& assignments, double& first) {
  std::vector<double> seconds;
  for (int run = 0; run < args.warmup + args.repeats; ++run) {
    const auto start = Clock::now();
    assignments = histogrammer.assign(x, vocabulary);
    const double elapsed = secondsSince(start);
    if (run == 0) first = elapsed;
    if (run >= args.warmup) seconds.push_back(elapsed);
  }
  return median(seconds);
}

double recall(const std::vector<std::int32_t>& exact, const std::vector<std::int32_t>& found) {
  std::size_t same = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) same += exact[i] == found[i];
  return static_cast<double>(same) / static_cast<double>(exact.size());
}

// The vocabulary's quality on the held-out descriptors: the mean squared distance to the exact
// nearest word (float64), the k-means objective per descriptor.
double heldOutDistortion(const bovw::Descriptors& queries, const bovw::Vocabulary& vocabulary, int threads) {
  bovw::HistogrammerConfig exact;
  exact.backend = bovw::Backend::OpenMPTiled;
  exact.threads = threads;
  const auto histogrammer = bovw::makeHistogrammer(exact);
  return bovw::kmeansInertia(queries, vocabulary, *histogrammer) / static_cast<double>(queries.rows());
}

bovw::Vocabulary train(const bovw::Descriptors& sample, int words, int branching, const Arguments& args, double& seconds) {
  bovw::KMeansOptions options;
  options.words = words;
  options.branching = branching;
  options.seed = args.seed;
  options.assignment.backend = bovw::Backend::OpenMPTiled;
  options.assignment.threads = args.threads;
  const auto start = Clock::now();
  bovw::Vocabulary vocabulary = bovw::trainVocabulary(sample, options);
  seconds = secondsSince(start);
  return vocabulary;
}

void run(const Arguments& args) {
  const bovw::Descriptors all = loadShuffled(args);
  if (all.rows() <= args.queries)
    throw bovw::InvalidInput("--queries " + std::to_string(args.queries) + " leaves no descriptors to train on (" +
                             std::to_string(all.rows()) + " in all)");
  const bovw::Descriptors queries = all.topRows(args.queries);
  const Eigen::Index trainable = all.rows() - args.queries;
  std::printf("%lld held-out query descriptors; %lld for training\n", static_cast<long long>(queries.rows()),
              static_cast<long long>(trainable));
  for (int k : args.words) {
    const Eigen::Index rows = std::min<Eigen::Index>(trainable, static_cast<Eigen::Index>(k) * args.per_word);
    if (rows < k) {
      std::printf("\nK = %d: skipped, only %lld training descriptors\n", k, static_cast<long long>(rows));
      continue;
    }
    const bovw::Descriptors sample = all.middleRows(args.queries, rows);
    std::printf("\nK = %d: training sample %lld descriptors (%.2f per word%s)\n", k, static_cast<long long>(rows),
                static_cast<double>(rows) / k, rows < static_cast<Eigen::Index>(k) * args.per_word ? ", all there are" : "");
    double tree_seconds = 0;
    const bovw::Vocabulary vocabulary = train(sample, k, args.branching, args, tree_seconds);
    std::printf("  train  tree b=%-3d %10.1f s  held-out distortion %.5f\n", args.branching, tree_seconds,
                heldOutDistortion(queries, vocabulary, args.threads));
    if (k <= args.flat_up_to) {
      double flat_seconds = 0;
      const bovw::Vocabulary flat = train(sample, k, 0, args, flat_seconds);
      std::printf("  train  flat        %10.1f s  held-out distortion %.5f  (openmp-tiled assignment)\n", flat_seconds,
                  heldOutDistortion(queries, flat, args.threads));
    }
    bovw::HistogrammerConfig exact_config;
    exact_config.backend = bovw::Backend::OpenMPTiled;
    exact_config.threads = args.threads;
    const auto exact_histogrammer = bovw::makeHistogrammer(exact_config);
    std::vector<std::int32_t> exact;
    double first = 0;
    const double exact_seconds = timeAssign(*exact_histogrammer, queries, vocabulary, args, exact, first);
    std::printf("  assign %-28s %12.0f descriptors/s  recall@1 1 (median %.3f s)\n",
                exact_histogrammer->description().c_str(), queries.rows() / exact_seconds, exact_seconds);
    for (int checks : args.checks) {
      bovw::HistogrammerConfig config;
      config.backend = bovw::Backend::OpenMPApproximate;
      config.approximate_checks = checks;
      config.threads = args.threads;
      const auto approximate = bovw::makeHistogrammer(config);
      std::vector<std::int32_t> found;
      const double seconds = timeAssign(*approximate, queries, vocabulary, args, found, first);
      std::printf("  assign openmp-ann checks=%-6d %12.0f descriptors/s  recall@1 %.4f (median %.3f s; first call "
                  "with the tree build %.3f s)\n",
                  checks, queries.rows() / seconds, recall(exact, found), seconds, first);
    }
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  CLI::App app("Large vocabularies: vocabulary-tree training, exact vs approximate assignment with recall");
  auto* input = app.add_option_group("input");
  input->add_option("--images", args.images, "folder of images to extract SURF from")->capture_default_str();
  input->add_option("--descriptors", args.descriptors, "float32 N x D .npy instead (bovw extract --format npy)");
  app.add_option("--words", args.words, "vocabulary sizes K")->delimiter(',')->capture_default_str();
  app.add_option("--branching", args.branching, "vocabulary tree branching b")->capture_default_str();
  app.add_option("--checks", args.checks, "openmp-ann search budgets")->delimiter(',')->capture_default_str();
  app.add_option("--queries", args.queries, "held-out descriptors to assign")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--per-word", args.per_word, "training descriptors per word, at most")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--repeats", args.repeats, "timed calls per case (median)")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--warmup", args.warmup, "untimed calls first")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--flat-up-to", args.flat_up_to, "also time flat k-means for K up to this")->capture_default_str();
  app.add_option("--threads", args.threads, "OpenMP threads (0: all cores)")->capture_default_str();
  app.add_option("--seed", args.seed)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    run(args);
  } catch (const std::exception& e) {
    std::cerr << "bovw_large_vocabulary_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
