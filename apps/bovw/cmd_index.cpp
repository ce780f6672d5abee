// `bovw index`: histograms of a folder's images in an inverted index, saved with the vocabulary
// and the feature settings as one database file for `bovw search` and `bovw evaluate`; or, with
// --shards, as several database files and the manifest that lists them.
//
// The same code runs in `bovw-mpi index` on every rank of a job (docs/SCALING.md). Rank 0 lists the
// folder; every rank takes its part of that list (bovw/work_split.hpp) and histograms it on its own
// device (rank_device.hpp). Without --shards the results go to rank 0 (bovw/histogram_exchange.hpp),
// which adds them in the folder's order: the database is byte for byte the one-process database.
// With --shards S, shard s is written by rank s mod R from the images of that shard, under the
// names of a new generation that rank 0 chooses (bovw/shard_generations.hpp), so that no file the
// manifest in place names is touched. Outputs are written in two phases (bovw/atomic_file.hpp's
// PreparedFiles): every rank prepares its files, the ranks agree that all succeeded
// (bovw/rank_agreement.hpp), then every rank renames its files into place and rank 0 the manifest
// last: the switch from the old database to the new. Rank 0 then removes the old generation's
// shards. With one rank (`bovw`) this is the one-process run.
#include "commands.hpp"
#include "feature_options.hpp"
#include "histogrammer_options.hpp"
#include "program.hpp"
#include "rank_device.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/histogram_exchange.hpp>
#include <bovw/image_database.hpp>
#include <bovw/rank_agreement.hpp>
#include <bovw/shard_generations.hpp>
#include <bovw/sharded_database.hpp>
#include <bovw/vocabulary_io.hpp>
#include <bovw/work_split.hpp>

#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <unordered_map>

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

// With --shards S, OUT.bovwshards names the manifest and its shards are OUT-g<G>-0.bovwdb ..
// OUT-g<G>-(S-1).bovwdb beside it, listed by file name (the manifest resolves them from its folder).
void checkManifestName(const std::string& manifest) {
  const std::filesystem::path name = std::filesystem::path(manifest).filename();
  if (name.extension() != kManifestExtension || name.stem().empty())
    throw InvalidInput("--output '" + manifest + "': with --shards it names the shards' manifest, which must end in " +
                       kManifestExtension);
}

// The generation that rank 0's `write` chose, on every rank.
std::uint64_t generationOnEveryRank(Communicator& group, const std::optional<ShardedWrite>& write) {
  const std::string text = write ? std::to_string(write->generation()) : "";
  Bytes bytes(text.begin(), text.end());
  group.broadcast(bytes, 0);
  return std::stoull(std::string(bytes.begin(), bytes.end()));
}

// What this rank writes: its databases (one per output file) and where each goes.
struct Outputs {
  std::vector<ImageDatabase> databases;
  std::vector<std::size_t> shards;  // with --shards, the shard each database is
  std::vector<std::string> paths;

  std::vector<StreamWrite> writes() const {
    std::vector<StreamWrite> writes;
    for (std::size_t i = 0; i < databases.size(); ++i)
      writes.push_back({paths[i], [&database = databases[i]](std::ostream& out) { database.write(out); }});
    return writes;
  }
  std::uint64_t postings() const {
    std::uint64_t total = 0;
    for (const auto& database : databases) total += database.index().postingCount();
    return total;
  }
};

// The image `i` of `results` into `database`: by its words when keypoints are kept, else by its histogram.
void addImage(ImageDatabase& database, const ImageHistograms& results, std::size_t i) {
  if (args.keypoints) database.add(results.names[i], results.words[i]);
  else database.add(results.names[i], results.histograms.row(static_cast<Eigen::Index>(i)));
}

}  // namespace

CLI::App* addIndexCommand(CLI::App& app) {
  auto* command = app.add_subcommand("index", "Index a folder of images for search (TF-IDF inverted index)");
  command->add_option("IMAGES_DIR", args.images, "folder of images")->required();
  command->add_option("--vocabulary", args.vocabulary, "vocabulary file: " + vocabularyFormatNames())->required();
  command->add_option("--output", args.output, "database file to write (vocabulary, settings and index); with --shards, their manifest (.bovwshards)")->required();
  command->add_option("--shards", args.shards,
                      "split the images into S contiguous parts of about equal bytes, each written as a database "
                      "OUT-gG-i.bovwdb beside --output, which then names their manifest (OUT.bovwshards); search and "
                      "evaluate rank over all shards as over one database. All files or none are written; G is new "
                      "for every write, so a database written over stays whole until its manifest is replaced, and "
                      "its shards are removed after that")
      ->check(CLI::Range(1, 4096));
  command->add_flag("--keypoints", args.keypoints,
                    "also store each image's keypoints, words and word signatures (16 bytes per keypoint), for search --verify");
  args.features.addTo(command);
  args.histogrammer.addTo(command);
  return command;
}

