// SURF descriptors. The window sampling (bilinear for oriented keypoints, nearest pixel for upright
// ones, clamped at the border) and the 8-bit rounding of the window and of the INTER_AREA patch are
// OpenCV's: they shift descriptor values by a few percent, so reproducing them is what makes the
// vectors agree with OpenCV's.
#include "surf_descriptor.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace bovw::surf {
namespace {

constexpr int kPatch = 20;           // gradient samples per side
constexpr float kSigma = 3.3f;       // gaussian weight, in units of s

struct Weights {
  float w[kPatch][kPatch];
  Weights() {
    const cv::Mat g = cv::getGaussianKernel(kPatch, kSigma, CV_32F);
    for (int i = 0; i < kPatch; ++i)
      for (int j = 0; j < kPatch; ++j) w[i][j] = g.at<float>(i) * g.at<float>(j);
  }
};

const Weights& weights() {
  static const Weights w;
  return w;
}

// The win_size x win_size window around kp, rotated to its orientation.
void sampleWindow(const cv::Mat& img, const cv::KeyPoint& kp, bool upright, int win_size, uchar* win) {
  const cv::Point2f c = kp.pt;
  const float win_offset = -static_cast<float>(win_size - 1) / 2;
  if (!upright) {
    const float dir = kp.angle * static_cast<float>(CV_PI / 180);
    const float sin_dir = -std::sin(dir);
    const float cos_dir = std::cos(dir);
    float start_x = c.x + win_offset * cos_dir + win_offset * sin_dir;
    float start_y = c.y - win_offset * sin_dir + win_offset * cos_dir;
    const int ncols1 = img.cols - 1, nrows1 = img.rows - 1;
    const size_t imgstep = img.step;
    // Interior fast path: when the window's corners (plus a pixel for the accumulated rounding) are
    // inside, no sample needs the border branch. Same arithmetic, so the same pixels.
    const float span = static_cast<float>(win_size - 1);
    const float xs[4] = {start_x, start_x + span * cos_dir, start_x + span * sin_dir,
                         start_x + span * (cos_dir + sin_dir)};
    const float ys[4] = {start_y, start_y - span * sin_dir, start_y + span * cos_dir,
                         start_y + span * (cos_dir - sin_dir)};
    if (*std::min_element(xs, xs + 4) >= 1 && *std::max_element(xs, xs + 4) < ncols1 - 1 &&
        *std::min_element(ys, ys + 4) >= 1 && *std::max_element(ys, ys + 4) < nrows1 - 1) {
      const uchar* base = img.data;
      for (int i = 0; i < win_size; ++i, start_x += sin_dir, start_y += cos_dir) {
        double px = start_x, py = start_y;
        uchar* out = win + i * win_size;
        for (int j = 0; j < win_size; ++j, px += cos_dir, py -= sin_dir) {
          const int ix = static_cast<int>(px), iy = static_cast<int>(py);  // floor: both positive
          const float a = static_cast<float>(px - ix), b = static_cast<float>(py - iy);
          const uchar* p = base + iy * imgstep + ix;
          out[j] = static_cast<uchar>(cvRound(p[0] * (1.f - a) * (1.f - b) + p[1] * a * (1.f - b) +
                                              p[imgstep] * (1.f - a) * b + p[imgstep + 1] * a * b));
        }
      }
      return;
    }
    for (int i = 0; i < win_size; ++i, start_x += sin_dir, start_y += cos_dir) {
      double px = start_x, py = start_y;
      for (int j = 0; j < win_size; ++j, px += cos_dir, py -= sin_dir) {
        const int ix = cvFloor(px), iy = cvFloor(py);
        if (static_cast<unsigned>(ix) < static_cast<unsigned>(ncols1) &&
            static_cast<unsigned>(iy) < static_cast<unsigned>(nrows1)) {
          const float a = static_cast<float>(px - ix), b = static_cast<float>(py - iy);
          const uchar* p = img.ptr<uchar>(iy) + ix;
          win[i * win_size + j] = static_cast<uchar>(cvRound(p[0] * (1.f - a) * (1.f - b) + p[1] * a * (1.f - b) +
                                                             p[imgstep] * (1.f - a) * b + p[imgstep + 1] * a * b));
        } else {
          const int x = std::min(std::max(cvRound(px), 0), ncols1);
          const int y = std::min(std::max(cvRound(py), 0), nrows1);
          win[i * win_size + j] = img.at<uchar>(y, x);
        }
      }
    }
  } else {
    // Angle 270: window rows run along +x, columns along -y.
    int start_x = cvRound(c.x + win_offset);
    const int start_y = cvRound(c.y - win_offset);
    for (int i = 0; i < win_size; ++i, ++start_x) {
      const int x = std::max(std::min(start_x, img.cols - 1), 0);
      int py = start_y;
      for (int j = 0; j < win_size; ++j, --py) {
        const int y = std::max(std::min(py, img.rows - 1), 0);
        win[i * win_size + j] = img.at<uchar>(y, x);
      }
    }
  }
}

void describe(const uchar (&patch)[kPatch + 1][kPatch + 1], bool extended, float* vec) {
  const Weights& dw = weights();
  float dx[kPatch][kPatch], dy[kPatch][kPatch];
  for (int i = 0; i < kPatch; ++i)
    for (int j = 0; j < kPatch; ++j) {
      const float w = dw.w[i][j];
      dx[i][j] = (patch[i][j + 1] - patch[i][j] + patch[i + 1][j + 1] - patch[i + 1][j]) * w;
      dy[i][j] = (patch[i + 1][j] - patch[i][j] + patch[i + 1][j + 1] - patch[i][j + 1]) * w;
    }
  const int dsize = extended ? 128 : 64;
  std::fill(vec, vec + dsize, 0.f);
  double square_mag = 0;
  float* v = vec;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      for (int y = i * 5; y < i * 5 + 5; ++y)
        for (int x = j * 5; x < j * 5 + 5; ++x) {
          const float tx = dx[y][x], ty = dy[y][x];
          if (extended) {
            if (ty >= 0) {
              v[0] += tx;
              v[1] += std::fabs(tx);
            } else {
              v[2] += tx;
              v[3] += std::fabs(tx);
            }
            if (tx >= 0) {
              v[4] += ty;
              v[5] += std::fabs(ty);
            } else {
              v[6] += ty;
              v[7] += std::fabs(ty);
            }
          } else {
            v[0] += tx;
            v[1] += ty;
            v[2] += std::fabs(tx);
            v[3] += std::fabs(ty);
          }
        }
      const int n = extended ? 8 : 4;
      for (int k = 0; k < n; ++k) square_mag += v[k] * v[k];
      v += n;
    }
  // Unit length for contrast invariance.
  const float scale = static_cast<float>(1. / (std::sqrt(square_mag) + FLT_EPSILON));
  for (int k = 0; k < dsize; ++k) vec[k] *= scale;
}

}  // namespace

