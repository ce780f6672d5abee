// indexImages: a database built from image files over the ranks of a job and written all or
// nothing (`bovw index` and `bovw-mpi index`; docs/SCALING.md).
//
// Rank 0's list is shared; every rank takes its contiguous part of about equal bytes
// (src/distributed/work_split.hpp) and histograms it; the extractor and histogrammer (OpenCL
// contexts, kernels) are made on a thread of their own while rank 0 lists the files. Without shards
// each rank posts every finished batch to rank 0 as it completes (src/pipeline/result_stream.hpp),
// and rank 0 adds each rank's to a database of that rank's part as they come, on a thread of their
// own, and appends the parts in rank order at the end (src/search/index_parts.hpp): the database is
// byte for byte the one-process database. With S shards, shard s is written by rank s mod R from the images of
// that shard, under the names of a new generation that rank 0 chooses (bovw/shard_generations.hpp),
// so that no file the manifest in place names is touched. Outputs are written in two phases
// (bovw/atomic_file.hpp's PreparedFiles): every rank prepares its files, the ranks agree that all
// succeeded (bovw/rank_agreement.hpp), then every rank renames its files into place and rank 0 the
// manifest last: the switch from the old database to the new. Rank 0 then removes the old
// generation's shards.
#include <bovw/image_search.hpp>
#include <bovw/live_database.hpp>

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>
#include "pipeline/result_stream.hpp"
#include "search/index_parts.hpp"
#include <bovw/rank_agreement.hpp>
#include <bovw/shard_generations.hpp>
#include <bovw/sharded_database.hpp>
#include "distributed/work_split.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <unordered_map>

