// Query expansion from verified results: the features of each verified result inside the query's
// mapped outline, added to the query's own.
#include <bovw/query_expansion.hpp>

#include <bovw/error.hpp>

#include <cmath>
#include <string>

namespace bovw {

namespace {

void checkCounts(const ImageWords& words, const std::string& whose) {
  const std::size_t n = words.words.size();
  if (words.points.size() != n || (!words.signatures.empty() && words.signatures.size() != n) ||
      words.sizes.size() != words.angles.size() || (!words.sizes.empty() && words.sizes.size() != n))
    throw InvalidInput(whose + " has " + std::to_string(words.points.size()) + " points, " + std::to_string(n) +
                       " words, " + std::to_string(words.signatures.size()) + " signatures, " +
                       std::to_string(words.sizes.size()) + " sizes and " + std::to_string(words.angles.size()) +
                       " angles");
}

constexpr double kDegrees = 180.0 / M_PI;

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
  const bool scale_angles = !view.features.sizes.empty();
  for (std::size_t i = 0; i < view.features.points.size(); ++i) {
    const cv::Point2f& p = view.features.points[i];
    const cv::Vec3d q = back * cv::Vec3d(p.x, p.y, 1.0);
    if (q[2] == 0 || (q[2] > 0) != positive) continue;
    const double x = q[0] / q[2], y = q[1] / q[2];
    if (!(x >= 0 && y >= 0 && x <= query_size.width && y <= query_size.height)) continue;
    inside.points.emplace_back(static_cast<float>(x), static_cast<float>(y));
    inside.words.push_back(view.features.words[i]);
    if (signatures) inside.signatures.push_back(view.features.signatures[i]);
    if (!scale_angles) continue;
    // The keypoint's size and orientation as the query would see them: through the back-projection's
    // Jacobian J at p (d(x, y) / d(p.x, p.y) = (row_i - (x, y)_i row_3) / q_3), its direction
    // (cos a, sin a) in image coordinates (OpenCV's angle: from +x towards +y) mapped by J, its size
    // by sqrt |det J|. A keypoint without orientation (-1) keeps none.
    const double j00 = (back(0, 0) - x * back(2, 0)) / q[2], j01 = (back(0, 1) - x * back(2, 1)) / q[2];
    const double j10 = (back(1, 0) - y * back(2, 0)) / q[2], j11 = (back(1, 1) - y * back(2, 1)) / q[2];
    inside.sizes.push_back(static_cast<float>(view.features.sizes[i] * std::sqrt(std::abs(j00 * j11 - j01 * j10))));
    const float a = view.features.angles[i];
    if (!(a >= 0)) {
      inside.angles.push_back(a);
      continue;
    }
    const double c = std::cos(a / kDegrees), s = std::sin(a / kDegrees);
    double mapped = std::atan2(j10 * c + j11 * s, j00 * c + j01 * s) * kDegrees;
    if (mapped < 0) mapped += 360.0;
    inside.angles.push_back(mapped >= 360.0 ? 0.0f : static_cast<float>(mapped));
  }
  return inside;
}

ImageWords expandQuery(const ImageWords& query, const std::vector<VerifiedView>& views) {
  checkCounts(query, "the query");
  ImageWords expanded = query;
  bool signatures = !query.signatures.empty() || query.words.empty();
  bool scale_angles = !query.sizes.empty() || query.words.empty();
  for (const VerifiedView& view : views) {
    const ImageWords inside = featuresInView(view, query.image_size);
    if (inside.words.empty()) continue;
    signatures = signatures && !inside.signatures.empty();
    scale_angles = scale_angles && !inside.sizes.empty();
    expanded.points.insert(expanded.points.end(), inside.points.begin(), inside.points.end());
    expanded.words.insert(expanded.words.end(), inside.words.begin(), inside.words.end());
    expanded.signatures.insert(expanded.signatures.end(), inside.signatures.begin(), inside.signatures.end());
    expanded.sizes.insert(expanded.sizes.end(), inside.sizes.begin(), inside.sizes.end());
    expanded.angles.insert(expanded.angles.end(), inside.angles.begin(), inside.angles.end());
  }
  if (!signatures) expanded.signatures.clear();
  if (!scale_angles) {
    expanded.sizes.clear();
    expanded.angles.clear();
  }
  return expanded;
}

}  // namespace bovw
