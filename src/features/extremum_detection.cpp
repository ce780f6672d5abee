// Non-maximum suppression and sub-sample interpolation over the Hessian pyramid, following OpenCV's
// SURFFindInvoker::findMaximaInLayer line for line where the result depends on it (margins, the
// filter-centre convention, the interpolation's acceptance test and size rounding).
#include "extremum_detection.hpp"

#include "box_pattern.hpp"

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <cmath>

namespace bovw::surf {
namespace {

// One Newton step on the 3x3x3 neighbourhood n[scale][3 * row + col]; false when the fit is
// degenerate or the offset leaves the neighbourhood (OpenCV's test, including the exact-zero case).
bool interpolate(const float n[3][9], int dxy_step, int ds, cv::KeyPoint& kp) {
  const cv::Vec3f b(-(n[1][5] - n[1][3]) / 2, -(n[1][7] - n[1][1]) / 2, -(n[2][4] - n[0][4]) / 2);
  const float dxs = (n[2][5] - n[2][3] - n[0][5] + n[0][3]) / 4;
  const float dys = (n[2][7] - n[2][1] - n[0][7] + n[0][1]) / 4;
  const float dxy = (n[1][8] - n[1][6] - n[1][2] + n[1][0]) / 4;
  const cv::Matx33f a(n[1][3] - 2 * n[1][4] + n[1][5], dxy, dxs,
                      dxy, n[1][1] - 2 * n[1][4] + n[1][7], dys,
                      dxs, dys, n[0][4] - 2 * n[1][4] + n[2][4]);
  // cv::Matx::solve with DECOMP_LU: Cramer's rule for 3x3 in float, zeros when singular; using it
  // keeps the rounding of OpenCV's SURF.
  const cv::Vec3f x = a.solve(b, cv::DECOMP_LU);
  const bool ok = (x[0] != 0 || x[1] != 0 || x[2] != 0) && std::abs(x[0]) <= 1 && std::abs(x[1]) <= 1 &&
                  std::abs(x[2]) <= 1;
  if (ok) {
    kp.pt.x += x[0] * dxy_step;
    kp.pt.y += x[1] * dxy_step;
    kp.size = static_cast<float>(cvRound(kp.size + x[2] * ds));
  }
  return ok;
}

struct RowBlock {
  int octave, layer, row_begin, row_end;
};

void findInRows(const cv::Mat& sum, const cv::Mat& mask_sum, const HessianPyramid& pyr, const RowBlock& blk,
                float threshold, std::vector<cv::KeyPoint>& out) {
  const HessianLayer& below = pyr.layer(blk.octave, blk.layer - 1);
  const HessianLayer& mid = pyr.layer(blk.octave, blk.layer);
  const HessianLayer& above = pyr.layer(blk.octave, blk.layer + 1);
  const int size = mid.size, step = mid.step;
  const int layer_cols = mid.det.cols;
  const int margin = (above.size / 2) / step + 1;  // neighbours in the layer above must exist
  const int dstep = static_cast<int>(mid.det.step1());

  Box mask_box[1];
  if (!mask_sum.empty()) {
    const int kMaskPattern[1][5] = {{0, 0, 9, 9, 1}};
    resizeBoxPattern(kMaskPattern, mask_box, 9, size, static_cast<int>(mask_sum.step1()));
  }

  for (int i = blk.row_begin; i < blk.row_end; ++i) {
    const float* row = mid.det.ptr<float>(i);
    for (int j = margin; j < layer_cols - margin; ++j) {
      const float v = row[j];
      if (!(v > threshold)) continue;
      // Top-left pixel of this sample's filter. The integer division matters: do not simplify.
      const int sum_i = step * (i - (size / 2) / step);
      const int sum_j = step * (j - (size / 2) / step);

      const float* d1 = below.det.ptr<float>(i) + j;
      const float* d2 = row + j;
      const float* d3 = above.det.ptr<float>(i) + j;
      const float n[3][9] = {
          {d1[-dstep - 1], d1[-dstep], d1[-dstep + 1], d1[-1], d1[0], d1[1], d1[dstep - 1], d1[dstep], d1[dstep + 1]},
          {d2[-dstep - 1], d2[-dstep], d2[-dstep + 1], d2[-1], d2[0], d2[1], d2[dstep - 1], d2[dstep], d2[dstep + 1]},
          {d3[-dstep - 1], d3[-dstep], d3[-dstep + 1], d3[-1], d3[0], d3[1], d3[dstep - 1], d3[dstep], d3[dstep + 1]}};

      if (!mask_sum.empty()) {
        const float coverage = applyBoxPattern(mask_sum.ptr<std::int32_t>(sum_i) + sum_j, mask_box);
        if (coverage < 0.5f) continue;
      }

      bool is_max = true;
      for (int s = 0; s < 3 && is_max; ++s)
        for (int k = 0; k < 9; ++k)
          if (!(s == 1 && k == 4) && !(v > n[s][k])) {
            is_max = false;
            break;
          }
      if (!is_max) continue;

      // The filter's centre: OpenCV's convention (size - 1) / 2 past the top-left pixel.
      const float cy = sum_i + (size - 1) * 0.5f;
      const float cx = sum_j + (size - 1) * 0.5f;
      cv::KeyPoint kp(cx, cy, static_cast<float>(size), -1, v, blk.octave, laplacianSign(sum, size, sum_i, sum_j));
      if (interpolate(n, step, size - below.size, kp)) out.push_back(kp);
    }
  }
}

}  // namespace

bool keypointGreater(const cv::KeyPoint& a, const cv::KeyPoint& b) {
  return keypointOrder(a.response, a.size, a.octave, a.pt.y, a.pt.x) >
         keypointOrder(b.response, b.size, b.octave, b.pt.y, b.pt.x);
}

std::vector<cv::KeyPoint> findHessianExtrema(const cv::Mat& sum, const cv::Mat& mask_sum,
                                             const HessianPyramid& pyramid, float threshold) {
  std::vector<RowBlock> blocks;
  for (int o = 0; o < pyramid.octaves; ++o) {
    for (int l = 1; l <= pyramid.octave_layers; ++l) {
      const HessianLayer& mid = pyramid.layer(o, l);
      const int margin = (pyramid.layer(o, l + 1).size / 2) / mid.step + 1;
      const int first = margin, last = mid.det.rows - margin;
      const int rows_per_block = std::max(1, 16384 / std::max(1, mid.det.cols));
      for (int r = first; r < last; r += rows_per_block) blocks.push_back({o, l, r, std::min(last, r + rows_per_block)});
    }
  }
  std::vector<std::vector<cv::KeyPoint>> found(blocks.size());
  cv::parallel_for_(cv::Range(0, static_cast<int>(blocks.size())), [&](const cv::Range& range) {
    for (int b = range.start; b < range.end; ++b) findInRows(sum, mask_sum, pyramid, blocks[b], threshold, found[b]);
  });
  std::vector<cv::KeyPoint> keypoints;
  for (auto& f : found) keypoints.insert(keypoints.end(), f.begin(), f.end());
  std::sort(keypoints.begin(), keypoints.end(), keypointGreater);
  return keypoints;
}

bool maskedOut(const cv::Mat& mask, const cv::KeyPoint& kp) {
  if (mask.empty()) return false;
  const cv::Point p(kp.pt);  // rounds, as OpenCV's SURF does
  const int x = std::clamp(p.x, 0, mask.cols - 1), y = std::clamp(p.y, 0, mask.rows - 1);
  return mask.at<uchar>(y, x) == 0;
}

void removeMaskedKeypoints(const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints) {
  if (mask.empty()) return;
  keypoints.erase(std::remove_if(keypoints.begin(), keypoints.end(),
                                 [&](const cv::KeyPoint& kp) { return maskedOut(mask, kp); }),
                  keypoints.end());
}

}  // namespace bovw::surf
