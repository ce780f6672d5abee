// bovw_serving_database: a live database of N images for `bovw serve`'s benchmark, made in seconds
// instead of the hours that extracting N real images would take on a 2-core machine. The real
// sample images go in first (the queries find them); the others are synthetic, each a few hundred
// words drawn from the sample's word frequencies, so that posting lists are as long and as skewed
// as a real collection's of that size.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>
#include <bovw/live_database.hpp>
#include <bovw/vocabulary_io.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>
#include <random>

int main(int argc, char** argv) {
  std::string vocabulary_path, output, samples;
  std::size_t images = 10000;
  int min_words = 300, max_words = 700;
  std::uint64_t seed = 1;
  bool keypoints = false;
  CLI::App app("A live database of real and synthetic images for bovw serve's benchmark");
  app.add_option("--vocabulary", vocabulary_path, "the vocabulary (SURF)")->required()->check(CLI::ExistingFile);
  app.add_option("--samples", samples, "a folder of real images: indexed, and their word frequencies copied")
      ->required()->check(CLI::ExistingDirectory);
  app.add_option("--images", images, "images in all")->capture_default_str();
  app.add_option("--words", min_words, "fewest words of a synthetic image")->capture_default_str();
  app.add_option("--max-words", max_words, "most words of a synthetic image")->capture_default_str();
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  app.add_flag("--keypoints", keypoints,
               "store keypoints, for verification (synthetic images: random points in 640 x 480, random signatures)");
  app.add_option("--output", output, "the new live database's folder")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    const auto start = std::chrono::steady_clock::now();
    bovw::captureDecoderMessages();
    std::vector<double> frequency;  // of each word in the real images
    std::size_t real = 0;
    {
      bovw::DatabaseOptions options;
      options.store_keypoints = keypoints;
      bovw::ImageSearch database = bovw::ImageSearch::createLive(output, bovw::loadVocabulary(vocabulary_path),
                                                                 bovw::FeatureSpec("surf"), options);
      const std::vector<std::string> paths = bovw::listImages(samples);
      const std::vector<bovw::ImageFailure> failed = database.add(paths);
      real = database.size();
      std::cerr << "bovw_serving_database: " << real << " real images (" << failed.size() << " skipped)\n";
      const bovw::ImageHistograms sample = database.histograms(paths);
      frequency.assign(static_cast<std::size_t>(database.vocabulary().size()), 0.0);
      for (Eigen::Index i = 0; i < sample.histograms.rows(); ++i)
        for (Eigen::Index w = 0; w < sample.histograms.cols(); ++w)
          frequency[static_cast<std::size_t>(w)] += sample.histograms(i, w);
    }  // closed before the folder is opened again: LMDB's locks are per process
    std::discrete_distribution<std::int32_t> word(frequency.begin(), frequency.end());
    std::uniform_int_distribution<int> count(min_words, max_words);
    std::mt19937_64 rng(seed);
    bovw::LiveDatabase live = bovw::LiveDatabase::open(output);
    for (std::size_t next = real; next < images;) {
      std::vector<bovw::NamedImageWords> batch;
      for (; next < images && batch.size() < 1000; ++next) {
        bovw::NamedImageWords image{"synthetic/" + std::to_string(next) + ".jpg", {}};
        for (int n = count(rng); n > 0; --n) image.words.words.push_back(word(rng));
        if (keypoints) {
          image.words.image_size = cv::Size(640, 480);
          std::uniform_real_distribution<float> x(0, 639), y(0, 479);
          for (std::size_t k = 0; k < image.words.words.size(); ++k) {
            image.words.points.emplace_back(x(rng), y(rng));
            image.words.signatures.push_back(rng());
          }
        }
        batch.push_back(std::move(image));
      }
      live.add(batch);
    }
    std::cerr << "bovw_serving_database: " << images << " images in " << output << ", "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
  } catch (const bovw::Error& e) {
    std::cerr << "bovw_serving_database: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
