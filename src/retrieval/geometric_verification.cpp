// Geometric verification: word correspondences, a USAC homography per candidate, re-ranking.
#include "core/thread_team.hpp"

#include <bovw/error.hpp>
#include <bovw/geometric_verification.hpp>

#include <opencv2/calib3d.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <numeric>

namespace bovw {

namespace {

constexpr int kMinimalSample = 4;  // a homography needs four pairs

void checkImageWords(const ImageWords& image, const char* which) {
  const auto optional = [&](std::size_t n) { return n == 0 || n == image.points.size(); };
  if (image.points.size() != image.words.size() || !optional(image.signatures.size()) ||
      !optional(image.sizes.size()) || !optional(image.angles.size()))
    throw InvalidInput(std::string("geometric verification: the ") + which + " has " +
                       std::to_string(image.points.size()) + " points, " + std::to_string(image.words.size()) +
                       " words, " + std::to_string(image.signatures.size()) + " signatures, " +
                       std::to_string(image.sizes.size()) + " sizes and " + std::to_string(image.angles.size()) +
                       " angles");
}

// Indices of the image's keypoints in word order (stable: equal words keep their order). Stored
// images and a ranking's query (sorted once in verifyRanking) are in word order already.
std::vector<std::size_t> byWord(const ImageWords& image) {
  std::vector<std::size_t> order(image.words.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (!std::is_sorted(image.words.begin(), image.words.end()))
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return image.words[a] < image.words[b]; });
  return order;
}

// The same keypoints in word order.
ImageWords sortedByWord(const ImageWords& image) {
  ImageWords sorted;
  sorted.image_size = image.image_size;
  for (std::size_t i : byWord(image)) {
    sorted.points.push_back(image.points[i]);
    sorted.words.push_back(image.words[i]);
    if (!image.signatures.empty()) sorted.signatures.push_back(image.signatures[i]);
    if (!image.sizes.empty()) sorted.sizes.push_back(image.sizes[i]);
    if (!image.angles.empty()) sorted.angles.push_back(image.angles[i]);
  }
  return sorted;
}

// Pairs the homography maps within `max_error` pixels, each keypoint counted once on either side: a
// keypoint of a repeated word takes part in several pairs, and a homography that collapses a region
// onto one point would otherwise "explain" all of them.
int distinctInliers(const WordCorrespondences& pairs, const cv::Matx33d& h, double max_error) {
  std::vector<std::pair<float, float>> query_used, result_used;
  for (std::size_t i = 0; i < pairs.query_points.size(); ++i) {
    const cv::Point2f q = pairs.query_points[i], r = pairs.result_points[i];
    const cv::Vec3d p = h * cv::Vec3d(q.x, q.y, 1.0);
    if (!(p[2] > 1e-12)) continue;  // behind the camera (or at infinity): not a plausible view
    const double dx = p[0] / p[2] - r.x, dy = p[1] / p[2] - r.y;
    if (dx * dx + dy * dy > max_error * max_error) continue;
    query_used.emplace_back(q.x, q.y);
    result_used.emplace_back(r.x, r.y);
  }
  auto distinct = [](std::vector<std::pair<float, float>>& points) {
    std::sort(points.begin(), points.end());
    return static_cast<int>(std::unique(points.begin(), points.end()) - points.begin());
  };
  return std::min(distinct(query_used), distinct(result_used));
}

// The image's size, or where its keypoints lie when it has none recorded.
cv::Size extentOf(const ImageWords& image) {
  if (image.image_size.area() > 0 || image.points.empty()) return image.image_size;
  float width = 0, height = 0;
  for (const cv::Point2f& p : image.points) width = std::max(width, p.x), height = std::max(height, p.y);
  return {static_cast<int>(std::ceil(width)) + 1, static_cast<int>(std::ceil(height)) + 1};
}

}  // namespace

bool verifies(const GeometricMatch& match, const VerificationOptions& options) {
  return match.homography && match.inliers >= options.min_inliers && match.implausible.empty() &&
         match.log10_false_alarms <= options.max_log10_false_alarms;
}

