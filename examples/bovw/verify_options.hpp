// Options of the subcommands that can re-rank results geometrically (search, evaluate).
#pragma once

#include <bovw/geometric_verification.hpp>
#include <bovw/sharded_database.hpp>

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace bovw::cli {

struct VerifyOptions {
  std::size_t shortlist = 0;  // --verify N; 0: no verification
  VerificationOptions settings;

  void addTo(CLI::App* command);
  bool enabled() const { return shortlist > 0; }
  VerificationOptions options() const;

  // Throws InvalidInput naming `path` unless the database can verify: a single database (not a
  // manifest of several shards, whose keypoints this does not combine yet) that stores keypoints.
  static void checkVerifiable(const ShardedDatabase& database, const std::string& path);
  // Verifies `ranking` of such a database (checkVerifiable).
  std::vector<VerifiedResult> verify(const ShardedDatabase& database, const ImageWords& query,
                                     const std::vector<ShardedResult>& ranking,
                                     VerificationReport* report = nullptr) const;
};

}  // namespace bovw::cli
