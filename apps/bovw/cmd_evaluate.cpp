// `bovw evaluate`: retrieval quality of an index on a UKBench-style set (N-S score and mAP), for one
// or several scoring option sets side by side, with each one's ranking time per query.
#include "commands.hpp"
#include "feature_options.hpp"
#include "query_options.hpp"
#include "verify_options.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_search.hpp>
#include <bovw/retrieval_metrics.hpp>


#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

namespace bovw::cli {

namespace {

struct EvaluateArguments {
  std::string index;
  std::string groups;
  std::string json;
  QueryOptions query;
  VerifyOptions verify;
} args;

// An indexed image: its shard and its id there (shard 0 of a single database).
using ImageKey = std::pair<std::size_t, ImageId>;

// The indexed image that a groups-file entry names: the same path, or the same file name.
std::map<std::string, IndexedImage> indexedByName(const ImageSearch& database) {
  std::map<std::string, IndexedImage> by_name;
  for (const IndexedImage& image : database.images()) {
    by_name[image.name] = image;
    by_name.emplace(std::filesystem::path(image.name).filename().string(), image);
  }
  return by_name;
}

// One scoring option set's quality and speed, with or without geometric verification.
struct ScoringRow {
  ScoringOptions options;
  std::size_t verified_top = 0;  // 0: the bag-of-words ranking itself
  std::size_t expand = 0;        // query expansion from up to this many verified results; 0: none
  RetrievalScores scores;
  double ms_per_query;  // ranking (and verification): the queries' features are extracted once, before
  // With verification: the verified results of every query, and those outside the query's group
  // (chance matches; their rate is what a user can trust a "verified" by).
  std::size_t verified = 0;
  std::size_t falsely_verified = 0;

