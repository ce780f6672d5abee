// The --verify options, and the one way search and evaluate verify a ranking.
#include "verify_options.hpp"

#include "histogrammer_options.hpp"
#include "number_checks.hpp"

#include <bovw/error.hpp>

namespace bovw::cli {

void VerifyOptions::addTo(CLI::App* command) {
  auto* verify = command->add_option(
      "--verify", shortlist,
      "re-rank the top N results by a homography fitted to keypoints that share words (needs a database "
      "indexed with --keypoints)");
  verify->check(kPositive);
  command->add_option("--min-inliers", settings.min_inliers, "inliers a verified result needs")
      ->check(CLI::Range(4, 1 << 20))
      ->capture_default_str()
      ->needs(verify);
  command->add_option("--max-error", settings.max_error_px, "RANSAC reprojection threshold, pixels")
      ->check(CLI::Range(1e-3, 1e6))
      ->capture_default_str()
      ->needs(verify);
  command->add_option("--expand", expand,
                      "query expansion: add the features of up to N verified results (best first) that lie inside "
                      "the query's outline as their homography maps it, rank again and verify again (0: none)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str()
      ->needs(verify);
  command->add_option("--max-false-alarms", settings.max_log10_false_alarms,
                      "log10 of the homographies that chance would give with as many inliers among the tentative "
                      "pairs (a-contrario); a result verifies only below it (0: fewer than one expected)")
      ->check(CLI::Range(-1e6, 1e6))
      ->capture_default_str()
      ->needs(verify)
      ->group(kAdvancedGroup);
  command->add_option("--max-scale-change", settings.max_scale_change,
                      "a verified result's homography changes the scale (and squeezes one direction against the "
                      "other) by at most this factor; mirror images and folds never verify")
      ->check(CLI::Range(1.001, 1e6))
      ->capture_default_str()
      ->needs(verify)
      ->group(kAdvancedGroup);
  command->add_option("--estimator", estimator,
                      "how the homography is fitted: fast (OpenCV's USAC_FAST, LO-RANSAC) or magsac (USAC_MAGSAC, "
                      "MAGSAC++: the same results on bovw's quality sets in about twice the time)")
      ->check(CLI::IsMember({"fast", "magsac"}))
      ->capture_default_str()
      ->needs(verify)
      ->group(kAdvancedGroup);
}

VerificationOptions VerifyOptions::options() const {
  VerificationOptions result = settings;
  result.shortlist = shortlist;
  result.estimator = estimator == "magsac" ? HomographyEstimator::Magsac : HomographyEstimator::UsacFast;
  return result;
}

namespace {

void checkKeypoints(bool stored, std::size_t shards, const std::string& path) {
  if (!stored)
    throw InvalidInput("'" + path + "' stores no keypoints" + (shards > 1 ? " (in every shard)" : "") +
                       ", so --verify cannot check its results; index the images again with bovw index --keypoints");
}

}  // namespace

void VerifyOptions::checkVerifiable(const ImageSearch& database, const std::string& path) {
  checkKeypoints(database.storesKeypoints(), database.shardCount(), path);
}

}  // namespace bovw::cli