void validateVerificationOptions(const VerificationOptions& options) {
  auto refuse = [](const std::string& what) { throw InvalidInput("geometric verification: " + what); };
  if (options.shortlist < 1) refuse("the shortlist must hold at least one result");
  if (options.min_inliers < kMinimalSample)
    refuse("min_inliers = " + std::to_string(options.min_inliers) + "; a homography needs at least 4");
  if (!(options.max_error_px > 0) || !std::isfinite(options.max_error_px))
    refuse("max_error_px = " + std::to_string(options.max_error_px) + "; need a positive number of pixels");
  if (options.max_signature_distance < 0 || options.max_signature_distance > 64)
    refuse("max_signature_distance = " + std::to_string(options.max_signature_distance) + "; need 0 to 64 bits");
  if (options.max_pairs_per_word < 1)
    refuse("max_pairs_per_word = " + std::to_string(options.max_pairs_per_word) + "; need at least 1");
  if (options.max_iterations < 1)
    refuse("max_iterations = " + std::to_string(options.max_iterations) + "; need at least 1");
  if (std::isnan(options.max_log10_false_alarms)) refuse("max_log10_false_alarms is not a number");
  if (options.estimator != HomographyEstimator::UsacFast && options.estimator != HomographyEstimator::Magsac)
    refuse("estimator = " + std::to_string(static_cast<int>(options.estimator)) + "; need UsacFast or Magsac");
  if (!(options.max_scale_change > 1))
    refuse("max_scale_change = " + std::to_string(options.max_scale_change) + "; need a factor above 1");
}

WordCorrespondences matchWords(const ImageWords& query, const ImageWords& result, const VerificationOptions& options) {
  checkImageWords(query, "query");
  checkImageWords(result, "result");
  const std::vector<std::size_t> q = byWord(query), r = byWord(result);
  struct Run {
    std::size_t query_begin, query_end, result_begin, result_end;
  };
  std::vector<Run> shared;
  // One merge over both word-sorted lists: runs of the same word on both sides.
  for (std::size_t i = 0, j = 0; i < q.size() && j < r.size();) {
    const std::int32_t wq = query.words[q[i]], wr = result.words[r[j]];
    if (wq < wr) { ++i; continue; }
    if (wr < wq) { ++j; continue; }
    std::size_t i_end = i, j_end = j;
    while (i_end < q.size() && query.words[q[i_end]] == wq) ++i_end;
    while (j_end < r.size() && result.words[r[j_end]] == wq) ++j_end;
    if ((i_end - i) * (j_end - j) <= static_cast<std::size_t>(options.max_pairs_per_word))
      shared.push_back({i, i_end, j, j_end});
    i = i_end;
    j = j_end;
  }
  std::stable_sort(shared.begin(), shared.end(), [](const Run& a, const Run& b) {
    return (a.query_end - a.query_begin) * (a.result_end - a.result_begin) <
           (b.query_end - b.query_begin) * (b.result_end - b.result_begin);
  });
  const bool signatures = !query.signatures.empty() && !result.signatures.empty();
  WordCorrespondences pairs;
  for (const Run& run : shared)
    for (std::size_t i = run.query_begin; i < run.query_end; ++i)
      for (std::size_t j = run.result_begin; j < run.result_end; ++j) {
        if (signatures && signatureDistance(query.signatures[q[i]], result.signatures[r[j]]) >
                              options.max_signature_distance)
          continue;
        pairs.query_points.push_back(query.points[q[i]]);
        pairs.result_points.push_back(result.points[r[j]]);
      }
  return pairs;
}

