// Whether a geometric match is evidence of the same scene: how many homographies chance alone would
// give with as many inliers (a-contrario), and whether the homography is a change of view at all.
// A count of inliers alone does not separate the two: 13 inliers of 300 tentative pairs in a busy
// street photo are what a random homography finds, 13 of 20 are not.
#include <bovw/geometric_verification.hpp>

#include <cmath>
#include <limits>

namespace bovw {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kSample = 4;  // pairs that determine a homography

double log10Binomial(int n, int k) {
  return (std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0)) / std::log(10.0);
}

}  // namespace

double log10FalseAlarms(int correspondences, int inliers, double max_error, double area) {
  const int n = correspondences, k = inliers;
  if (k <= kSample || n <= kSample || k > n || !(area > 0)) return std::numeric_limits<double>::infinity();
  // The chance that a uniformly placed point lands within max_error of where a homography sends its
  // partner (Moisan & Stival, IJCV 2004; ORSA as in Moisan, Moulon & Monasse, IPOL 2012): one disc
  // of the image's area. The number of tests: n - 4 inlier counts, C(n, k) sets of inliers, C(k, 4)
  // samples that fit them exactly.
  const double alpha = std::min(1.0, kPi * max_error * max_error / area);
  return std::log10(n - kSample) + log10Binomial(n, k) + log10Binomial(k, kSample) +
         (k - kSample) * std::log10(alpha);
}

std::string implausibleHomography(const cv::Matx33d& h, cv::Size query_size, double max_scale_change) {
  const double w = query_size.width, ht = query_size.height;
  // Every corner of the query image in front of the camera: a view of the whole query is one
  // quadrilateral, not a shape folded through infinity.
  for (const cv::Vec3d& corner : {cv::Vec3d(0, 0, 1), cv::Vec3d(w, 0, 1), cv::Vec3d(0, ht, 1), cv::Vec3d(w, ht, 1)})
    if (!((h * corner)[2] > 0)) return "it sends part of the query image to infinity";
  // The local map at the query's centre: its Jacobian, from the quotient rule.
  const cv::Vec3d c = h * cv::Vec3d(w / 2, ht / 2, 1);
  const double x = c[0] / c[2], y = c[1] / c[2];
  const cv::Matx22d jacobian((h(0, 0) - h(2, 0) * x) / c[2], (h(0, 1) - h(2, 1) * x) / c[2],
                             (h(1, 0) - h(2, 0) * y) / c[2], (h(1, 1) - h(2, 1) * y) / c[2]);
  const double det = cv::determinant(jacobian);
  if (!(det > 0)) return "it mirrors the image";
  cv::Vec2d stretch;
  cv::SVD::compute(jacobian, stretch);  // singular values, largest first
  const double smallest = stretch[1], largest = stretch[0];
  if (largest > max_scale_change || smallest < 1 / max_scale_change)
    return "it changes the scale by more than " + std::to_string(max_scale_change).substr(0, 4) + "x";
  if (largest > max_scale_change * smallest) return "it squeezes one direction against the other (near-singular)";
  return "";
}

}  // namespace bovw
