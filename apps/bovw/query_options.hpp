// Options of the subcommands that query a database (search, evaluate): scoring, progress, and
// where the queries' histograms are computed; and the one way they turn query images into histograms.
#pragma once

#include "histogrammer_options.hpp"
#include "progress_bar.hpp"

#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>

#include <CLI/CLI.hpp>

#include <optional>
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

// "auto" in --scoring: the database's default (ImageSearch::defaultScoring).
inline constexpr const char* kAutoScoring = "auto";

// Throws InvalidInput naming the bad item, or an option set listed twice (its rows would repeat).
// "auto" stands for `automatic`; without it (the text checked before the database is open), auto is
// accepted and left out of the list.
std::vector<ScoringOptions> parseScoringList(const std::string& text, const std::optional<ScoringOptions>& automatic);

struct QueryOptions {
  // The database's default: Hamming embedding where it stores keypoints, histogram intersection (L1,
  // better than cosine on UKBench-style sets) otherwise (docs/RETRIEVAL.md).
  std::string scoring = kAutoScoring;
  bool quiet = false;
  HistogrammerOptions histogrammer;

  void addTo(CLI::App* command, ScoringChoice choice);
  // Unset for "auto".
  std::optional<ScoringOptions> parsedScoring() const {
    return scoring == kAutoScoring ? std::nullopt : std::optional<ScoringOptions>(parseScoringOptions(scoring));
  }
  std::vector<ScoringOptions> parsedScoringList(const ImageSearch& database) const {
    return parseScoringList(scoring, database.defaultScoring());
  }

  // How ImageSearch reads the queries: these options' histogrammer, workers and strictness, and
  // `bar` for progress.
  ImageSearchOptions engine(ProgressBar& bar, bool strict = false) const;

};

// A warning if no features were found in the query: it can match nothing.
void warnIfFeatureless(const std::string& query, std::int64_t features);

}  // namespace bovw::cli
