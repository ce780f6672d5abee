// Options of the subcommands that can re-rank results geometrically (search, evaluate).
#pragma once

#include <bovw/geometric_verification.hpp>
#include <bovw/image_search.hpp>

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace bovw::cli {

struct VerifyOptions {
  std::size_t shortlist = 0;  // --verify N; 0: no verification
  std::size_t expand = 0;     // --expand N: query expansion from up to N verified results; 0: none
  VerificationOptions settings;
  std::string estimator = "fast";  // --estimator: settings.estimator by name

  void addTo(CLI::App* command);
  bool enabled() const { return shortlist > 0; }
  VerificationOptions options() const;

  // Throws InvalidInput naming `path` unless the database (every shard) stores keypoints.
  static void checkVerifiable(const ImageSearch& database, const std::string& path);
};

}  // namespace bovw::cli
