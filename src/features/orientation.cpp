// Dominant orientation of SURF keypoints, reproducing OpenCV's sampling, rounding and window test
// (angles rounded to whole degrees before the 60-degree window comparison).
#include "orientation.hpp"

#include "box_pattern.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace bovw::surf {
namespace {

constexpr int kRadius = 6;           // samples within 6s of the centre
constexpr int kWindowDeg = 60;       // sliding window width
constexpr int kSearchStepDeg = 5;    // window positions every 5 degrees
constexpr float kSigma = 2.5f;       // gaussian weight, in units of s
constexpr int kBound = OrientationSampling::kBound;
static_assert(kBound == (2 * kRadius + 1) * (2 * kRadius + 1), "the sampling grid");

// Haar wavelets of the 4x4 base size, {x1, y1, x2, y2, weight}.
constexpr int kHaarX[2][5] = {{0, 0, 2, 4, -1}, {2, 0, 4, 4, 1}};
constexpr int kHaarY[2][5] = {{0, 0, 4, 2, 1}, {0, 2, 4, 4, -1}};

}  // namespace

OrientationSampling::OrientationSampling() {
  const cv::Mat g = cv::getGaussianKernel(2 * kRadius + 1, kSigma, CV_32F);
  for (int i = -kRadius; i <= kRadius; ++i)
    for (int j = -kRadius; j <= kRadius; ++j)
      if (i * i + j * j <= kRadius * kRadius) {
        offset[count] = cv::Point(i, j);
        weight[count++] = g.at<float>(i + kRadius) * g.at<float>(j + kRadius);
      }
}

const OrientationSampling& orientationSampling() {
  static const OrientationSampling s;
  return s;
}

