// Query expansion from verified results: the features of each verified result inside the query's
// mapped outline, added to the query's own.
#include <bovw/query_expansion.hpp>

#include <bovw/error.hpp>

#include <cmath>
#include <string>

namespace bovw {

namespace {

void checkCounts(const ImageWords& words, const std::string& whose) {
  if (words.points.size() != words.words.size() ||
      (!words.signatures.empty() && words.signatures.size() != words.words.size()))
    throw InvalidInput(whose + " has " + std::to_string(words.points.size()) + " points, " +
                       std::to_string(words.words.size()) + " words and " + std::to_string(words.signatures.size()) +
                       " signatures");
}

}  // namespace

ImageWords featuresInView(const VerifiedView& view, cv::Size query_size) {
  checkCounts(view.features, "a verified result's features");
  const cv::Matx33d& h = view.homography;
  if (!(std::abs(cv::determinant(h)) > 0) || !std::isfinite(cv::determinant(h)))
    throw InvalidInput("a verified result's homography is singular, so its features cannot be mapped back into "
                       "the query");
  // Back-projecting each point (result -> query) and testing it against the query's rectangle is the
  // same as testing it against the mapped outline for any homography that keeps the query on one side
  // of its horizon, and needs no polygon. H^-1 p = x / (H x)_3 for the point x of the query that H
  // sends to p, so the third component's sign tells the side: it must be that of the query's centre.
  const cv::Matx33d back = h.inv();
  const cv::Vec3d centre = h * cv::Vec3d(query_size.width / 2.0, query_size.height / 2.0, 1.0);
  const bool positive = centre[2] > 0;
  ImageWords inside;
  inside.image_size = query_size;
  const bool signatures = !view.features.signatures.empty();
  for (std::size_t i = 0; i < view.features.points.size(); ++i) {
    const cv::Point2f& p = view.features.points[i];
    const cv::Vec3d q = back * cv::Vec3d(p.x, p.y, 1.0);
    if (q[2] == 0 || (q[2] > 0) != positive) continue;
    const double x = q[0] / q[2], y = q[1] / q[2];
    if (!(x >= 0 && y >= 0 && x <= query_size.width && y <= query_size.height)) continue;
    inside.points.emplace_back(static_cast<float>(x), static_cast<float>(y));
    inside.words.push_back(view.features.words[i]);
    if (signatures) inside.signatures.push_back(view.features.signatures[i]);
  }
  return inside;
}

ImageWords expandQuery(const ImageWords& query, const std::vector<VerifiedView>& views) {
  checkCounts(query, "the query");
  ImageWords expanded = query;
  bool signatures = !query.signatures.empty() || query.words.empty();
  for (const VerifiedView& view : views) {
    const ImageWords inside = featuresInView(view, query.image_size);
    if (inside.words.empty()) continue;
    signatures = signatures && !inside.signatures.empty();
    expanded.points.insert(expanded.points.end(), inside.points.begin(), inside.points.end());
    expanded.words.insert(expanded.words.end(), inside.words.begin(), inside.words.end());
    expanded.signatures.insert(expanded.signatures.end(), inside.signatures.begin(), inside.signatures.end());
  }
  if (!signatures) expanded.signatures.clear();
  return expanded;
}

}  // namespace bovw