  std::string label() const {
    return toString(options) + (verified_top ? " verify" + std::to_string(verified_top) : "") +
           (expand ? " expand" + std::to_string(expand) : "");
  }
};

// Whether the queries' words are needed (their histograms are not enough): to verify, or to score by
// Hamming embedding.
bool needsWords(const SearchOptions& search) {
  return search.verify > 0 || (search.scoring && search.scoring->similarity == Scoring::Hamming);
}

// Ranking passes timed per option set. The median pass is reported: the rankings are the same in
// every pass, the times are not on a machine shared with other work. Verification costs 10-100
// times the ranking, so rows with it time one pass.
constexpr int kTimedPasses = 5;

// Ranks every query against the whole index (and verifies the top `verify.shortlist` when
// enabled): `position` maps an indexed id to its groups-file entry. One untimed query first
// computes the option set's weights (once per index, O(postings)), so that every row times the
// same steady-state work.
ScoringRow evaluateScoring(const ImageSearch& database, const ImageHistograms& queries,
                           const std::map<ImageKey, std::size_t>& position, const std::vector<std::string>& groups,
                           const ScoringOptions& options, const VerifyOptions& verify) {
  const auto count = queries.names.size();
  SearchOptions search;
  search.top = 1;
  search.scoring = options;
  if (count > 0) {
    if (needsWords(search)) database.search(queries.words[0], search);
    else database.search(queries.histograms.row(0), search);
  }
  search.top = database.size();  // the whole ranking
  search.verify = verify.shortlist;
  search.verification = verify.settings;
  search.expand = verify.expand;
  std::vector<std::vector<std::size_t>> rankings(count);
  std::size_t verified = 0, falsely_verified = 0;  // of the last pass
  std::vector<double> pass_ms;
  const int passes = verify.enabled() ? 1 : kTimedPasses;
  for (int pass = 0; pass < passes; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t q = 0; q < count; ++q) {
      const std::vector<SearchHit> hits =
          needsWords(search) ? database.search(queries.words[q], search, queries.names[q])
                             : database.search(queries.histograms.row(static_cast<Eigen::Index>(q)), search);
      rankings[q].clear();
      for (const SearchHit& hit : hits) {
        const auto p = position.find({hit.shard, hit.id});
        if (p == position.end()) continue;  // indexed, but not in the groups file
        rankings[q].push_back(p->second);
        if (!hit.verified || pass + 1 < passes) continue;
        ++verified;
        if (groups[p->second] != groups[q]) ++falsely_verified;  // query q is the groups file's entry q
      }
    }
    pass_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(pass_ms.begin(), pass_ms.begin() + passes / 2, pass_ms.end());
  const double median_ms = pass_ms[static_cast<std::size_t>(passes / 2)];
  return {options, verify.shortlist, verify.expand, scoreRankings(rankings, groups),
          median_ms / static_cast<double>(std::max<std::size_t>(count, 1)), verified, falsely_verified};
}

// One row per option set, the names padded to one column.
void printTable(std::ostream& out, const std::vector<ScoringRow>& rows) {
  std::size_t width = std::string("scoring").size();
  for (const auto& row : rows) width = std::max(width, row.label().size());
  const auto w = static_cast<int>(width);
  const bool verification = std::any_of(rows.begin(), rows.end(), [](const ScoringRow& r) { return r.verified_top; });
  out << "  " << std::left << std::setw(w) << "scoring" << std::right << "  N-S (of 4)     mAP  ms/query"
      << (verification ? "  verified (outside the group)" : "") << "\n";
  for (const auto& row : rows) {
    out << "  " << std::left << std::setw(w) << row.label() << std::right << std::fixed << std::setprecision(3)
        << std::setw(12) << row.scores.ns_score << std::setw(8) << row.scores.mean_ap << std::setprecision(4)
        << std::setw(10) << row.ms_per_query;
    if (row.verified_top) out << std::setw(10) << row.verified << " (" << row.falsely_verified << ")";
    out << "\n";
  }
}

}  // namespace

CLI::App* addEvaluateCommand(CLI::App& app) {
  auto* command = app.add_subcommand(
      "evaluate",
      "N-S score (relevant images in the top 4; 4 is perfect), mAP and ranking time per query (median of 5 "
      "passes) of an index on a grouped set, for each --scoring side by side; with --verify N each also with its "
      "top N verified geometrically (one timed pass), and with --expand M also expanded from M verified results");
  command->add_option("--index", args.index,
                      "database written by bovw index, or the manifest of its shards (index --shards)")->required();
  command->add_option("--groups", args.groups, "CSV with header image,group: the views of each object or scene")
      ->required();
  command->add_option("--json", args.json,
                      "also write the scores as JSON: a row per scoring under \"scorings\", the first one's also at the top");
  args.query.addTo(command, ScoringChoice::List);
  args.verify.addTo(command);
  return command;
}

int runEvaluateCommand() {
  checkOutputs({{"--json", args.json}}, {{"--index", args.index}, {"--groups", args.groups}});
  const auto entries = readGroupsCsv(args.groups);
  ProgressBar bar("evaluate", args.query.quiet);
  // Strict: a query that cannot be read would make the scores meaningless.
  const ImageSearch database = ImageSearch::open(args.index, args.query.engine(bar, true));
  if (database.size() == 0) throw InvalidInput("'" + args.index + "': the index holds no image yet");
  const auto by_name = indexedByName(database);

  // Every listed image must be indexed; queries are the indexed images themselves, re-extracted.
  std::vector<std::string> paths;
  std::map<ImageKey, std::size_t> position;  // indexed image -> entry
  std::vector<std::string> groups;
  for (const auto& entry : entries) {
    const auto it = by_name.find(entry.image);
    if (it == by_name.end())
      throw InvalidInput("'" + args.groups + "': image '" + entry.image + "' is not in the index '" + args.index + "'");
    const IndexedImage& image = it->second;
    if (!position.emplace(ImageKey{image.shard, image.id}, paths.size()).second)
      throw InvalidInput("'" + args.groups + "': image '" + entry.image + "' is the indexed image '" + image.name +
                         "', which an earlier line already lists");
    paths.push_back(image.name);
    groups.push_back(entry.group);
  }
  const std::vector<ScoringOptions> scorings = args.query.parsedScoringList(database);
  if (args.verify.enabled()) VerifyOptions::checkVerifiable(database, args.index);
  const auto start = std::chrono::steady_clock::now();
  const bool hamming = std::any_of(scorings.begin(), scorings.end(),
                                  [](const ScoringOptions& o) { return o.similarity == Scoring::Hamming; });
  const ImageHistograms histograms = database.histograms(paths, args.verify.enabled() || hamming);
  bar.finish();
  for (std::size_t q = 0; q < histograms.names.size(); ++q)
    warnIfFeatureless(histograms.names[q], histograms.descriptor_counts[q]);
  const double extraction_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // With --verify, each scoring is reported plain and verified, side by side; with --expand too, also
  // verified and expanded.
  std::vector<ScoringRow> rows;
  VerifyOptions unexpanded = args.verify;
  unexpanded.expand = 0;
  for (const ScoringOptions& options : scorings) {
    rows.push_back(evaluateScoring(database, histograms, position, groups, options, VerifyOptions()));
    if (args.verify.enabled())
      rows.push_back(evaluateScoring(database, histograms, position, groups, options, unexpanded));
    if (args.verify.expand > 0)
      rows.push_back(evaluateScoring(database, histograms, position, groups, options, args.verify));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::cout << "bovw evaluate: " << rows.front().scores.queries << " queries, " << database.size()
            << " indexed images, K = " << database.vocabulary().size() << "\n";
  printTable(std::cout, rows);
  if (!args.json.empty()) {
    nlohmann::json table = nlohmann::json::array();
    for (const auto& row : rows) {
      table.push_back({{"scoring", toString(row.options)},
                       {"verified_top", row.verified_top},
                       {"expand", row.expand},
                       {"ns_score", row.scores.ns_score},
                       {"mean_ap", row.scores.mean_ap},
                       {"ms_per_query", row.ms_per_query}});
      if (row.verified_top) {  // what verification let through
        table.back()["verified"] = row.verified;
        table.back()["falsely_verified"] = row.falsely_verified;
      }
    }
    // The first row also at the top level, where a single-scoring report always had it.
    const nlohmann::json j = {{"index", args.index},
                              {"groups", args.groups},
                              {"queries", rows.front().scores.queries},
                              {"indexed_images", database.size()},
                              {"words", database.vocabulary().size()},
                              {"descriptor_type", database.vocabulary().descriptorType().toString()},
                              {"scoring", toString(rows.front().options)},
                              {"ns_score", rows.front().scores.ns_score},
                              {"mean_ap", rows.front().scores.mean_ap},
                              {"extraction_seconds", extraction_seconds},
                              {"seconds", seconds},
                              {"scorings", table}};
    writeFileAtomically(args.json, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
  }
  return 0;
}

}  // namespace bovw::cli
