// Box-filter Hessian determinants with OpenCV's calcLayerDetAndTrace geometry, weights and rounding:
// each lobe's integer sum times its float weight is rounded to float, the lobes are added in double
// in OpenCV's order (left, middle, right; top, middle, bottom; the four Dxy quadrants) and the total
// is rounded to float (box_pattern.hpp's applyBoxPattern, unrolled here). The three lobes of Dxx (Dyy)
// share their corners, so 8 loads give all three sums.
#include "hessian_pyramid.hpp"

#include "box_pattern.hpp"

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <cstdint>

namespace bovw::surf {
namespace {

constexpr int kHaarSize0 = 9;  // filter size of the first layer of the first octave (layerFilterSize)

// Second-derivative patterns of the 9x9 filter, {x1, y1, x2, y2, weight}, as in OpenCV.
constexpr int kDx[3][5] = {{0, 2, 3, 7, 1}, {3, 2, 6, 7, -2}, {6, 2, 9, 7, 1}};
constexpr int kDy[3][5] = {{2, 0, 7, 3, 1}, {2, 3, 7, 6, -2}, {2, 6, 7, 9, 1}};
constexpr int kDxy[4][5] = {{1, 1, 4, 4, 1}, {5, 1, 8, 4, -1}, {1, 5, 4, 8, -1}, {5, 5, 8, 8, 1}};

}  // namespace

LayerFilter makeLayerFilter(int size, int row_step) {
  Box dx[3], dy[3], dxy[4];
  resizeBoxPattern(kDx, dx, kHaarSize0, size, row_step);
  resizeBoxPattern(kDy, dy, kHaarSize0, size, row_step);
  resizeBoxPattern(kDxy, dxy, kHaarSize0, size, row_step);
  LayerFilter f{};
  for (int k = 0; k < 3; ++k) {
    // Box corners: p0 (y1, x1), p1 (y2, x1), p2 (y1, x2), p3 (y2, x2).
    f.x_top[k] = dx[k].p0;
    f.x_bottom[k] = dx[k].p1;
    f.y_left[k] = dy[k].p0;
    f.y_right[k] = dy[k].p2;
    f.wx[k] = dx[k].w;
    f.wy[k] = dy[k].w;
  }
  f.x_top[3] = dx[2].p2;
  f.x_bottom[3] = dx[2].p3;
  f.y_left[3] = dy[2].p1;
  f.y_right[3] = dy[2].p3;
  for (int k = 0; k < 4; ++k) {
    f.q[k][0] = dxy[k].p0; f.q[k][1] = dxy[k].p1; f.q[k][2] = dxy[k].p2; f.q[k][3] = dxy[k].p3;
    f.wxy[k] = dxy[k].w;
  }
  // The shared-corner form needs contiguous lobes: SURF's patterns scale their common edges alike.
  for (int k = 0; k < 2; ++k)
    CV_Assert(dx[k].p2 == dx[k + 1].p0 && dx[k].p3 == dx[k + 1].p1 && dy[k].p1 == dy[k + 1].p0 &&
              dy[k].p3 == dy[k + 1].p2);
  return f;
}

namespace {

inline std::int32_t box(const std::uint32_t* o, const int (&p)[4]) {
  return static_cast<std::int32_t>(o[p[0]] + o[p[3]] - o[p[1]] - o[p[2]]);
}

// Three contiguous lobes from their 8 corners: lobe k = (a[k] - b[k]) - (a[k + 1] - b[k + 1]), exact
// in wrapping 32-bit arithmetic, then weighted and summed in OpenCV's order.
inline float threeLobes(const std::uint32_t* o, const int (&a)[4], const int (&b)[4], const float (&w)[3]) {
  std::uint32_t edge[4];
  for (int k = 0; k < 4; ++k) edge[k] = o[a[k]] - o[b[k]];
  double d = 0;
  for (int k = 0; k < 3; ++k) d += boxTerm(static_cast<std::int32_t>(edge[k] - edge[k + 1]), w[k]);
  return static_cast<float>(d);
}

// One row of samples of one layer.
void detRow(const std::uint32_t* __restrict origin, int samples, int step, const LayerFilter& f,
            float* __restrict out) {
  for (int j = 0; j < samples; ++j, origin += step) {
    const float dx = threeLobes(origin, f.x_top, f.x_bottom, f.wx);
    const float dy = threeLobes(origin, f.y_left, f.y_right, f.wy);
    double d = 0;
    for (int k = 0; k < 4; ++k) d += boxTerm(box(origin, f.q[k]), f.wxy[k]);
    const float dxy = static_cast<float>(d);
    out[j] = dx * dy - 0.81f * dxy * dxy;  // 0.81 = 0.9^2, Bay et al.'s box-filter correction; no FMA
  }
}

struct RowBlock {
  int layer, row_begin, row_end;
};

}  // namespace

HessianPyramid planHessianPyramid(cv::Size image_size, int octaves, int octave_layers) {
  HessianPyramid p;
  p.image_size = image_size;
  p.octaves = octaves;
  p.octave_layers = octave_layers;
  int step = 1;
  for (int o = 0; o < octaves; ++o, step *= 2) {
    for (int l = 0; l < octave_layers + 2; ++l) {
      HessianLayer layer;
      layer.octave = o;
      layer.size = layerFilterSize(o, l);
      layer.step = step;
      layer.det = cv::Mat::zeros(image_size.height / step, image_size.width / step, CV_32F);
      p.layers.push_back(std::move(layer));
    }
  }
  return p;
}

void computeHessianDeterminants(const cv::Mat& sum, HessianPyramid& pyramid) {
  CV_Assert(sum.type() == CV_32S && sum.rows == pyramid.image_size.height + 1 &&
            sum.cols == pyramid.image_size.width + 1);
  const int rows = pyramid.image_size.height, cols = pyramid.image_size.width;
  // Work items of about equal cost (a fixed number of samples) across layers of very different
  // resolution, so both cores stay busy; OpenCV parallelises over whole layers only.
  std::vector<RowBlock> blocks;
  std::vector<LayerFilter> filters(pyramid.layers.size());
  for (int li = 0; li < static_cast<int>(pyramid.layers.size()); ++li) {
    const HessianLayer& layer = pyramid.layers[li];
    if (layer.size > rows || layer.size > cols) continue;
    filters[li] = makeLayerFilter(layer.size, static_cast<int>(sum.step1()));
    const int samples_i = 1 + (rows - layer.size) / layer.step;
    const int samples_j = 1 + (cols - layer.size) / layer.step;
    const int rows_per_block = std::max(1, 32768 / samples_j);
    for (int r = 0; r < samples_i; r += rows_per_block) blocks.push_back({li, r, std::min(samples_i, r + rows_per_block)});
  }
  cv::parallel_for_(cv::Range(0, static_cast<int>(blocks.size())), [&](const cv::Range& range) {
    for (int b = range.start; b < range.end; ++b) {
      const RowBlock& blk = blocks[b];
      HessianLayer& layer = pyramid.layers[blk.layer];
      const int samples_j = 1 + (cols - layer.size) / layer.step;
      const int margin = (layer.size / 2) / layer.step;
      for (int i = blk.row_begin; i < blk.row_end; ++i) {
        const auto* origin = sum.ptr<std::uint32_t>(i * layer.step);
        detRow(origin, samples_j, layer.step, filters[blk.layer], layer.det.ptr<float>(i + margin) + margin);
      }
    }
  });
}

int laplacianSign(const cv::Mat& sum, int size, int y, int x) {
  Box dx[3], dy[3];
  const int row_step = static_cast<int>(sum.step1());
  resizeBoxPattern(kDx, dx, kHaarSize0, size, row_step);
  resizeBoxPattern(kDy, dy, kHaarSize0, size, row_step);
  const std::int32_t* origin = sum.ptr<std::int32_t>(y) + x;
  const float trace = applyBoxPattern(origin, dx) + applyBoxPattern(origin, dy);
  return (trace > 0) - (trace < 0);
}

}  // namespace bovw::surf
