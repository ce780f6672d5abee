// Shared options and query histograms of search and evaluate.
#include "query_options.hpp"

#include <spdlog/spdlog.h>

#include "feature_options.hpp"
#include "progress_bar.hpp"

namespace bovw::cli {

void QueryOptions::addTo(CLI::App* command) {
  command->add_option("--scoring", scoring, "intersection (TF-IDF, L1) or cosine (TF-IDF, L2)")
      ->check(CLI::IsMember({"intersection", "cosine"}))
      ->capture_default_str();
  command->add_flag("--quiet", quiet, "no progress bar");
  histogrammer.addTo(command);
}

ImageHistograms QueryOptions::histogramQueries(const ImageDatabase& database, const std::vector<std::string>& paths,
                                               bool strict, const char* label, bool keep_words) const {
  auto device = makeHistogrammer(histogrammer.config());
  applyThreadCount(histogrammer.threads);
  ProgressBar bar(label, quiet);
  PipelineOptions options;
  options.workers = histogrammer.threads;  // 0: all cores
  options.strict = strict;
  options.keep_words = keep_words;
  options.progress = [&bar](const PipelineProgress& p) { bar.update(p); };
  ImageHistograms queries = histogramImages(paths, *database.makeExtractor(), database.vocabulary(), *device, options);
  // An empty result list would otherwise be the only sign that a query had nothing to match with.
  for (std::size_t i = 0; i < queries.names.size(); ++i)
    if (queries.descriptor_counts[i] == 0)
      spdlog::warn("{}: no features found in the image, so it matches nothing", queries.names[i]);
  return queries;
}

}  // namespace bovw::cli
