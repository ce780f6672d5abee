// Geometric verification of a ranked list (Philbin et al., CVPR 2007): for each of the top results,
// the query's keypoints are paired with the result's through shared visual words whose signatures
// agree (bovw/image_words.hpp), a homography is fitted to the pairs with OpenCV's USAC framework,
// and the results are re-ranked by how many keypoints it maps onto their partners (inliers). A bag
// of words ignores where words are; this finds a small object in clutter whose histogram drowns in
// the background's words.
#pragma once

#include <bovw/image_words.hpp>
#include <bovw/inverted_index.hpp>

#include <opencv2/core.hpp>

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace bovw {

// How the homography is fitted: OpenCV's USAC presets (cv::findHomography), both with a fixed random
// state, so the same pairs give the same answer on every run. With UsacFast, verification took about
// half of Magsac's time for the same N-S and mAP on six quality sets (docs/RETRIEVAL.md, 2026-12-07).
enum class HomographyEstimator {
  UsacFast,  // cv::USAC_FAST: LO-RANSAC with a short local optimisation; the default
  Magsac,    // cv::USAC_MAGSAC: MAGSAC++ scoring and sigma-consensus local optimisation (the default until 2026-12-07)
};

struct VerificationOptions {
  std::size_t shortlist = 50;     // results of the bag-of-words ranking that are verified
  int min_inliers = 12;           // fewer inliers: the result is not verified and keeps its BoW score
  double max_error_px = 8.0;      // RANSAC threshold: reprojection error in the result image, pixels
  // Two keypoints of one word pair only if their signatures differ in at most this many of 64 bits
  // (with a vocabulary of a few thousand words, most pairs of one word are different scene points).
  int max_signature_distance = 16;
  // A word that would pair more than this many keypoint pairs (its occurrences in the query times
  // those in the result) contributes none: such bursts (Jégou et al., CVPR 2009) are mostly repeated
  // texture and cost more to compare than they help.
  int max_pairs_per_word = 256;
  int max_iterations = 1000;      // RANSAC iterations per result
  HomographyEstimator estimator = HomographyEstimator::UsacFast;
  // A match verifies only if chance explains it poorly: log10 of the number of homographies that
  // random pairs would give with as many inliers (log10FalseAlarms) at most this. 0: less than one
  // expected. +infinity: inlier count alone.
  double max_log10_false_alarms = 0;
  // ... and only if its homography is a plausible change of view (implausibleHomography): a scale
  // change (and a squeeze of one direction against the other) of at most this factor.
  double max_scale_change = 8;
};

// Keypoint pairs through shared words: query_points[i] and result_points[i] have the same word and
// close signatures (when both images have signatures). Pairs of rare words first (a word seen once
// in each image pairs more reliably).
struct WordCorrespondences {
  std::vector<cv::Point2f> query_points;
  std::vector<cv::Point2f> result_points;
};
WordCorrespondences matchWords(const ImageWords& query, const ImageWords& result, const VerificationOptions& options);

struct GeometricMatch {
  int correspondences = 0;  // pairs through shared words
  int inliers = 0;          // pairs the homography maps within max_error_px (0 if none was found)
  std::optional<cv::Matx33d> homography;  // query coordinates -> result coordinates
  double log10_false_alarms = std::numeric_limits<double>::infinity();  // log10FalseAlarms of the match
  std::string implausible;  // why the homography is no change of view (implausibleHomography); "": it is
};

// log10 of the number of false alarms of a match (a-contrario: Moisan & Stival, IJCV 2004): how many
// homographies would map `inliers` of `correspondences` pairs of independent, uniformly placed points
// within `max_error` pixels, in a result image of `area` pixels. Below 0: fewer than one expected by
// chance. +infinity for 4 inliers or fewer (any four pairs fit a homography).
double log10FalseAlarms(int correspondences, int inliers, double max_error, double area);

// Why `h` (query -> result coordinates) is no plausible change of view of a query image of
// `query_size`, or "" if it is one: part of the query sent to infinity (a fold), a mirror image, a
// scale change at the query's centre beyond `max_scale_change` either way, or one direction squeezed
// against the other by more than that factor (near-singular).
std::string implausibleHomography(const cv::Matx33d& h, cv::Size query_size, double max_scale_change);

// Whether a match verifies under `options`: enough inliers, unlikely by chance, a plausible view.
bool verifies(const GeometricMatch& match, const VerificationOptions& options);
// Throws InvalidInput if an ImageWords has different numbers of points and words (or signatures,
// when it has any) or the options are out of range.
GeometricMatch verifyPair(const ImageWords& query, const ImageWords& result, const VerificationOptions& options);

struct VerifiedResult {
  ImageId id = 0;
  std::string name;
  // min_inliers or more: inliers + bow_score, so verified results rank above all others (by inliers,
  // then by BoW score); otherwise bow_score.
  double score = 0;
  double bow_score = 0;
  int inliers = -1;     // -1: not checked (beyond the shortlist, or no keypoints stored for it)
  bool verified = false;
  std::optional<cv::Matx33d> homography;  // when verified: query image coordinates -> this image's
};

struct VerificationReport {
  std::size_t checked = 0;   // results whose geometry was tested
  std::size_t verified = 0;  // of which with at least min_inliers inliers
  double milliseconds = 0;   // spent pairing and fitting (steady clock)
};

// The keypoints of an indexed image, or nullopt if none are stored for it. Called from several
// threads at once: the shortlist is matched on the calling thread's OpenMP team.
using KeypointLookup = std::function<std::optional<ImageWords>(ImageId)>;

// Re-ranks `ranking` (best first, as InvertedIndex::query returns it): its first `shortlist` results
// are verified against `query` and sorted by score; the rest follow in their order, unverified.
std::vector<VerifiedResult> verifyRanking(const ImageWords& query, const std::vector<SearchResult>& ranking,
                                          const KeypointLookup& keypoints, const VerificationOptions& options,
                                          VerificationReport* report = nullptr);

// verifyRanking in its two steps, for a ranking whose keypoints lie in several places (the ranks of
// a job each match their own results, one rank re-ranks: DistributedShards).
// The match of each of the first `shortlist` results of `ranking` whose keypoints `keypoints` finds;
// nullopt for those it does not find (not checked). Throws as verifyRanking.
std::vector<std::optional<GeometricMatch>> matchShortlist(const ImageWords& query,
                                                          const std::vector<SearchResult>& ranking,
                                                          const KeypointLookup& keypoints,
                                                          const VerificationOptions& options);
// `ranking` re-ranked by those matches' inliers (matches[i] for ranking[i]), as verifyRanking does
// it; the report's milliseconds are left 0 (the caller times its own steps). Throws InvalidInput if
// there is not one entry in `matches` per shortlisted result.
std::vector<VerifiedResult> rerankByMatches(const std::vector<SearchResult>& ranking,
                                            const std::vector<std::optional<GeometricMatch>>& matches,
                                            const VerificationOptions& options, VerificationReport* report = nullptr);

// Throws InvalidInput naming the first option out of range.
void validateVerificationOptions(const VerificationOptions& options);

}  // namespace bovw
