// `bovw search`: the most similar indexed images for each query image, in one database or over the
// shards a manifest lists. The same code runs in `bovw` (one rank, every shard) and in each rank of
// `bovw-mpi` (the rank's shards): rank 0 reads the queries and prints the results, every rank takes
// part in each query's collective ranking and verification. All of it is bovw::ImageSearch's
// (bovw/image_search.hpp); this file parses the options and prints the results.
#include "commands.hpp"
#include "feature_options.hpp"
#include "image_arguments.hpp"
#include "number_checks.hpp"
#include "opening_warning.hpp"
#include "run_timeline.hpp"
#include "program.hpp"
#include "progress_bar.hpp"
#include "query_options.hpp"
#include "search_report.hpp"
#include "verify_options.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>
#include <bovw/rank_agreement.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace bovw::cli {

namespace {

struct SearchArguments {
  std::string index;
  std::vector<std::string> queries;
  std::size_t top = 10;
  std::string format = "csv";
  std::vector<std::string> outputs;
  std::string root;
  bool exclude_query = false;
  bool profile = false;
  QueryOptions query;
  VerifyOptions verify;
} args;

// The format of an output: its extension's (.csv, .json, .html or .htm), else --format.
std::string formatOf(const std::string& output) {
  std::string extension = std::filesystem::path(output).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".csv" || extension == ".json") return extension.substr(1);
  if (extension == ".html" || extension == ".htm") return "html";
  return args.format;
}

// The files to write: each --output, or bovw-search.html for --format html without one.
std::vector<std::string> outputFiles() {
  if (args.outputs.empty() && args.format == "html") return {"bovw-search.html"};
  return args.outputs;
}

// Checked before the work: each output can be written and is not an input, which the report would replace.
void checkSearchOutputs() {
  std::vector<NamedPath> outputs, inputs = {{"--index", args.index}};
  for (const std::string& output : outputFiles()) outputs.push_back({"--output", output});
  for (const std::string& query : args.queries) inputs.push_back({"the query image", query});
  checkOutputs(outputs, inputs);
}

// A one-shot search of a few images is faster on the CPU than on a GPU whose start-up costs more than
// the work: on the NVIDIA H200 host (2026-11-27, docs/PERFORMANCE.md "Start-up") one 800 x 640 query
// took 0.45 s with SURF and histograms on the GPU (NVIDIA's platform 0.16 s, the context and kernels
// 0.14 s) and 0.15 s on its 16 cores. So in `bovw search` --backend auto is the CPU path up to this
// many query images (nothing of OpenCL is loaded); --backend opencl still takes the GPU.
constexpr std::size_t kFewQueryImages = 16;

// `--profile`: the searching step's own breakdown, in its name (no commas: RunTimeline's steps are
// separated by them): the queries' decoding and features, the ranking and the verification.
std::string searchingStep(double seconds, const std::vector<QueryResults>& results, const PipelineProfile& reading) {
  double verification_s = 0;
  for (const QueryResults& query : results)
    if (query.verification) verification_s += query.verification->milliseconds / 1e3;
  char text[320];
  std::snprintf(text, sizeof text,
                "searching (queries: %zu; reading them %.3f s: the workers (%d) decoded %.3f s and extracted %.3f "
                "s; ranking %.3f s; verification %.3f s)",
                results.size(), reading.wall_s, reading.workers, reading.decode_s, reading.work_s,
                seconds - reading.wall_s - verification_s, verification_s);
  return text;
}

}  // namespace

CLI::App* addSearchCommand(CLI::App& app) {
  auto* command = app.add_subcommand("search", "Find the indexed images most similar to query images");
  command->add_option("QUERY_IMAGE", args.queries, "query images, or folders of them")->required();
  command->add_option("--index", args.index,
                      "database written by bovw index: a .bovwdb file, the manifest of its shards (index --shards) "
                      "or a live database's folder (index --live)")->required();
  command->add_option("--top", args.top, "results per query")->check(kPositive)->capture_default_str();
  command->add_option("--format", args.format, "csv (query,rank,image,score), json, or html (thumbnails)")
      ->check(CLI::IsMember({"csv", "json", "html"}))
      ->capture_default_str();
  command->add_option("--output", args.outputs,
                      "file to write (default: standard output; html: bovw-search.html); may be given several "
                      "times, each in the format its extension names (.csv, .json, .html), else --format")
      ->allow_extra_args(false);  // one file per --output: the query images that follow are not outputs
  command->add_option("--root", args.root,
                      "html: the folder that the database's relative image names are relative to (the folder "
                      "bovw index ran in); default: the current folder, then the database's folder")
      ->check(CLI::ExistingDirectory);
  command->add_flag("--exclude-query", args.exclude_query,
                    "leave the query image itself out of its results (when it is indexed too: the same file)");
  command->add_flag("--profile", args.profile,
                    "after the results, print where the time went since the process started: start-up, opening "
                    "the database, making the extractor and histogrammer (OpenCL kernels), reading the queries, "
                    "ranking, verification, writing");
  args.query.addTo(command, ScoringChoice::One);
  args.verify.addTo(command);
  return command;
}

