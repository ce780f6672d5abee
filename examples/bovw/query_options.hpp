// Options of the subcommands that query a database (search, evaluate): scoring, progress, and
// where the queries' histograms are computed; and the one way they turn query images into histograms.
#pragma once

#include "histogrammer_options.hpp"

#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bovw::cli {

struct QueryOptions {
  // L1 (histogram intersection) by default: Nistér & Stewénius (CVPR 2006) found L1 scoring better
  // than L2 on UKBench, and so do our measurements (docs/RETRIEVAL.md).
  std::string scoring = "intersection";
  bool quiet = false;
  HistogrammerOptions histogrammer;

  void addTo(CLI::App* command);
  Scoring parsedScoring() const { return parseScoring(scoring); }

  // Histograms of the query images with the database's features and vocabulary (and with
  // `keep_words` their words and keypoints). Unreadable queries are skipped with a warning, or stop
  // the run when `strict`.
  ImageHistograms histogramQueries(const ImageDatabase& database, const std::vector<std::string>& paths,
                                   bool strict, const char* label, bool keep_words = false) const;
};

}  // namespace bovw::cli
