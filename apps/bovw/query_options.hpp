// Options of the subcommands that query a database (search, evaluate): scoring, progress, and
// where the queries' histograms are computed; and the one way they turn query images into histograms.
#pragma once

#include "histogrammer_options.hpp"
#include "progress_bar.hpp"

#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bovw::cli {

// What --scoring takes: search ranks with one option set, evaluate compares several.
enum class ScoringChoice {
  One,   // a canonical form (parseScoringOptions)
  List,  // a comma-separated list of canonical forms, or `all` (allScorings())
};

// The option sets `evaluate --scoring all` compares: both similarities with each term weighting,
// and power-law normalisation (alpha = 0.5, the usual choice) on the plain TF-IDF of each.
const std::vector<ScoringOptions>& allScorings();

// Throws InvalidInput naming the bad item, or an option set listed twice (its rows would repeat).
std::vector<ScoringOptions> parseScoringList(const std::string& text);

struct QueryOptions {
  // L1 (histogram intersection) by default: Nistér & Stewénius (CVPR 2006) found L1 scoring better
  // than L2 on UKBench, and so do our measurements (docs/RETRIEVAL.md).
  std::string scoring = "intersection";
  bool quiet = false;
  HistogrammerOptions histogrammer;

  void addTo(CLI::App* command, ScoringChoice choice);
  ScoringOptions parsedScoring() const { return parseScoringOptions(scoring); }
  std::vector<ScoringOptions> parsedScoringList() const { return parseScoringList(scoring); }

  // How ImageSearch reads the queries: these options' histogrammer, workers and strictness, and
  // `bar` for progress.
  ImageSearchOptions engine(ProgressBar& bar, bool strict = false) const;

};

// A warning if no features were found in the query: it can match nothing.
void warnIfFeatureless(const std::string& query, std::int64_t features);

}  // namespace bovw::cli
