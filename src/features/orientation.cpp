// Dominant orientation of SURF keypoints, reproducing OpenCV's sampling, rounding and window test
// (angles rounded to whole degrees before the 60-degree window comparison).
#include "orientation.hpp"

#include "box_pattern.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <array>
#include <cmath>

namespace bovw::surf {
namespace {

constexpr int kRadius = 6;           // samples within 6s of the centre
constexpr int kWindowDeg = 60;       // sliding window width
constexpr int kSearchStepDeg = 5;    // window positions every 5 degrees
constexpr float kSigma = 2.5f;       // gaussian weight, in units of s
constexpr int kBound = (2 * kRadius + 1) * (2 * kRadius + 1);

// Haar wavelets of the 4x4 base size, {x1, y1, x2, y2, weight}.
constexpr int kHaarX[2][5] = {{0, 0, 2, 4, -1}, {2, 0, 4, 4, 1}};
constexpr int kHaarY[2][5] = {{0, 0, 4, 2, 1}, {0, 2, 4, 4, -1}};

struct Sampling {
  int count = 0;
  std::array<cv::Point, kBound> offset;
  std::array<float, kBound> weight;

  Sampling() {
    const cv::Mat g = cv::getGaussianKernel(2 * kRadius + 1, kSigma, CV_32F);
    for (int i = -kRadius; i <= kRadius; ++i)
      for (int j = -kRadius; j <= kRadius; ++j)
        if (i * i + j * j <= kRadius * kRadius) {
          offset[count] = cv::Point(i, j);
          weight[count++] = g.at<float>(i + kRadius) * g.at<float>(j + kRadius);
        }
  }
};

const Sampling& sampling() {
  static const Sampling s;
  return s;
}

void orient(const cv::Mat& sum, const Sampling& smp, cv::KeyPoint& kp, bool upright) {
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

  // OpenCV's window test on whole degrees: |round(angle) - start| < 30 or > 330.
  float best_x = 0, best_y = 0, best_mod = 0;
  for (int start = 0; start < 360; start += kSearchStepDeg) {
    float sx = 0, sy = 0;
    for (int k = 0; k < n; ++k) {
      const int d = std::abs(cvRound(angle[k]) - start);
      if (d < kWindowDeg / 2 || d > 360 - kWindowDeg / 2) {
        sx += X[k];
        sy += Y[k];
      }
    }
    const float mod = sx * sx + sy * sy;
    if (mod > best_mod) {
      best_mod = mod;
      best_x = sx;
      best_y = sy;
    }
  }
  kp.angle = cv::fastAtan2(-best_y, best_x);
}

}  // namespace

void assignOrientations(const cv::Mat& sum, std::vector<cv::KeyPoint>& keypoints, bool upright) {
  const Sampling& smp = sampling();
  cv::parallel_for_(cv::Range(0, static_cast<int>(keypoints.size())), [&](const cv::Range& r) {
    for (int i = r.start; i < r.end; ++i) orient(sum, smp, keypoints[i], upright);
  });
}

}  // namespace bovw::surf