namespace {

void orient(const cv::Mat& sum, const OrientationSampling& smp, cv::KeyPoint& kp, bool upright) {
  const float s = kp.size * 1.2f / 9.0f;
  // Wavelet side 4s, forced even so the pattern is symmetric about its centre.
  const int wav = 2 * cvRound(2 * s);
  if (sum.rows < wav || sum.cols < wav) {
    kp.size = -1;
    return;
  }
  if (upright) {
    kp.angle = 270.f;
    return;
  }
  Box hx[2], hy[2];
  const int row_step = static_cast<int>(sum.step1());
  resizeBoxPattern(kHaarX, hx, 4, wav, row_step);
  resizeBoxPattern(kHaarY, hy, 4, wav, row_step);

  float X[kBound], Y[kBound], angle[kBound];
  int n = 0;
  const float half = static_cast<float>(wav - 1) / 2;
  for (int k = 0; k < smp.count; ++k) {
    const int x = cvRound(kp.pt.x + smp.offset[k].x * s - half);
    const int y = cvRound(kp.pt.y + smp.offset[k].y * s - half);
    if (y < 0 || y >= sum.rows - wav || x < 0 || x >= sum.cols - wav) continue;
    const std::int32_t* origin = sum.ptr<std::int32_t>(y) + x;
    X[n] = applyBoxPattern(origin, hx) * smp.weight[k];
    Y[n] = applyBoxPattern(origin, hy) * smp.weight[k];
    ++n;
  }
  if (n == 0) {
    kp.size = -1;
    return;
  }
  // cv::phase: OpenCV's polynomial atan, whose rounding the whole-degree binning below inherits.
  cv::Mat mx(1, n, CV_32F, X), my(1, n, CV_32F, Y), ma(1, n, CV_32F, angle);
  cv::phase(mx, my, ma, true);

  // OpenCV's window test on whole degrees: sample k is in the window starting at `start` when
  // |round(angle_k) - start| < 30 or > 330. OpenCV sums every window over every sample (72 x 109, in
  // float, in sample order) and keeps the first window of largest float sumx^2 + sumy^2; that is most
  // of this stage's cost in OpenCV. Here per-degree bins and prefix sums (double) give every window's
  // sums in 361 + 72 steps; the float sums differ from them by at most kFloatSumError * (sum of |X| +
  // sum of |Y|), so only windows within twice that bound of the best can be OpenCV's choice. Those
  // few are summed again exactly as OpenCV sums them and compared by OpenCV's rule, so the chosen
  // window, and its sums, are OpenCV's even when windows tie to the last bit.
  int deg[kBound];
  double bin_x[362] = {0}, bin_y[362] = {0};  // bin d + 1 holds samples at d degrees (0..360)
  double abs_x = 0, abs_y = 0;
  for (int k = 0; k < n; ++k) {
    deg[k] = cvRound(angle[k]);
    bin_x[deg[k] + 1] += X[k];
    bin_y[deg[k] + 1] += Y[k];
    abs_x += std::fabs(X[k]);
    abs_y += std::fabs(Y[k]);
  }
  for (int d = 1; d < 362; ++d) {  // prefix sums: bin_*[d] = samples at degrees < d
    bin_x[d] += bin_x[d - 1];
    bin_y[d] += bin_y[d - 1];
  }
  // Sum of samples with degree in [lo, hi], clipped to [0, 360].
  auto range_sum = [&](int lo, int hi, double& sx, double& sy) {
    lo = std::max(lo, 0);
    hi = std::min(hi, 360);
    if (lo > hi) return;
    sx += bin_x[hi + 1] - bin_x[lo];
    sy += bin_y[hi + 1] - bin_y[lo];
  };
  const int half_win = kWindowDeg / 2;
  constexpr int kWindows = 360 / kSearchStepDeg;
  double mod[kWindows];
  double best_mod = 0;
  for (int w = 0; w < kWindows; ++w) {
    const int start = w * kSearchStepDeg;
    double sx = 0, sy = 0;
    range_sum(start - half_win + 1, start + half_win - 1, sx, sy);  // |d - start| < 30
    range_sum(start + 360 - half_win + 1, 360, sx, sy);             // d - start > 330
    range_sum(0, start - 360 + half_win - 1, sx, sy);               // start - d > 330
    mod[w] = sx * sx + sy * sy;
    best_mod = std::max(best_mod, mod[w]);
  }
  // A float sum of at most 109 terms is within 109 * 2^-24 (relative to the sum of |terms|) of the
  // exact sum; with the squares' and the double sums' rounding, each window's float modulus is within
  // kFloatSumError * (abs_x^2 + abs_y^2) of `mod` (3 x 109 x 2^-24, a generous bound).
  constexpr double kFloatSumError = 3.0 * kBound / 16777216.0;
  const double margin = 2 * kFloatSumError * (abs_x * abs_x + abs_y * abs_y);
  float best_x = 0, best_y = 0, best_float_mod = 0;
  for (int w = 0; w < kWindows; ++w) {
    if (mod[w] < best_mod - margin) continue;
    const int start = w * kSearchStepDeg;
    float sx = 0, sy = 0;
    for (int k = 0; k < n; ++k) {
      const int d = std::abs(deg[k] - start);
      if (d < half_win || d > 360 - half_win) {
        sx += X[k];
        sy += Y[k];
      }
    }
    const float m = sx * sx + sy * sy;
    if (m > best_float_mod) {  // OpenCV's rule: the first window of the largest float modulus
      best_float_mod = m;
      best_x = sx;
      best_y = sy;
    }
  }
  kp.angle = cv::fastAtan2(-best_y, best_x);
}

}  // namespace

void assignOrientations(const cv::Mat& sum, std::vector<cv::KeyPoint>& keypoints, bool upright) {
  const OrientationSampling& smp = orientationSampling();
  cv::parallel_for_(cv::Range(0, static_cast<int>(keypoints.size())), [&](const cv::Range& r) {
    for (int i = r.start; i < r.end; ++i) orient(sum, smp, keypoints[i], upright);
  });
}

void removeUnorientedKeypoints(std::vector<cv::KeyPoint>& keypoints, cv::Mat* descriptors) {
  const int n = static_cast<int>(keypoints.size());
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    if (keypoints[i].size <= 0) continue;
    if (i != kept) {
      keypoints[kept] = keypoints[i];
      if (descriptors != nullptr) descriptors->row(i).copyTo(descriptors->row(kept));
    }
    ++kept;
  }
  keypoints.resize(kept);
  if (descriptors != nullptr && kept != n) *descriptors = descriptors->rowRange(0, kept).clone();
}

}  // namespace bovw::surf
