// `bovw train`: a visual vocabulary from a folder of images (descriptor sample + k-means).
#include "commands.hpp"
#include "feature_options.hpp"
#include "histogrammer_options.hpp"

#include <bovw/error.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/vocabulary_io.hpp>

#include <spdlog/spdlog.h>

#include <iostream>

namespace bovw::cli {

namespace {

struct TrainArguments {
  std::string images;
  std::string output;
  int words = 0;
  std::int64_t max_descriptors = 200000;
  int iterations = 30;
  double tolerance = 1e-4;
  unsigned long long seed = 0;
  FeatureOptions features;
  HistogrammerOptions histogrammer;
} args;

}  // namespace

CLI::App* addTrainCommand(CLI::App& app) {
  auto* command = app.add_subcommand("train", "Train a visual vocabulary (k-means) on the images of a folder");
  command->add_option("IMAGES_DIR", args.images, "folder of images")->required();
  command->add_option("--words", args.words, "vocabulary size K")->required()->check(CLI::PositiveNumber);
  command->add_option("--output", args.output, "vocabulary file: .bovw, .npy, .yml, .yml.gz or .xml")->required();
  command->add_option("--max-descriptors", args.max_descriptors, "uniform sample of at most this many descriptors")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--iterations", args.iterations, "at most this many Lloyd iterations")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--tolerance", args.tolerance, "stop when the relative improvement falls below this")
      ->capture_default_str();
  command->add_option("--seed", args.seed, "random seed (same seed, images and backend: same vocabulary)")
      ->capture_default_str();
  args.features.addTo(command);
  args.histogrammer.addTo(command);
  return command;
}

int runTrainCommand() {
  checkVocabularyPath(args.output);
  const auto images = listImages(args.images);
  if (images.empty()) throw InvalidInput("'" + args.images + "' holds no image files");
  const auto extractor = args.features.extractor();

  DescriptorSample sample;
  {
    ProgressBar bar("extract", args.features.quiet);
    sample = sampleDescriptors(images, *extractor, args.max_descriptors, args.seed, args.features.pipeline(bar));
  }
  reportFailures(sample.failures, images.size());
  if (sample.failures.size() == images.size())
    throw InvalidInput("no readable image in '" + args.images + "' (" + std::to_string(images.size()) + " tried)");
  if (sample.descriptors.rows() < args.words)
    throw InvalidInput("--words " + std::to_string(args.words) + " is larger than the " +
                       std::to_string(sample.descriptors.rows()) + " descriptors found in '" + args.images +
                       "'; use fewer words or more images");
  if (!args.features.quiet)
    spdlog::info("{} {} descriptors sampled from {} seen in {} images", sample.descriptors.rows(),
                 extractor->descriptorType(), sample.seen, images.size() - sample.failures.size());

  KMeansOptions options;
  options.words = args.words;
  options.max_iterations = args.iterations;
  options.tolerance = args.tolerance;
  options.seed = args.seed;
  options.descriptor_type = extractor->descriptorType();
  options.assignment = args.histogrammer.config();
  options.progress = [](const KMeansIteration& it) {
    if (!args.features.quiet)
      spdlog::info("k-means iteration {}: inertia {:.6g}, improvement {:.3g}{}, {:.2f} s", it.iteration, it.inertia,
                   it.relative_improvement, it.reseeded ? ", " + std::to_string(it.reseeded) + " empty words re-seeded" : "",
                   it.seconds);
  };
  const Vocabulary vocabulary = trainVocabulary(sample.descriptors, options);
  saveVocabulary(args.output, vocabulary);
  std::cout << "bovw train: " << vocabulary.size() << " " << vocabulary.descriptorType() << " words from "
            << sample.descriptors.rows() << " descriptors of " << images.size() - sample.failures.size()
            << " images; wrote " << args.output << "\n";
  return 0;
}

}  // namespace bovw::cli