void computeDescriptors(const cv::Mat& gray, const std::vector<cv::KeyPoint>& keypoints, bool extended,
                        bool upright, cv::Mat& descriptors) {
  CV_Assert(gray.type() == CV_8UC1 && descriptors.type() == CV_32F &&
            descriptors.rows == static_cast<int>(keypoints.size()) && descriptors.cols == (extended ? 128 : 64));
  cv::parallel_for_(cv::Range(0, static_cast<int>(keypoints.size())), [&](const cv::Range& r) {
    std::vector<uchar> winbuf;
    uchar patch[kPatch + 1][kPatch + 1];
    cv::Mat patch_mat(kPatch + 1, kPatch + 1, CV_8U, patch);
    for (int k = r.start; k < r.end; ++k) {
      const cv::KeyPoint& kp = keypoints[k];
      if (kp.size <= 0) continue;
      const float s = kp.size * 1.2f / 9.0f;
      const int win_size = static_cast<int>((kPatch + 1) * s);
      winbuf.resize(static_cast<size_t>(win_size) * win_size);
      cv::Mat win(win_size, win_size, CV_8U, winbuf.data());
      sampleWindow(gray, kp, upright, win_size, winbuf.data());
      // Each patch pixel becomes s x s image pixels, so the gradients are wavelets of side 2s.
      cv::resize(win, patch_mat, patch_mat.size(), 0, 0, cv::INTER_AREA);
      describe(patch, extended, descriptors.ptr<float>(k));
    }
  });
}

}  // namespace bovw::surf
