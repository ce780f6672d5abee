// `bovw train`: a visual vocabulary from a folder of images (descriptor sample + k-means). Under
// `bovw-mpi` each rank extracts a contiguous part of the images (or takes a contiguous part of the
// --descriptors rows), the ranks draw the sample and run k-means together, and rank 0 writes the
// vocabulary: the same file, byte for byte, as `bovw train` with the same seed.
#include "commands.hpp"
#include "number_checks.hpp"
#ifdef BOVW_CLI_WITH_FEATURES
#include "feature_options.hpp"
#endif
#include "histogrammer_options.hpp"
#include "program.hpp"
#include "rank_device.hpp"

#include <bovw/error.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/npy.hpp>
#include <bovw/vocabulary_io.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <iomanip>
#include <iostream>

namespace bovw::cli {

namespace {

struct TrainArguments {
  std::string images;
  std::string descriptors;
  std::string descriptor_type = DescriptorType::unspecified().toString();
  std::string output;
  int words = 0;
  std::int64_t max_descriptors = 200000;
  int iterations = 30;
  double tolerance = 1e-4;
  unsigned long long seed = 0;
  int tree_branching = 0;
  bool quiet = false;
  bool verbose = false;
#ifdef BOVW_CLI_WITH_FEATURES
  FeatureOptions features;
#endif
  HistogrammerOptions histogrammer;
} args;

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CLI::App* addTrainCommand(CLI::App& app) {
  auto* command = app.add_subcommand("train", "Train a visual vocabulary (k-means) on the images of a folder");
  auto* input = command->add_option_group("input", "what to train on: a folder of images or a descriptor sample");
#ifdef BOVW_CLI_WITH_FEATURES
  input->add_option("IMAGES_DIR", args.images, "folder of images");
#endif
  input->add_option("--descriptors", args.descriptors, "float32 N x D .npy sample (instead of images)");
  input->require_option(1);
  command->add_option("--descriptor-type", args.descriptor_type,
                      "with --descriptors: the type to record in the vocabulary (surf64, surf128, sift128, "
                      "orb256-binary, ...)")
      ->check([](const std::string& text) {
        try {
          DescriptorType::parse(text);
          return std::string();
        } catch (const InvalidInput& e) {
          return std::string(e.problem());
        }
      })
      ->capture_default_str();
  command->add_option("--words", args.words, "vocabulary size K")->required()->check(kPositive);
  command->add_option("--output", args.output,
                      "vocabulary file to write, in the format its extension names:" + vocabularyFormatsHelp())
      ->required();
  command->add_option("--max-descriptors", args.max_descriptors, "uniform sample of at most this many descriptors")
      ->check(kPositive)
      ->capture_default_str();
  command->add_option("--iterations", args.iterations, "at most this many Lloyd iterations")
      ->check(kPositive)
      ->capture_default_str();
  command->add_option("--tolerance", args.tolerance, "stop when the relative improvement falls below this")
      ->capture_default_str();
  command->add_option("--seed", args.seed, "random seed (same seed, images and backend: same vocabulary)")
      ->capture_default_str();
  command->add_option("--tree-branching", args.tree_branching,
                      "hierarchical k-means (a vocabulary tree) with this many children per node, for large K "
                      "(0: flat k-means)")
      ->check(kNonNegative)
      ->capture_default_str();
#ifdef BOVW_CLI_WITH_FEATURES
  args.features.addTo(command);
#else
  command->add_flag("--quiet", args.quiet, "no progress log");
#endif
  command->add_flag("--verbose", args.verbose, "log every k-means iteration (inertia, improvement, time)");
  args.histogrammer.addTo(command);
  return command;
}

#ifdef BOVW_CLI_WITH_FEATURES
namespace {

// This rank's rows of the descriptor sample of a folder of images, with their descriptor type.
std::pair<Descriptors, DescriptorType> sampleImages() {
  Communicator& group = ranks();
  args.features.useThreads(args.histogrammer.threads);
  const auto extractor = args.features.extractor();
  FolderSample drawn;
  {
    ProgressBar bar("extract", args.features.quiet || !printsResults());
    drawn = sampleFolder(group, args.images, *extractor, args.max_descriptors, args.seed, args.features.pipeline(bar));
  }
  args.features.printProfile();
  const DescriptorSample& sample = drawn.sample;
  reportFailures(sample.failures, static_cast<std::size_t>(drawn.images));
  if (drawn.failed == drawn.images)
    throw InvalidInput("no readable image in '" + args.images + "' (" + std::to_string(drawn.images) + " tried)");
  const std::int64_t sampled = sumOverRanks(group, sample.descriptors.rows());
  if (!args.quiet)
    spdlog::info("{} {} descriptors sampled from {} seen in {} images{}", sampled,
                 extractor->descriptorType().toString(), sample.seen, drawn.images - drawn.failed,
                 group.size() > 1 ? " on " + std::to_string(group.size()) + " ranks" : "");
  return {std::move(drawn.sample.descriptors), extractor->descriptorType()};
}

}  // namespace
#else
namespace {
std::pair<Descriptors, DescriptorType> sampleImages() {
  throw InvalidInput("this bovw was built without OpenCV: train with --descriptors");
}
}  // namespace
#endif

namespace {

// This rank's contiguous part of the --descriptors rows (every rank reads the file).
std::pair<Descriptors, DescriptorType> sampleFile() {
  Descriptors all = npy::readFloat32Matrix(args.descriptors);
  const DescriptorType type = DescriptorType::parse(args.descriptor_type);
  Communicator& group = ranks();
  if (group.size() == 1) return {std::move(all), type};
  const Eigen::Index first = all.rows() * group.rank() / group.size();
  const Eigen::Index last = all.rows() * (group.rank() + 1) / group.size();
  return {all.middleRows(first, last - first), type};
}

}  // namespace

int runTrainCommand() {
  const auto start = std::chrono::steady_clock::now();  // the whole run: extraction and k-means
#ifdef BOVW_CLI_WITH_FEATURES
  args.quiet = args.features.quiet;
#endif
  checkVocabularyPath(args.output);
  checkOutputs({{"--output", args.output}}, {{"--descriptors", args.descriptors}});
  Communicator& group = ranks();
  // Several ranks on a host with GPUs: one GPU each, for the assignment and (bovw-mpi) the OpenCL SURF.
  args.histogrammer.device = deviceOfRank(group, args.histogrammer.device);
#ifdef BOVW_CLI_WITH_FEATURES
  if (distributedProgram()) args.features.surf_device = args.histogrammer.device;
#endif
  auto [sample, type] = args.descriptors.empty() ? sampleImages() : sampleFile();
  const std::string& source = args.descriptors.empty() ? args.images : args.descriptors;
  const std::int64_t rows = sumOverRanks(group, sample.rows());
  if (rows < args.words)
    throw InvalidInput("--words " + std::to_string(args.words) + " is larger than the " + std::to_string(rows) +
                       " descriptors of '" + source + "'; use fewer words or more descriptors");

  KMeansOptions options;
  options.words = args.words;
  options.max_iterations = args.iterations;
  options.tolerance = args.tolerance;
  options.seed = args.seed;
  options.branching = args.tree_branching;
  options.descriptor_type = type;
  options.assignment = args.histogrammer.config();
  // One line per iteration with --verbose; otherwise one line at the end, a warning when k-means
  // stopped at --iterations while the inertia still improved by more than --tolerance.
  KMeansIteration last;
  options.progress = [&last](const KMeansIteration& it) {
    if (!it.node.empty()) {  // a vocabulary tree's inner nodes: thousands of them at large K
      spdlog::debug("k-means node {} iteration {}: inertia {:.9g}, {:.3f} s", it.node, it.iteration, it.inertia,
                    it.seconds);
      return;
    }
    last = it;
    if (!args.verbose) return;
    if (it.iteration == 1)
      spdlog::info("k-means on {}; k-means++ seeding {:.2f} s", it.assignment, it.seeding_seconds);
    spdlog::info("k-means iteration {}: inertia {:.9g}, improvement {:.3g}{}, {:.3f} s (assign {:.3f} s, exchange {:.3f} s)",
                 it.iteration, it.inertia, it.relative_improvement,
                 it.reseeded ? ", " + std::to_string(it.reseeded) + " empty words re-seeded" : "", it.seconds,
                 it.assign_seconds, it.exchange_seconds);
  };
  const auto kmeans_start = std::chrono::steady_clock::now();
  const Vocabulary vocabulary = namingFile(source, [&] { return trainVocabulary(sample, options, group); });
  const double kmeans_seconds = secondsSince(kmeans_start);
  if (last.iteration > 0 && printsResults()) {
    const bool converged = last.reseeded == 0 && last.relative_improvement < args.tolerance;
    if (converged && !args.quiet)
      spdlog::info("k-means on {}: converged after {} iterations (improvement {:.3g} < --tolerance {:g}), {:.1f} s",
                   last.assignment, last.iteration, last.relative_improvement, args.tolerance, kmeans_seconds);
    else if (!converged)
      spdlog::warn("k-means stopped at --iterations {} before converging (the last iteration still improved the "
                   "inertia by {:.3g}, --tolerance is {:g}): the vocabulary is usable; more iterations may make it "
                   "better",
                   last.iteration, last.relative_improvement, args.tolerance);
  }
  if (!printsResults()) return 0;  // every rank holds the vocabulary; rank 0 writes it
  saveVocabulary(args.output, vocabulary);
  const std::string how = args.tree_branching ? " (vocabulary tree, branching " + std::to_string(args.tree_branching) + ")" : "";
  std::cout << "bovw train: " << vocabulary.size() << " " << vocabulary.descriptorType().toString() << " words"
            << how << " from " << rows << " descriptors of '" << source << "' in " << std::fixed
            << std::setprecision(1) << secondsSince(start) << " s (k-means " << kmeans_seconds << " s); wrote "
            << args.output << "\n";
  return 0;
}

}  // namespace bovw::cli
