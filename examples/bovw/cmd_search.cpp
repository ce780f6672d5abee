// `bovw search`: the most similar indexed images for each query image, in one database or over the
// shards a manifest lists.
#include "commands.hpp"
#include "feature_options.hpp"
#include "query_options.hpp"
#include "search_report.hpp"
#include "verify_options.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/sharded_database.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>

namespace bovw::cli {

namespace {

struct SearchArguments {
  std::string index;
  std::vector<std::string> queries;
  std::size_t top = 10;
  std::string format = "csv";
  std::string output;
  QueryOptions query;
  VerifyOptions verify;
} args;

}  // namespace

CLI::App* addSearchCommand(CLI::App& app) {
  auto* command = app.add_subcommand("search", "Find the indexed images most similar to query images");
  command->add_option("QUERY_IMAGE", args.queries, "query images")->required();
  command->add_option("--index", args.index,
                      "database written by bovw index, or the manifest of its shards (index --shards)")->required();
  command->add_option("--top", args.top, "results per query")->check(CLI::PositiveNumber)->capture_default_str();
  command->add_option("--format", args.format, "csv (query,rank,image,score), json, or html (thumbnails)")
      ->check(CLI::IsMember({"csv", "json", "html"}))
      ->capture_default_str();
  command->add_option("--output", args.output, "file to write (default: standard output; html: bovw-search.html)");
  args.query.addTo(command, ScoringChoice::One);
  args.verify.addTo(command);
  return command;
}

int runSearchCommand() {
  const ShardedDatabase database = ShardedDatabase::load(args.index);
  if (database.size() == 0) throw InvalidInput("'" + args.index + "': the index holds no image yet");
  const bool verify = args.verify.enabled();
  if (verify) VerifyOptions::checkVerifiable(database, args.index);
  const ImageHistograms histograms = args.query.histogramQueries(database, args.queries, false, "search", verify);
  const std::size_t failed = reportFailures(histograms.failures, args.queries.size());
  if (histograms.names.empty()) throw InvalidInput("no query image could be read");

  std::vector<QueryResults> results;
  const ScoringOptions scoring = args.query.parsedScoring();
  // Verification re-ranks a shortlist longer than --top: ask the index for that many.
  const std::size_t ranked = verify ? std::max(args.top, args.verify.shortlist) : args.top;
  for (std::size_t q = 0; q < histograms.names.size(); ++q) {
    const auto ranking = database.query(histograms.histograms.row(static_cast<Eigen::Index>(q)), ranked, scoring);
    QueryResults query{histograms.names[q], {}, std::nullopt};
    if (verify) {
      VerificationReport report;
      for (auto& hit : database.verify(histograms.words[q], ranking, args.verify.options(), &report))
        query.results.push_back(std::move(hit.result));
      query.verification = report;
      spdlog::info("{}: {} of {} results verified, {:.2f} ms", query.query, report.verified, report.checked,
                   report.milliseconds);
    } else {
      query.results = unverified(ranking);
    }
    if (query.results.size() > args.top) query.results.resize(args.top);
    results.push_back(std::move(query));
  }
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
  return failed ? 1 : 0;
}

}  // namespace bovw::cli