namespace bovw {

namespace {

constexpr const char* kManifestExtension = ".bovwshards";

// With shards, OUT.bovwshards names the manifest and its shards are OUT-g<G>-<s>.bovwdb beside it.
void checkManifestName(const std::string& manifest) {
  const std::filesystem::path name = std::filesystem::path(manifest).filename();
  if (name.extension() != kManifestExtension || name.stem().empty())
    throw InvalidInput(manifest, std::string("names the shards' manifest, which must end in ") + kManifestExtension);
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
  std::vector<std::size_t> shards;  // with shards, the shard each database is
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
  if (database.storesKeypoints()) database.add(results.names[i], results.words[i]);
  else database.add(results.names[i], results.histograms.row(static_cast<Eigen::Index>(i)));
}

// Seconds since `start`, for IndexProfile.
double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs `step`, adding its seconds to `seconds`.
template <typename Step>
void timed(double& seconds, Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  struct Add {
    double& seconds;
    std::chrono::steady_clock::time_point start;
    ~Add() { seconds += since(start); }
  } add{seconds, start};
  step();
}

// The times into `profile` (when given), waiting being what the others leave of the wall time.
void report(IndexProfile times, std::chrono::steady_clock::time_point started, IndexProfile* profile) {
  if (!profile) return;
  times.waiting_s = std::max(0.0, since(started) - times.list_s - times.setup_wait_s - times.work_s -
                                      times.gather_s - times.write_s);
  *profile = times;
}

// What computes on this rank: made while the file list is made and shared.
struct Engines {
  std::unique_ptr<FeatureExtractor> extractor;
  std::unique_ptr<Histogrammer> histogrammer;
};

// Where the images come from, in messages: "'photos/' holds no image files".
struct ImageSource {
  std::function<std::vector<std::string>()> list;  // rank 0's list
  std::string none;                                 // the problem when it is empty
  std::string none_readable;                        // the problem when no image in it can be read
};

// The job, with rank 0's list made in the first agreement, so that a folder that cannot be listed
// fails every rank alike.
IndexSummary indexListed(Communicator& group, const ImageSource& source, const Vocabulary& vocabulary, const FeatureSpec& features,
                         const std::string& output, const IndexOptions& index, const ImageSearchOptions& options) {
  const bool root = group.rank() == 0;
  const bool keypoints = index.database.store_keypoints;
  const auto started = std::chrono::steady_clock::now();
  IndexProfile times;
  std::optional<ImageDatabase> empty;  // checks that vocabulary and features fit; the manifest's identity
  std::future<Engines> engines;         // after `empty`, which it uses: destroyed (waited for) first
  FileList list;
  // Checked before any image is read, so a bad output or vocabulary costs nothing.
  everyRankOrNone(group, [&] {
    if (index.shards) checkManifestName(output);
    if (index.live && index.shards) throw InvalidInput("a live database is one folder: --live takes no shards");
    std::error_code error;
    if (index.live && std::filesystem::exists(std::filesystem::symlink_status(output, error)))
      throw InvalidInput(output, "exists already; a live database is written into a new folder");
    empty.emplace(vocabulary, features, index.database);
    // OpenCL start-up (contexts, SURF's kernels) while rank 0 lists the files and every rank waits
    // for the list; what it throws fails the work step below, on every rank alike.
    engines = std::async(std::launch::async, [&database = *empty, &options, &times] {
      const auto start = std::chrono::steady_clock::now();
      Engines made;
      made.extractor = database.makeExtractor(extractorBeside(options.extractor, options.histogrammer));
      made.histogrammer = makeHistogrammer(options.histogrammer);
      times.setup_s = since(start);
      return made;
    });
    if (!root) return;
    list = withFileSizes(source.list());
    if (list.paths.empty()) throw InvalidInput(source.none);
  });
  list = broadcastFileList(group, list);

  // Contiguous parts of about equal bytes of every listed file (unreadable ones too: which part an
  // image is in cannot depend on what another rank finds): the shards, or one part per rank.
  const std::size_t parts = index.shards ? index.shards : static_cast<std::size_t>(group.size());
  const std::vector<std::size_t> part_of = splitBySize(list.sizes, parts);
  times.list_s = since(started);

  // Without shards rank 0 builds the one database from every rank's batches as they arrive, in the
  // list's order (each rank's part follows the previous rank's); with shards every rank adds its
  // images to its shards' databases as they come (each shard's images in the list's order).
  Outputs outputs;
  auto newDatabase = [&] { return ImageDatabase(vocabulary, features, index.database); };
  std::optional<detail::ResultStream> stream;
  std::optional<detail::IndexParts> rank_parts;  // on rank 0, without shards
  std::unordered_map<std::string, std::size_t> position;  // with shards: of each path in the list
  std::unordered_map<std::size_t, std::size_t> output_of_shard;
  std::function<void(const ImageHistograms&)> keep;  // this rank's batches, with shards
  if (!index.shards) {
    if (root) {
      std::vector<ImageDatabase> empties;
      for (int r = 0; r < group.size(); ++r) empties.push_back(newDatabase());
      rank_parts.emplace(std::move(empties), addImage);
      outputs.paths.push_back(output);
    }
    stream.emplace(group, list.paths, 0, [&](int rank, ImageHistograms batch) {
      rank_parts->take(static_cast<std::size_t>(rank), std::move(batch));
    });
  } else {
    for (std::size_t i = 0; i < list.paths.size(); ++i) position.emplace(list.paths[i], i);
    for (std::size_t s = 0; s < parts; ++s) {
      if (rankOfPart(s, group.size()) != group.rank()) continue;
      output_of_shard[s] = outputs.databases.size();
      outputs.databases.push_back(newDatabase());
      outputs.shards.push_back(s);
    }
    keep = [&](const ImageHistograms& batch) {
      for (std::size_t i = 0; i < batch.names.size(); ++i)
        addImage(outputs.databases[output_of_shard.at(part_of[position.at(batch.names[i])])], batch, i);
    };
  }
  std::exception_ptr failure;
  std::vector<ImageFailure> failures;
  std::int64_t indexed = 0;
  try {
    Engines made;
    timed(times.setup_wait_s, [&] { made = engines.get(); });
    PipelineOptions pipeline = options.pipeline;
    pipeline.keep_words = keypoints;
    timed(times.work_s, [&] {
      failures = histogramImagesInBatches(
          filesOfRank(list, part_of, group.size(), group.rank()), *made.extractor, vocabulary, *made.histogrammer,
          pipeline, [&](ImageHistograms&& batch) {
            indexed += static_cast<std::int64_t>(batch.names.size());
            if (stream) stream->add(std::move(batch));
            else keep(batch);
          });
    });
  } catch (...) {
    failure = std::current_exception();
  }
  // Every rank ends its stream, whatever happened: no rank is left sending or receiving. Rank 0
  // then has every part added and appends them.
  if (stream) {
    try {
      timed(times.gather_s, [&] { stream->finish(); });
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
    times.gather_s -= stream->waitedSeconds();  // waiting for the others' results is waiting
    times.bytes = stream->bytes();
    try {
      if (rank_parts && !failure) timed(times.gather_s, [&] { outputs.databases.push_back(rank_parts->finish()); });
    } catch (...) {
      failure = std::current_exception();
    }
    rank_parts.reset();
  }
  throwIfAnyRankFailed(group, failure);
  times.images = indexed;
  if (index.skipped)
    for (const ImageFailure& skipped : failures) index.skipped(skipped);
  IndexSummary summary;
  summary.failures = failures;
  summary.failed = sumOverRanks(group, static_cast<std::int64_t>(failures.size()));
  summary.images = sumOverRanks(group, indexed);
  everyRankOrNone(group, [&] {
    if (summary.images == 0) throw InvalidInput(source.none_readable);
  });

  summary.postings = sumOverRanks(group, static_cast<std::int64_t>(outputs.postings()));

  // A live database: rank 0 writes the folder (under a temporary name renamed into place).
  if (index.live) {
    everyRankOrNone(group, [&] {
      if (root) timed(times.write_s, [&] { LiveDatabase::create(output, outputs.databases.front()); });
    });
    report(times, started, index.profile);
    return summary;
  }

  // With shards, rank 0 holds the folder from choosing the generation to removing the old one, so
  // that two writers of one database take turns.
  std::optional<ShardedWrite> write;
  std::vector<std::string> shard_files;
  if (index.shards) {
    everyRankOrNone(group, [&] {
      if (root) write.emplace(output, index.tell);
    });
    shard_files = shardFileNames(output, generationOnEveryRank(group, write), parts);
    const std::filesystem::path folder = std::filesystem::path(output).parent_path();
    for (std::size_t shard : outputs.shards) outputs.paths.push_back((folder / shard_files[shard]).string());
  }

  // Every rank prepares its files (and rank 0 the manifest); only when all have, each renames its
  // files into place; the manifest goes last, once every shard is in place. A failure anywhere before
  // the renames leaves no output and no temporary; one during them at most shards that no manifest
  // names, removed by the next write.
  std::optional<PreparedFiles> prepared, manifest;
  everyRankOrNone(group, [&] {
    timed(times.write_s, [&] {
      prepared.emplace(outputs.writes());
      if (!root || !index.shards) return;
      const ShardManifest contents = ShardedDatabase::manifestFor(*empty, shard_files);
      namingFile(output, [&] {
        manifest.emplace(std::vector<StreamWrite>{{output, [&](std::ostream& out) { contents.write(out); }}});
      });
    });
  });
  everyRankOrNone(group, [&] { timed(times.write_s, [&] { prepared->commit(); }); });
  everyRankOrNone(group, [&] {
    if (manifest) timed(times.write_s, [&] { manifest->commit(); });
  });
  if (write) write->removeOldShards(shard_files);
  report(times, started, index.profile);
  return summary;
}

}  // namespace

IndexSummary indexImages(Communicator& ranks, const std::vector<std::string>& image_paths,
                         const Vocabulary& vocabulary, const FeatureSpec& features, const std::string& output,
                         const IndexOptions& index, const ImageSearchOptions& options) {
  const ImageSource source{[&] { return image_paths; }, "no images to index",
                           "none of the " + std::to_string(image_paths.size()) + " images to index could be read"};
  return indexListed(ranks, source, vocabulary, features, output, index, options);
}

IndexSummary indexFolder(Communicator& ranks, const std::string& folder, const Vocabulary& vocabulary,
                         const FeatureSpec& features, const std::string& output, const IndexOptions& index,
                         const ImageSearchOptions& options) {
  const ImageSource source{[&] { return listImages(folder); }, "'" + folder + "' holds no image files",
                           "no readable image in '" + folder + "'"};
  return indexListed(ranks, source, vocabulary, features, output, index, options);
}

}  // namespace bovw
