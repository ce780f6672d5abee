// `bovw search`: the most similar indexed images for each query image.
#include "commands.hpp"
#include "feature_options.hpp"
#include "query_options.hpp"
#include "search_report.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_database.hpp>

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
} args;

}  // namespace

CLI::App* addSearchCommand(CLI::App& app) {
  auto* command = app.add_subcommand("search", "Find the indexed images most similar to query images");
  command->add_option("QUERY_IMAGE", args.queries, "query images")->required();
  command->add_option("--index", args.index, "database written by bovw index")->required();
  command->add_option("--top", args.top, "results per query")->check(CLI::PositiveNumber)->capture_default_str();
  command->add_option("--format", args.format, "csv (query,rank,image,score), json, or html (thumbnails)")
      ->check(CLI::IsMember({"csv", "json", "html"}))
      ->capture_default_str();
  command->add_option("--output", args.output, "file to write (default: standard output; html: bovw-search.html)");
  args.query.addTo(command, ScoringChoice::One);
  return command;
}

int runSearchCommand() {
  const ImageDatabase database = ImageDatabase::load(args.index);
  if (database.index().empty()) throw InvalidInput("'" + args.index + "': the index holds no image yet");
  const ImageHistograms histograms = args.query.histogramQueries(database, args.queries, false, "search");
  const std::size_t failed = reportFailures(histograms.failures, args.queries.size());
  if (histograms.names.empty()) throw InvalidInput("no query image could be read");

  std::vector<QueryResults> results;
  const ScoringOptions scoring = args.query.parsedScoring();
  for (std::size_t q = 0; q < histograms.names.size(); ++q)
    results.push_back({histograms.names[q], database.index().query(histograms.histograms.row(static_cast<Eigen::Index>(q)),
                                                                    args.top, scoring)});
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