GeometricMatch verifyPair(const ImageWords& query, const ImageWords& result, const VerificationOptions& options) {
  validateVerificationOptions(options);
  const WordCorrespondences pairs = matchWords(query, result, options);
  GeometricMatch match;
  match.correspondences = static_cast<int>(pairs.query_points.size());
  // Fewer pairs than min_inliers cannot verify: skip the fit.
  if (match.correspondences < std::max(kMinimalSample, options.min_inliers)) return match;
  cv::Mat inlier_mask;
  const int method = options.estimator == HomographyEstimator::Magsac ? cv::USAC_MAGSAC : cv::USAC_FAST;
  const cv::Mat h = cv::findHomography(pairs.query_points, pairs.result_points, method, options.max_error_px,
                                       inlier_mask, options.max_iterations, 0.995);
  if (h.empty()) return match;
  match.homography = cv::Matx33d(h);
  match.inliers = distinctInliers(pairs, *match.homography, options.max_error_px);
  match.log10_false_alarms =
      log10FalseAlarms(match.correspondences, match.inliers, options.max_error_px, extentOf(result).area());
  match.implausible = implausibleHomography(*match.homography, extentOf(query), options.max_scale_change);
  return match;
}

std::vector<std::optional<GeometricMatch>> matchShortlist(const ImageWords& query,
                                                          const std::vector<SearchResult>& ranking,
                                                          const KeypointLookup& keypoints,
                                                          const VerificationOptions& options) {
  validateVerificationOptions(options);
  checkImageWords(query, "query");
  const ImageWords sorted_query = sortedByWord(query);
  std::vector<std::optional<GeometricMatch>> matches(std::min(options.shortlist, ranking.size()));
  // The results are matched independently, on the calling thread's OpenMP team (every core for `bovw
  // search`, a request's share in `bovw serve`), and each match is the same on any number of threads:
  // USAC's generator starts from a fixed state in every call. Failures are kept by result, so that
  // the first result's is the one thrown, whichever thread met it first.
  std::vector<std::exception_ptr> failures(matches.size());
  const auto count = static_cast<std::ptrdiff_t>(matches.size());
  const int threads = detail::teamThreads();
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (count > 1 && threads > 1)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const auto at = static_cast<std::size_t>(i);
    try {
      if (const std::optional<ImageWords> stored = keypoints(ranking[at].id))
        matches[at] = verifyPair(sorted_query, *stored, options);
    } catch (...) {
      failures[at] = std::current_exception();
    }
  }
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return matches;
}

std::vector<VerifiedResult> rerankByMatches(const std::vector<SearchResult>& ranking,
                                            const std::vector<std::optional<GeometricMatch>>& matches,
                                            const VerificationOptions& options, VerificationReport* report) {
  validateVerificationOptions(options);
  const std::size_t shortlist = std::min(options.shortlist, ranking.size());
  if (matches.size() != shortlist)
    throw InvalidInput("geometric verification: " + std::to_string(matches.size()) + " matches for a shortlist of " +
                       std::to_string(shortlist) + " results");
  std::vector<VerifiedResult> results;
  results.reserve(ranking.size());
  for (const SearchResult& r : ranking) {
    VerifiedResult v;
    v.id = r.id;
    v.name = r.name;
    v.score = v.bow_score = r.score;
    results.push_back(std::move(v));
  }
  VerificationReport counts;
  for (std::size_t i = 0; i < shortlist; ++i) {
    if (!matches[i]) continue;
    VerifiedResult& v = results[i];
    ++counts.checked;
    v.inliers = matches[i]->inliers;
    if (verifies(*matches[i], options)) {
      v.verified = true;
      v.score = v.inliers + v.bow_score;
      v.homography = matches[i]->homography;
      ++counts.verified;
    }
  }
  std::stable_sort(results.begin(), results.begin() + static_cast<std::ptrdiff_t>(shortlist),
                   [](const VerifiedResult& a, const VerifiedResult& b) { return a.score > b.score; });
  if (report) *report = counts;
  return results;
}

std::vector<VerifiedResult> verifyRanking(const ImageWords& query, const std::vector<SearchResult>& ranking,
                                          const KeypointLookup& keypoints, const VerificationOptions& options,
                                          VerificationReport* report) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::optional<GeometricMatch>> matches = matchShortlist(query, ranking, keypoints, options);
  std::vector<VerifiedResult> results = rerankByMatches(ranking, matches, options, report);
  if (report)
    report->milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return results;
}

}  // namespace bovw
