// Shared options and query histograms of search and evaluate.
#include "query_options.hpp"

#include <spdlog/spdlog.h>

#include "feature_options.hpp"
#include "progress_bar.hpp"

#include <bovw/error.hpp>

#include <algorithm>

namespace bovw::cli {

namespace {

// A usage error (exit 2) naming the bad value, with the library's list of valid forms.
CLI::Validator scoringValidator(ScoringChoice choice) {
  return CLI::Validator(
      [choice](std::string& value) -> std::string {
        try {
          if (choice == ScoringChoice::One && value != kAutoScoring) parseScoringOptions(value);
          else if (choice == ScoringChoice::List) parseScoringList(value, std::nullopt);  // the database is not open yet
        } catch (const InvalidInput& e) {
          return e.what();
        }
        return std::string();
      },
      choice == ScoringChoice::One ? "SCORING" : "SCORING[,SCORING...]|all", "scoring");
}

std::string joined(const std::vector<ScoringOptions>& sets) {
  std::string text;
  for (const auto& options : sets) text += (text.empty() ? "" : ", ") + toString(options);
  return text;
}

}  // namespace

const std::vector<ScoringOptions>& allScorings() {
  static const std::vector<ScoringOptions> sets = [] {
    std::vector<ScoringOptions> all;
    for (Scoring similarity : {Scoring::Intersection, Scoring::Cosine}) {
      for (TermWeighting term : {TermWeighting::Count, TermWeighting::Sqrt, TermWeighting::Log})
        all.push_back({similarity, term, 1.0});
      all.push_back({similarity, TermWeighting::Count, 0.5});
    }
    return all;
  }();
  return sets;
}

std::vector<ScoringOptions> parseScoringList(const std::string& text, const std::optional<ScoringOptions>& automatic) {
  if (text == "all") return allScorings();
  std::vector<ScoringOptions> sets;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    ScoringOptions options;
    try {
      if (item != kAutoScoring) options = parseScoringOptions(item);
      else if (automatic) options = *automatic;
    } catch (const InvalidInput& e) {
      throw InvalidInput(e.problem() + "; or auto, or several of them, comma-separated, or all");
    }
    // Checking the text alone (no database yet), auto is valid but stands for nothing known.
    if (item != kAutoScoring || automatic) {
      if (std::find(sets.begin(), sets.end(), options) != sets.end())
        throw InvalidInput("scoring '" + toString(options) + "' is listed twice in '" + text + "'");
      sets.push_back(options);
    }
    if (comma == std::string::npos) return sets;
    start = comma + 1;
  }
}

void QueryOptions::addTo(CLI::App* command, ScoringChoice choice) {
  std::string help =
      "auto (the default): hammingBITS+log where the database stores keypoints, else intersection. TF-IDF "
      "scoring: intersection (L1) or cosine (L2), then optionally +sqrt or +log (damp words repeated in one "
      "image: burstiness), then optionally +powerALPHA (power-law normalisation, 0 < ALPHA <= 1), e.g. "
      "cosine+sqrt+power0.5; or Hamming embedding over an index built with --keypoints: hamming[BITS][+TERM]"
      "[+wgc] (BITS: how many of 64 signature bits may differ, 20 by default; +wgc: weak geometric consistency, "
      "version-5 databases), e.g. hamming20+log+wgc";
  if (choice == ScoringChoice::List)
    help += ". Several, comma-separated, or all (" + joined(allScorings()) + ") are compared side by side";
  command->add_option("--scoring", scoring, help)->check(scoringValidator(choice))->capture_default_str();
  command->add_flag("--quiet", quiet, "no progress bar");
  histogrammer.addTo(command);
}

ImageSearchOptions QueryOptions::engine(ProgressBar& bar, bool strict) const {
  applyThreadCount(histogrammer.threads);
  ImageSearchOptions options;
  options.histogrammer = histogrammer.config();
  options.pipeline.workers = histogrammer.threads;  // 0: all cores
  options.pipeline.strict = strict;
  options.pipeline.progress = [&bar](const PipelineProgress& p) { bar.update(p); };
  return options;
}

void warnIfFeatureless(const std::string& query, std::int64_t features) {
  // An empty result list would otherwise be the only sign that a query had nothing to match with.
  if (features == 0) spdlog::warn("{}: no features found in the image, so it matches nothing", query);
}

}  // namespace bovw::cli
