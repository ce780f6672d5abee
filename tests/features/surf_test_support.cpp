// The agreement metric of surf_compare.py in C++ (same matching rule, same statistics).
#include "surf_test_support.hpp"

#include <bovw/feature_registry.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <ostream>
#include <stdexcept>

namespace bovw::test {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);  // numpy's median
}

}  // namespace

std::unique_ptr<FeatureExtractor> registrySurf(const SurfParams& params, SurfBackend backend) {
  ExtractorOptions options;
  options.surf_backend = backend;
  options.max_pixels = params.max_pixels;
  return makeFeatureExtractor(surfFeatureSpec(params), options);
}

std::string surfData(const std::string& name) {
  const char* dir = std::getenv("BOVW_SURF_TEST_DATA");
  return std::string(dir != nullptr && *dir ? dir : BOVW_SURF_TEST_DATA) + "/" + name;
}

cv::Mat texturedImage(int cols, int rows, unsigned seed, double sigma) {
  cv::Mat noise(rows, cols, CV_8U);
  cv::RNG rng(seed);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
  cv::Mat img;
  cv::GaussianBlur(noise, img, cv::Size(0, 0), sigma);
  cv::normalize(img, img, 0, 255, cv::NORM_MINMAX);
  return img;
}

std::string opencvDocImage(const std::string& name) {
  const char* dir = std::getenv("BOVW_OPENCV_DOC_DATA");
  return std::string(dir != nullptr && *dir ? dir : "/usr/share/doc/opencv-doc/examples/data") + "/" + name;
}

SurfReference loadReference(const std::string& path) {
  cv::FileStorage fs(path, cv::FileStorage::READ);
  if (!fs.isOpened()) throw std::runtime_error("cannot open reference " + path);
  SurfReference r;
  fs["keypoints_x_y_size_angle_response_octave"] >> r.keypoints;
  fs["descriptors"] >> r.descriptors;
  if (r.keypoints.rows != r.descriptors.rows) throw std::runtime_error("reference rows differ: " + path);
  return r;
}

SurfReference asReference(const std::vector<cv::KeyPoint>& keypoints, const cv::Mat& descriptors) {
  SurfReference r;
  r.keypoints.create(static_cast<int>(keypoints.size()), 6, CV_32F);
  for (size_t i = 0; i < keypoints.size(); ++i) {
    const cv::KeyPoint& k = keypoints[i];
    float* row = r.keypoints.ptr<float>(static_cast<int>(i));
    row[0] = k.pt.x, row[1] = k.pt.y, row[2] = k.size, row[3] = k.angle, row[4] = k.response;
    row[5] = static_cast<float>(k.octave);
  }
  r.descriptors = descriptors;
  return r;
}

double angleDiff(double a, double b) {
  double d = std::fmod(a - b + 180.0, 360.0);
  if (d < 0) d += 360.0;
  return d - 180.0;
}

Agreement compare(const SurfReference& cand, const SurfReference& ref) {
  Agreement a;
  a.reference = ref.keypoints.rows;
  a.candidate = cand.keypoints.rows;
  std::vector<int> order(a.reference);
  std::iota(order.begin(), order.end(), 0);
  // numpy's argsort(-response) is not stable either, but responses of distinct keypoints tie
  // almost never; stable_sort makes ties deterministic here.
  std::stable_sort(order.begin(), order.end(),
                   [&](int i, int j) { return ref.keypoints.at<float>(i, 4) > ref.keypoints.at<float>(j, 4); });
  std::vector<char> used(a.candidate, 0);
  std::vector<double> desc_dist, angle_diff;
  const bool same_width = cand.descriptors.cols == ref.descriptors.cols && !cand.descriptors.empty();
  for (int i : order) {
    const float* r = ref.keypoints.ptr<float>(i);
    const double radius = std::max(1.5, 0.1 * r[2]);
    int best = -1;
    double best_d = 0;
    for (int j = 0; j < a.candidate; ++j) {
      if (used[j]) continue;
      const float* c = cand.keypoints.ptr<float>(j);
      const double d = std::hypot(double(c[0]) - r[0], double(c[1]) - r[1]);
      const double ratio = c[2] / std::max(double(r[2]), 1e-6);
      if (d <= radius && ratio >= 0.8 && ratio <= 1.25 && (best < 0 || d < best_d)) {
        best = j;
        best_d = d;
      }
    }
    if (best < 0) continue;
    used[best] = 1;
    a.pairs.emplace_back(i, best);
    angle_diff.push_back(std::abs(angleDiff(cand.keypoints.at<float>(best, 3), r[3])));
    if (same_width) desc_dist.push_back(cv::norm(cand.descriptors.row(best), ref.descriptors.row(i), cv::NORM_L2));
  }
  a.matched = static_cast<int>(a.pairs.size());
  a.recall = double(a.matched) / std::max(a.reference, 1);
  a.precision = double(a.matched) / std::max(a.candidate, 1);
  a.median_desc_dist = same_width ? median(desc_dist) : -1;
  a.max_desc_dist = desc_dist.empty() ? 0 : *std::max_element(desc_dist.begin(), desc_dist.end());
  a.median_angle_diff = median(angle_diff);
  a.max_angle_diff = angle_diff.empty() ? 0 : *std::max_element(angle_diff.begin(), angle_diff.end());
  return a;
}

std::ostream& operator<<(std::ostream& os, const Agreement& a) {
  return os << "reference " << a.reference << ", candidate " << a.candidate << ", matched " << a.matched
            << ", recall " << a.recall << ", precision " << a.precision << ", median desc dist "
            << a.median_desc_dist << " (max " << a.max_desc_dist << "), median angle diff " << a.median_angle_diff
            << " (max " << a.max_angle_diff << ")";
}

}  // namespace bovw::test
