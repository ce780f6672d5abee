// `bovw index`: histograms of a folder's images in an inverted index, saved with the vocabulary
// and the feature settings as one database file for `bovw search` and `bovw evaluate`; or, with
// --shards, as several database files and the manifest that lists them.
#include "commands.hpp"
#include "feature_options.hpp"
#include "histogrammer_options.hpp"
#include "shard_split.hpp"

#include <bovw/error.hpp>
#include <bovw/atomic_file.hpp>
#include <bovw/image_database.hpp>
#include <bovw/sharded_database.hpp>
#include <bovw/vocabulary_io.hpp>

#include <filesystem>
#include <iostream>

namespace bovw::cli {

namespace {

struct IndexArguments {
  std::string images;
  std::string vocabulary;
  std::string output;
  bool keypoints = false;
  std::size_t shards = 0;  // 0: one database file
  FeatureOptions features;
  HistogrammerOptions histogrammer;
} args;

constexpr const char* kManifestExtension = ".bovwshards";

// With --shards S, OUT.bovwshards names the manifest and its shards are OUT-0.bovwdb ..
// OUT-(S-1).bovwdb beside it, listed by file name (the manifest resolves them from its folder).
std::vector<std::string> shardFileNames(const std::string& manifest, std::size_t shards) {
  const std::filesystem::path name = std::filesystem::path(manifest).filename();
  if (name.extension() != kManifestExtension || name.stem().empty())
    throw InvalidInput("--output '" + manifest + "': with --shards it names the shards' manifest, which must end in " +
                       kManifestExtension);
  std::vector<std::string> names;
  for (std::size_t s = 0; s < shards; ++s) names.push_back(name.stem().string() + "-" + std::to_string(s) + ".bovwdb");
  return names;
}

std::uintmax_t fileSize(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : size;
}

}  // namespace

CLI::App* addIndexCommand(CLI::App& app) {
  auto* command = app.add_subcommand("index", "Index a folder of images for search (TF-IDF inverted index)");
  command->add_option("IMAGES_DIR", args.images, "folder of images")->required();
  command->add_option("--vocabulary", args.vocabulary, "vocabulary file: " + vocabularyFormatNames())->required();
  command->add_option("--output", args.output, "database file to write (vocabulary, settings and index); with --shards, their manifest (.bovwshards)")->required();
  command->add_option("--shards", args.shards,
                      "split the images into S contiguous parts of about equal bytes, each written as a database "
                      "OUT-i.bovwdb beside --output, which then names their manifest (OUT.bovwshards); search and "
                      "evaluate rank over all shards as over one database. All files or none are written")
      ->check(CLI::Range(1, 4096));
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
  const FeatureSpec features = args.features.spec();
  const std::size_t parts = std::max<std::size_t>(args.shards, 1);
  // Checked before the images are read, so a bad --output costs nothing.
  const std::vector<std::string> shard_files =
      args.shards ? shardFileNames(args.output, parts) : std::vector<std::string>{};
  std::vector<ImageDatabase> databases;
  for (std::size_t s = 0; s < parts; ++s)
    databases.push_back(namingFile(args.vocabulary, [&] { return ImageDatabase(vocabulary, features, options); }));
  auto histogrammer = makeHistogrammer(args.histogrammer.config());
  const ImageHistograms result =
      args.features.histogramFolder(args.images, vocabulary, *histogrammer, "index", args.keypoints);
  std::vector<std::uintmax_t> sizes;
  for (const std::string& name : result.names) sizes.push_back(fileSize(name));
  const std::vector<std::size_t> shard_of = splitBySize(sizes, parts);
  std::uint64_t postings = 0;
  for (std::size_t i = 0; i < result.names.size(); ++i) {
    ImageDatabase& database = databases[shard_of[i]];
    if (args.keypoints) database.add(result.names[i], result.words[i]);
    else database.add(result.names[i], result.histograms.row(static_cast<Eigen::Index>(i)));
  }
  for (const auto& database : databases) postings += database.index().postingCount();

  if (args.shards) {
    // Shards first, the manifest last, all renamed only once every one is written: a failed run
    // leaves no manifest pointing at missing or older shards.
    const std::filesystem::path folder = std::filesystem::path(args.output).parent_path();
    std::vector<StreamWrite> writes;
    for (std::size_t s = 0; s < parts; ++s)
      writes.push_back({(folder / shard_files[s]).string(),
                        [&database = databases[s]](std::ostream& out) { database.write(out); }});
    const ShardManifest manifest = ShardedDatabase::manifestFor(databases.front(), shard_files);
    writes.push_back({args.output, [&manifest](std::ostream& out) { manifest.write(out); }});
    writeFilesAtomically(writes);
  } else {
    databases.front().save(args.output);
  }
  std::cout << "bovw index: " << result.names.size() << " images, " << postings << " postings over K = "
            << vocabulary.size() << " " << vocabulary.descriptorType().toString() << " words"
            << (args.keypoints ? ", keypoints stored" : "");
  if (args.shards) std::cout << ", " << parts << " shards";
  std::cout << "; wrote " << args.output << "\n";
  return 0;
}

}  // namespace bovw::cli