int runSearchCommand() {
  RunTimeline timeline;  // for --profile, from the process's start to the results written
  PipelineProfile reading;  // the query images' decoding and features
  checkSearchOutputs();
  Communicator& group = ranks();
  ProgressBar bar("search", args.query.quiet || !printsResults());
  // Rank 0 reads the queries; every rank takes part in each query's collective ranking and verification.
  const std::vector<std::string> images =
      printsResults() ? imageArguments(args.queries, "query image") : std::vector<std::string>();
  QueryOptions query = args.query;
  if (!distributedProgram() && query.histogrammer.backend == toString(Backend::Auto) && images.size() <= kFewQueryImages)
    query.histogrammer.backend = toString(resolveBackend(HistogrammerConfig{}, {}));  // the CPU's choice
  ImageSearchOptions engine = query.engine(bar);
  engine.live_lists = PostingMemory::Mapped;  // one process per command: the open is most of its time
  timeline.mark("choosing the backend (auto: the OpenCL platforms' devices)");
  if (args.profile) engine.pipeline.profile = &reading;
  const ImageSearch database = ImageSearch::open(group, args.index, engine);
  timeline.mark("opening the database");
  warnIfCheckpointRefused(database.liveDatabase());
  if (args.profile) database.prepare();
  timeline.mark("making the extractor and histogrammer");
  SearchOptions options;
  options.top = args.top;
  options.scoring = args.query.parsedScoring();
  options.verify = args.verify.enabled() ? args.verify.shortlist : 0;
  options.verification = args.verify.options();
  options.expand = args.verify.expand;
  options.exclude_query = args.exclude_query;
  std::vector<ImageFailure> failures;
  const std::vector<QueryResults> results = database.search(images, options, &failures);
  timeline.mark(searchingStep(timeline.sinceLastMark(), results, reading));
  std::size_t failed = 0;
  everyRankOrNone(group, [&] {
    if (!printsResults()) return;
    failed = reportFailures(failures, images.size());
    if (results.empty()) throw InvalidInput("no query image could be read");
  });
  for (const QueryResults& query : results) {
    warnIfFeatureless(query.query, query.features);
    if (query.verification)
      spdlog::info("{}: {} of {} results verified{}, {:.2f} ms", query.query, query.verification->verified,
                   query.verification->checked,
                   options.expand > 0 ? " (expanded with " + std::to_string(query.expanded) + ")" : std::string(),
                   query.verification->milliseconds);
  }
  if (!printsResults()) return 0;
  // Each output in its format: one search, several reports (the quick start writes csv and html).
  Thumbnails thumbnails(args.index, args.root);  // read once for every html output
  auto writer = [&](const std::string& format) {
    return [&results, &thumbnails, format](std::ostream& out) {
      if (format == "csv") writeCsv(out, results);
      else if (format == "json") writeJson(out, results);
      else writeHtml(out, results, args.index, thumbnails);
    };
  };
  const std::vector<std::string> outputs = outputFiles();
  if (outputs.empty()) {
    writer(args.format)(std::cout);
  } else {
    std::vector<StreamWrite> writes;
    for (const std::string& output : outputs) writes.push_back({output, writer(formatOf(output))});
    writeFilesAtomically(writes);
    for (const std::string& output : outputs) std::cerr << "bovw search: wrote " << output << "\n";
  }
  if (args.profile) {
    timeline.mark("writing the results");
    std::fprintf(stderr, "profile: %s\n", timeline.summary().c_str());
  }
  return failed ? 1 : 0;
}

}  // namespace bovw::cli
