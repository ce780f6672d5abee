// `bovw index`: histograms of a folder's images in an inverted index, saved with the vocabulary
// and the feature settings as one database file for `bovw search` and `bovw evaluate`.
#include "commands.hpp"
#include "feature_options.hpp"
#include "histogrammer_options.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/vocabulary_io.hpp>

#include <iostream>

namespace bovw::cli {

namespace {

struct IndexArguments {
  std::string images;
  std::string vocabulary;
  std::string output;
  bool keypoints = false;
  FeatureOptions features;
  HistogrammerOptions histogrammer;
} args;

}  // namespace

CLI::App* addIndexCommand(CLI::App& app) {
  auto* command = app.add_subcommand("index", "Index a folder of images for search (TF-IDF inverted index)");
  command->add_option("IMAGES_DIR", args.images, "folder of images")->required();
  command->add_option("--vocabulary", args.vocabulary, "vocabulary file: " + vocabularyFormatNames())->required();
  command->add_option("--output", args.output, "database file to write (vocabulary, settings and index)")->required();
  command->add_flag("--keypoints", args.keypoints,
                    "also store each image's keypoints and words (8 bytes per keypoint), for search --verify");
  args.features.addTo(command);
  args.histogrammer.addTo(command);
  return command;
}

int runIndexCommand() {
  args.features.useThreads(args.histogrammer.threads);
  const Vocabulary vocabulary = loadVocabulary(args.vocabulary);
  DatabaseOptions options;
  options.store_keypoints = args.keypoints;
  ImageDatabase database =
      namingFile(args.vocabulary, [&] { return ImageDatabase(vocabulary, args.features.spec(), options); });
  auto histogrammer = makeHistogrammer(args.histogrammer.config());
  const ImageHistograms result =
      args.features.histogramFolder(args.images, vocabulary, *histogrammer, "index", args.keypoints);
  for (std::size_t i = 0; i < result.names.size(); ++i) {
    if (args.keypoints) database.add(result.names[i], result.words[i]);
    else database.add(result.names[i], result.histograms.row(static_cast<Eigen::Index>(i)));
  }
  database.save(args.output);
  std::cout << "bovw index: " << result.names.size() << " images, " << database.index().postingCount()
            << " postings over K = " << vocabulary.size() << " " << vocabulary.descriptorType().toString() << " words"
            << (args.keypoints ? ", keypoints stored" : "") << "; wrote " << args.output << "\n";
  return 0;
}

}  // namespace bovw::cli
