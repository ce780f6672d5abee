// `bovw evaluate`: retrieval quality of an index on a UKBench-style set (N-S score and mAP).
#include "commands.hpp"
#include "feature_options.hpp"
#include "query_options.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/retrieval_metrics.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>

namespace bovw::cli {

namespace {

struct EvaluateArguments {
  std::string index;
  std::string groups;
  std::string json;
  QueryOptions query;
} args;

// The indexed image that a groups-file entry names: the same path, or the same file name.
std::map<std::string, ImageId> indexedByName(const InvertedIndex& index) {
  std::map<std::string, ImageId> by_name;
  for (ImageId id : index.ids()) {
    const std::string name = index.name(id);
    by_name[name] = id;
    by_name.emplace(std::filesystem::path(name).filename().string(), id);
  }
  return by_name;
}

}  // namespace

CLI::App* addEvaluateCommand(CLI::App& app) {
  auto* command = app.add_subcommand(
      "evaluate", "N-S score (relevant images in the top 4; 4 is perfect) and mAP of an index on a grouped set");
  command->add_option("--index", args.index, "database written by bovw index")->required();
  command->add_option("--groups", args.groups, "CSV with header image,group: the views of each object or scene")
      ->required();
  command->add_option("--json", args.json, "also write the scores as JSON");
  args.query.addTo(command);
  return command;
}

int runEvaluateCommand() {
  const auto entries = readGroupsCsv(args.groups);
  const ImageDatabase database = ImageDatabase::load(args.index);
  const InvertedIndex& index = database.index();
  if (index.empty()) throw InvalidInput("'" + args.index + "': the index holds no image yet");
  const auto by_name = indexedByName(index);

  // Every listed image must be indexed; queries are the indexed images themselves, re-extracted.
  std::vector<std::string> paths;
  std::map<ImageId, std::size_t> position;  // indexed id -> entry
  std::vector<std::string> groups;
  for (const auto& entry : entries) {
    const auto it = by_name.find(entry.image);
    if (it == by_name.end())
      throw InvalidInput("'" + args.groups + "': image '" + entry.image + "' is not in the index '" + args.index + "'");
    if (!position.emplace(it->second, paths.size()).second)
      throw InvalidInput("'" + args.groups + "': image '" + entry.image + "' is the indexed image '" +
                         index.name(it->second) + "', which an earlier line already lists");
    paths.push_back(index.name(it->second));
    groups.push_back(entry.group);
  }
  const auto start = std::chrono::steady_clock::now();
  // Strict: a query that cannot be read would make the scores meaningless.
  const ImageHistograms histograms = args.query.histogramQueries(database, paths, true, "evaluate");
  const Scoring scoring = args.query.parsedScoring();
  std::vector<std::vector<std::size_t>> rankings(paths.size());
  for (std::size_t q = 0; q < paths.size(); ++q) {
    for (const auto& hit : index.query(histograms.histograms.row(static_cast<Eigen::Index>(q)), index.size(), scoring))
      if (auto p = position.find(hit.id); p != position.end()) rankings[q].push_back(p->second);
  }
  const RetrievalScores scores = scoreRankings(rankings, groups);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::cout << std::fixed << std::setprecision(3) << "bovw evaluate: " << scores.queries << " queries, "
            << index.size() << " indexed images, K = " << database.vocabulary().size() << ", " << args.query.scoring
            << " scoring\n  N-S score " << scores.ns_score << " (of 4)\n  mAP       " << scores.mean_ap << "\n";
  if (!args.json.empty()) {
    const nlohmann::json j = {{"index", args.index},
                              {"groups", args.groups},
                              {"queries", scores.queries},
                              {"indexed_images", index.size()},
                              {"words", database.vocabulary().size()},
                              {"descriptor_type", database.vocabulary().descriptorType().toString()},
                              {"scoring", args.query.scoring},
                              {"ns_score", scores.ns_score},
                              {"mean_ap", scores.mean_ap},
                              {"seconds", seconds}};
    writeFileAtomically(args.json, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
  }
  return 0;
}

}  // namespace bovw::cli
