// `bovw index`: histograms of a folder's images in an inverted index, saved with the vocabulary
// and the feature settings as one database file for `bovw search` and `bovw evaluate`; or, with
// --shards, as several database files and the manifest that lists them. A call of the library's
// indexFolder (bovw/image_search.hpp), which also runs in `bovw-mpi index` on every rank of a job
// (docs/SCALING.md), each rank on its own device (rank_device.hpp).
#include "commands.hpp"
#include "feature_options.hpp"
#include "histogrammer_options.hpp"
#include "program.hpp"
#include "rank_device.hpp"
#include "rank_profile.hpp"

#include <bovw/error.hpp>
#include <bovw/image_search.hpp>
#include <bovw/rank_agreement.hpp>
#include <bovw/vocabulary_io.hpp>

#include <spdlog/spdlog.h>

#include <future>
#include <iostream>
#include <optional>

namespace bovw::cli {

namespace {

struct IndexArguments {
  std::string images;
  std::string vocabulary;
  std::string output;
  bool keypoints = false;
  bool live = false;
  std::size_t shards = 0;  // 0: one database file
  FeatureOptions features;
  HistogrammerOptions histogrammer;
} args;

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
  command->add_flag("--live", args.live,
                    "write a live database: a new folder at --output that bovw add and bovw remove change while "
                    "others search it (each change durable when the command returns)");
  command->add_flag("--keypoints", args.keypoints,
                    "also store each image's keypoints, words, word signatures, scales and angles (18 bytes per "
                    "keypoint), for search --verify and --scoring hamming");
  args.features.addTo(command);
  args.histogrammer.addTo(command);
  return command;
}

int runIndexCommand() {
  checkOutputs({{"--output", args.output}}, {{"--vocabulary", args.vocabulary}}, args.shards ? Writers::EveryRank : Writers::Rank0);
  Communicator& group = ranks();
  const bool root = group.rank() == 0;
  args.features.useThreads(args.histogrammer.threads);
  IndexOptions index;
  index.database.store_keypoints = args.keypoints;
  index.shards = args.shards;
  index.live = args.live;
  index.tell = [](const std::string& line) { spdlog::warn("{}", line); };
  index.skipped = [](const ImageFailure& failure) { spdlog::warn("skipped {}", failure.message); };  // each rank its own
  std::optional<Vocabulary> vocabulary;
  std::optional<FeatureSpec> features;
  // The vocabulary loads while the ranks choose their devices (OpenCL's platforms listed, a gather).
  std::future<Vocabulary> loading =
      std::async(std::launch::async, [path = args.vocabulary] { return loadVocabulary(path); });
  const std::string device = deviceOfRank(group, args.histogrammer.device);
  // Checked before any image is read, naming the vocabulary file if it does not fit the features.
  everyRankOrNone(group, [&] {
    vocabulary = loading.get();
    features = args.features.spec();
    namingFile(args.vocabulary, [&] { ImageDatabase(*vocabulary, *features, index.database); });
  });
  args.histogrammer.device = device;
  // bovw-mpi: SURF on the rank's device too, so that the fused route (SURF and histograms on one
  // device) holds for every rank, --device given or not (bovw keeps SURF on $BOVW_DEVICE's choice).
  if (distributedProgram()) args.features.surf_device = device;

  ImageSearchOptions how;
  how.histogrammer = args.histogrammer.config();
  how.extractor = args.features.extractorOptions();
  IndexSummary summary;
  {
    ProgressBar bar("index", args.features.quiet || !root);  // rank 0's part stands for the job's progress
    how.pipeline = args.features.pipeline(bar);
    // bovw-mpi --profile: each rank's phases, from its process's start (MPI, the vocabulary and the
    // device choice come before this call).
    IndexProfile phases;
    const bool rank_profile = args.features.profile && distributedProgram();
    if (rank_profile) index.profile = &phases;
    const double before = rank_profile ? rankClock() : 0;
    summary = indexFolder(group, args.images, *vocabulary, *features, args.output, index, how);
    if (rank_profile) printRankProfiles(group, before, phases, rankClock());
  }
  args.features.printProfile();
  if (root && summary.failed > 0)
    spdlog::warn("{} of {} images could not be used", summary.failed, summary.images + summary.failed);

  if (!printsResults()) return 0;
  std::cout << "bovw index: " << summary.images << " images, " << summary.postings << " postings over K = "
            << vocabulary->size() << " " << vocabulary->descriptorType().toString() << " words"
            << (args.keypoints ? ", keypoints stored" : "") << (args.live ? ", live" : "");
  if (args.shards) std::cout << ", " << args.shards << " shards";
  std::cout << "; wrote " << args.output << "\n";
  return 0;
}

}  // namespace bovw::cli
