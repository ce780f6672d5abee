// `bovw search`: the most similar indexed images for each query image, in one database or over the
// shards a manifest lists. The same code runs in `bovw` (one rank, every shard) and in each rank of
// `bovw-mpi` (the rank's shards): rank 0 reads the queries and prints the results, every rank takes
// part in each query's collective ranking and verification (bovw/distributed_shards.hpp).
#include "commands.hpp"
#include "feature_options.hpp"
#include "number_checks.hpp"
#include "program.hpp"
#include "query_options.hpp"
#include "search_report.hpp"
#include "verify_options.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/distributed_shards.hpp>
#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/rank_agreement.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace bovw::cli {

namespace {

struct SearchArguments {
  std::string index;
  std::vector<std::string> queries;
  std::size_t top = 10;
  std::string format = "csv";
  std::string output;
  bool exclude_query = false;
  QueryOptions query;
  VerifyOptions verify;
} args;

// Rank 0's queries: their histograms (and words, for verification), the failures reported. Throws
// if none could be read.
struct ReadQueries {
  ImageHistograms histograms;
  std::size_t failed = 0;
};

// The query images: each argument an image, or a folder of images (its image files in name order).
std::vector<std::string> queryImages() {
  std::vector<std::string> images;
  for (const std::string& query : args.queries) {
    std::error_code error;
    if (!std::filesystem::is_directory(query, error)) {
      images.push_back(query);
      continue;
    }
    const std::vector<std::string> listed = listImages(query);
    if (listed.empty()) spdlog::warn("{}: the folder holds no image files", query);
    images.insert(images.end(), listed.begin(), listed.end());
  }
  return images;
}

ReadQueries readQueries(const DistributedShards& database, bool verify) {
  const std::vector<std::string> images = queryImages();
  if (images.empty()) throw InvalidInput("no query image: the folders given hold none");
  // Rank 0 holds shard 0 (DistributedShards::load); every shard has its features and vocabulary.
  ReadQueries read{args.query.histogramQueries(database.localShard(0), images, false, "search", verify), 0};
  read.failed = reportFailures(read.histograms.failures, images.size());
  if (read.histograms.names.empty()) throw InvalidInput("no query image could be read");
  return read;
}

// Whether the indexed image `name` is the query image itself: the same path, or another path to the
// same file (a query given as ./a.jpg, indexed as a.jpg).
bool isQueryItself(const std::string& name, const std::string& query) {
  if (name == query) return true;
  std::error_code error;
  return std::filesystem::equivalent(name, query, error) && !error;
}

}  // namespace

CLI::App* addSearchCommand(CLI::App& app) {
  auto* command = app.add_subcommand("search", "Find the indexed images most similar to query images");
  command->add_option("QUERY_IMAGE", args.queries, "query images, or folders of them")->required();
  command->add_option("--index", args.index,
                      "database written by bovw index, or the manifest of its shards (index --shards)")->required();
  command->add_option("--top", args.top, "results per query")->check(kPositive)->capture_default_str();
  command->add_option("--format", args.format, "csv (query,rank,image,score), json, or html (thumbnails)")
      ->check(CLI::IsMember({"csv", "json", "html"}))
      ->capture_default_str();
  command->add_option("--output", args.output, "file to write (default: standard output; html: bovw-search.html)");
  command->add_flag("--exclude-query", args.exclude_query,
                    "leave the query image itself out of its results (when it is indexed too: the same file)");
  args.query.addTo(command, ScoringChoice::One);
  args.verify.addTo(command);
  return command;
}

int runSearchCommand() {
  Communicator& group = ranks();
  const DistributedShards database = DistributedShards::load(group, args.index);
  const bool verify = args.verify.enabled();
  ReadQueries read;
  // The checks fail on every rank alike, the queries on rank 0 alone: one agreement for both, so
  // that every rank ends normally with the same error.
  everyRankOrNone(group, [&] {
    if (database.size() == 0) throw InvalidInput("'" + args.index + "': the index holds no image yet");
    if (verify) VerifyOptions::checkVerifiable(database, args.index);
    if (printsResults()) read = readQueries(database, verify);  // rank 0
  });
  const ImageHistograms& histograms = read.histograms;  // empty but on rank 0
  const auto queries =
      static_cast<std::size_t>(sumOverRanks(group, static_cast<std::int64_t>(histograms.names.size())));

  std::vector<QueryResults> results;
  const ScoringOptions scoring = args.query.parsedScoring();
  // Verification re-ranks a shortlist longer than --top: ask the index for that many.
  // One more with --exclude-query, which takes the query itself out before verification.
  const std::size_t ranked = (verify ? std::max(args.top, args.verify.shortlist) : args.top) + (args.exclude_query ? 1 : 0);
  // Rank 0 passes each query; the others pass nothing, the collective calls send them rank 0's.
  const bool mine = printsResults();
  const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> no_histogram;
  const ImageWords no_words;
  for (std::size_t q = 0; q < queries; ++q) {
    auto ranking = database.query(mine ? HistogramRef(histograms.histograms.row(static_cast<Eigen::Index>(q)))
                                       : HistogramRef(no_histogram),
                                  ranked, scoring);
    QueryResults query{mine ? histograms.names[q] : std::string(), {}, std::nullopt};
    if (args.exclude_query) {
      // Rank 0 decides (it has the query's name); every rank's list is rank 0's for the collective verify.
      if (mine)
        ranking.erase(std::remove_if(ranking.begin(), ranking.end(),
                                     [&](const ShardedResult& r) { return isQueryItself(r.name, query.query); }),
                      ranking.end());
      if (ranking.size() == ranked) ranking.pop_back();
    }
    if (verify) {
      VerificationReport report;
      for (auto& hit : database.verify(mine ? histograms.words[q] : no_words, ranking, args.verify.options(), &report))
        query.results.push_back(std::move(hit.result));
      query.verification = report;
      if (!args.query.quiet)
        spdlog::info("{}: {} of {} results verified, {:.2f} ms", query.query, report.verified, report.checked,
                     report.milliseconds);
    } else {
      query.results = unverified(ranking);
    }
    if (query.results.size() > args.top) query.results.resize(args.top);
    results.push_back(std::move(query));
  }
  if (!printsResults()) return 0;
  auto write = [&](std::ostream& out) {
    if (args.format == "csv") writeCsv(out, results);
    else if (args.format == "json") writeJson(out, results);
    else writeHtml(out, results, args.index);
  };
  std::string output = args.output;
  if (output.empty() && args.format == "html") output = "bovw-search.html";
  if (output.empty()) {
    write(std::cout);
  } else {
    writeFileAtomically(output, write);
    std::cerr << "bovw search: wrote " << output << "\n";
  }
  return read.failed ? 1 : 0;
}

}  // namespace bovw::cli