int runIndexCommand() {
  checkOutputs({{"--output", args.output}}, {{"--vocabulary", args.vocabulary}}, args.shards ? Writers::EveryRank : Writers::Rank0);
  Communicator& group = ranks();
  const bool root = group.rank() == 0;
  args.features.useThreads(args.histogrammer.threads);
  DatabaseOptions options;
  options.store_keypoints = args.keypoints;
  std::optional<Vocabulary> vocabulary;
  std::optional<FeatureSpec> features;
  std::optional<ImageDatabase> empty;  // checks that vocabulary and features fit; the manifest's identity
  FileList list;
  // Checked before any image is read, so a bad --output or vocabulary costs nothing.
  everyRankOrNone(group, [&] {
    vocabulary = loadVocabulary(args.vocabulary);
    features = args.features.spec();
    if (args.shards) checkManifestName(args.output);
    empty = namingFile(args.vocabulary, [&] { return ImageDatabase(*vocabulary, *features, options); });
    if (!root) return;
    list = withFileSizes(listImages(args.images));
    if (list.paths.empty()) throw InvalidInput("'" + args.images + "' holds no image files");
  });
  list = broadcastFileList(group, list);

  // Contiguous parts of about equal bytes of every listed file (unreadable ones too: which part an
  // image is in cannot depend on what another rank finds): the shards, or without shards one part
  // per rank.
  const std::size_t parts = args.shards ? args.shards : static_cast<std::size_t>(group.size());
  const std::vector<std::size_t> part_of = splitBySize(list.sizes, parts);
  const std::string device = deviceOfRank(group, args.histogrammer.device);
  args.histogrammer.device = device;
  if (group.size() > 1) args.features.surf_device = device;

  ImageHistograms results;
  everyRankOrNone(group, [&] {
    auto histogrammer = makeHistogrammer(args.histogrammer.config());
    ProgressBar bar("index", args.features.quiet || !root);  // rank 0's part stands for the job's progress
    PipelineOptions pipeline = args.features.pipeline(bar);
    pipeline.keep_words = args.keypoints;
    results = histogramImages(filesOfRank(list, part_of, group.size(), group.rank()), *args.features.extractor(),
                              *vocabulary, *histogrammer, pipeline);
  });
  args.features.printProfile();
  for (const auto& failure : results.failures) spdlog::warn("skipped {}", failure.message);  // each rank its own
  const std::int64_t failed = sumOverRanks(group, static_cast<std::int64_t>(results.failures.size()));
  const std::int64_t indexed = sumOverRanks(group, static_cast<std::int64_t>(results.names.size()));
  if (root && failed > 0) spdlog::warn("{} of {} images could not be used", failed, list.paths.size());
  everyRankOrNone(group, [&] {
    if (indexed == 0) throw InvalidInput("no readable image in '" + args.images + "'");
  });

  // Without shards rank 0 holds every image's results, in the folder's order; with shards every
  // rank already holds the images of its shards.
  if (!args.shards) results = gatherImageHistograms(group, results, list.paths);
  Outputs outputs;
  everyRankOrNone(group, [&] {
    auto newDatabase = [&] { return ImageDatabase(*vocabulary, *features, options); };
    if (!args.shards) {
      if (!root) return;
      outputs.databases.push_back(newDatabase());
      outputs.paths.push_back(args.output);
      for (std::size_t i = 0; i < results.names.size(); ++i) addImage(outputs.databases.front(), results, i);
      return;
    }
    std::unordered_map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < list.paths.size(); ++i) position.emplace(list.paths[i], i);
    std::unordered_map<std::size_t, std::size_t> output_of_shard;
    for (std::size_t s = 0; s < parts; ++s) {
      if (rankOfPart(s, group.size()) != group.rank()) continue;
      output_of_shard[s] = outputs.databases.size();
      outputs.databases.push_back(newDatabase());
      outputs.shards.push_back(s);
    }
    for (std::size_t i = 0; i < results.names.size(); ++i)
      addImage(outputs.databases[output_of_shard.at(part_of[position.at(results.names[i])])], results, i);
  });
  const std::int64_t postings = sumOverRanks(group, static_cast<std::int64_t>(outputs.postings()));

  // With shards, rank 0 holds the folder from choosing the generation to removing the old one, so
  // that two writers of one database take turns.
  std::optional<ShardedWrite> write;
  std::vector<std::string> shard_files;
  if (args.shards) {
    everyRankOrNone(group, [&] {
      if (root) write.emplace(args.output, [](const std::string& line) { spdlog::warn("{}", line); });
    });
    shard_files = shardFileNames(args.output, generationOnEveryRank(group, write), parts);
    const std::filesystem::path folder = std::filesystem::path(args.output).parent_path();
    for (std::size_t shard : outputs.shards) outputs.paths.push_back((folder / shard_files[shard]).string());
  }

  // Every rank prepares its files (and rank 0 the manifest); only when all have, each renames its
  // files into place; the manifest goes last, once every shard is in place. A failure anywhere before
  // the renames leaves no output and no temporary; one during them at most shards that no manifest
  // names, removed by the next write.
  std::optional<PreparedFiles> prepared, manifest;
  everyRankOrNone(group, [&] {
    prepared.emplace(outputs.writes());
    if (!root || !args.shards) return;
    const ShardManifest contents = ShardedDatabase::manifestFor(*empty, shard_files);
    namingFile(args.output, [&] {
      manifest.emplace(std::vector<StreamWrite>{{args.output, [&](std::ostream& out) { contents.write(out); }}});
    });
  });
  everyRankOrNone(group, [&] { prepared->commit(); });
  everyRankOrNone(group, [&] {
    if (manifest) manifest->commit();
  });
  if (write) write->removeOldShards(shard_files);

  if (!printsResults()) return 0;
  std::cout << "bovw index: " << indexed << " images, " << postings << " postings over K = " << vocabulary->size()
            << " " << vocabulary->descriptorType().toString() << " words" << (args.keypoints ? ", keypoints stored" : "");
  if (args.shards) std::cout << ", " << parts << " shards";
  std::cout << "; wrote " << args.output << "\n";
  return 0;
}

}  // namespace bovw::cli
