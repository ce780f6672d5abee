// `bovw demo`: the quick start's main job until images come in. Generates a vocabulary and a batch
// of images whose descriptors scatter around chosen words, computes the histograms on the chosen
// backend, checks them against the OpenMP reference, and prints them.
#include "commands.hpp"
#include "histogrammer_options.hpp"

#include <bovw/histogrammer.hpp>

#include <iomanip>
#include <iostream>
#include <random>

namespace bovw::cli {

namespace {

struct DemoArguments {
  int images = 6;
  int descriptors_per_image = 400;
  int words = 12;
  int dimension = 64;
  unsigned seed = 1;
  HistogrammerOptions histogrammer;
} args;

// Each image draws its descriptors from a few "favourite" words plus noise, so its histogram has
// visible peaks; image 2 is left empty to show that empty images are valid.
DescriptorBatch generateBatch(const Vocabulary& vocabulary, Descriptors& storage, std::mt19937& rng) {
  std::vector<std::int64_t> offsets = {0};
  std::normal_distribution<float> noise(0.0f, 0.05f);
  std::uniform_int_distribution<int> any_word(0, vocabulary.size() - 1);
  std::vector<Eigen::RowVectorXf> rows;
  for (int image = 0; image < args.images; ++image) {
    const int count = image == 2 ? 0 : args.descriptors_per_image;
    const int favourites[3] = {any_word(rng), any_word(rng), any_word(rng)};
    std::discrete_distribution<int> pick({6, 3, 1, 2});  // 3 favourites, then any word
    for (int i = 0; i < count; ++i) {
      const int choice = pick(rng);
      const int word = choice < 3 ? favourites[choice] : any_word(rng);
      Eigen::RowVectorXf x = vocabulary.centroids().row(word);
      for (int f = 0; f < x.size(); ++f) x[f] += noise(rng);
      rows.push_back(x);
    }
    offsets.push_back(static_cast<std::int64_t>(rows.size()));
  }
  storage.resize(static_cast<Eigen::Index>(rows.size()), vocabulary.dimension());
  for (std::size_t i = 0; i < rows.size(); ++i) storage.row(static_cast<Eigen::Index>(i)) = rows[i];
  return DescriptorBatch(storage, offsets);
}

void printHistograms(const Histograms& h) {
  std::cout << "image |";
  for (Eigen::Index w = 0; w < h.cols(); ++w) std::cout << std::setw(5) << w;
  std::cout << " |  total\n";
  for (Eigen::Index i = 0; i < h.rows(); ++i) {
    std::cout << std::setw(5) << i << " |";
    for (Eigen::Index w = 0; w < h.cols(); ++w) std::cout << std::setw(5) << h(i, w);
    std::cout << " | " << std::setw(6) << h.row(i).sum() << "\n";
  }
}

}  // namespace

CLI::App* addDemoCommand(CLI::App& app) {
  auto* command = app.add_subcommand(
      "demo", "Histograms of generated descriptors against a generated vocabulary, checked against OpenMP");
  command->add_option("--images", args.images, "images in the batch")->check(CLI::Range(1, 100000));
  command->add_option("--descriptors-per-image", args.descriptors_per_image)->check(CLI::Range(0, 1000000));
  command->add_option("--words", args.words, "vocabulary size K")->check(CLI::Range(1, 100000));
  command->add_option("--dimension", args.dimension, "descriptor width D")->check(CLI::Range(1, 1024));
  command->add_option("--seed", args.seed, "random seed")->capture_default_str();
  args.histogrammer.backend = "opencl";
  args.histogrammer.addTo(command);
  return command;
}

int runDemoCommand() {
  std::mt19937 rng(args.seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Descriptors words(args.words, args.dimension);
  for (Eigen::Index i = 0; i < words.size(); ++i) words.data()[i] = uniform(rng);
  const Vocabulary vocabulary(words);
  Descriptors storage;
  const DescriptorBatch batch = generateBatch(vocabulary, storage, rng);

  auto histogrammer = makeHistogrammer(args.histogrammer.config());
  StageTimes times;
  const Histograms histograms = histogrammer->compute(batch, vocabulary, nullptr, &times);
  const Histograms reference = makeHistogrammer({})->compute(batch, vocabulary);

  std::cout << "bovw demo: " << batch.imageCount() << " images, " << storage.rows()
            << " descriptors, K = " << vocabulary.size() << ", D = " << vocabulary.dimension() << "\n"
            << "computed on " << histogrammer->description() << " in " << std::fixed
            << std::setprecision(3) << times.kernel_ms << " ms (kernel)\n\n";
  printHistograms(histograms);
  const bool same = histograms == reference;
  std::cout << "\n" << (same ? "identical to" : "DIFFERS from") << " the OpenMP reference\n";
  return same ? 0 : 1;
}

}  // namespace bovw::cli
