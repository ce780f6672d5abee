// The --verify options, and the one way search and evaluate verify a ranking.
#include "verify_options.hpp"

#include <bovw/error.hpp>

namespace bovw::cli {

void VerifyOptions::addTo(CLI::App* command) {
  auto* verify = command->add_option(
      "--verify", shortlist,
      "re-rank the top N results by a homography fitted to keypoints that share words (needs a database "
      "indexed with --keypoints; a single database, not a manifest of shards)");
  verify->check(CLI::PositiveNumber);
  command->add_option("--min-inliers", settings.min_inliers, "inliers a verified result needs")
      ->check(CLI::Range(4, 1 << 20))
      ->capture_default_str()
      ->needs(verify);
  command->add_option("--max-error", settings.max_error_px, "RANSAC reprojection threshold, pixels")
      ->check(CLI::Range(1e-3, 1e6))
      ->capture_default_str()
      ->needs(verify);
}

VerificationOptions VerifyOptions::options() const {
  VerificationOptions result = settings;
  result.shortlist = shortlist;
  return result;
}

void VerifyOptions::checkVerifiable(const ShardedDatabase& database, const std::string& path) {
  if (database.shardCount() > 1)
    throw InvalidInput("'" + path + "' is a manifest of " + std::to_string(database.shardCount()) +
                       " shards; --verify works on a single database only (index without --shards)");
  if (!database.shard(0).storesKeypoints())
    throw InvalidInput("'" + path + "' stores no keypoints, so --verify cannot check its results; index the images "
                       "again with bovw index --keypoints");
}

std::vector<VerifiedResult> VerifyOptions::verify(const ShardedDatabase& database, const ImageWords& query,
                                                  const std::vector<ShardedResult>& ranking,
                                                  VerificationReport* report) const {
  std::vector<SearchResult> plain;  // one shard: its ids are the database's
  for (const ShardedResult& r : ranking) plain.push_back({r.id, r.name, r.score});
  return database.shard(0).verify(query, plain, options(), report);
}

}  // namespace bovw::cli
