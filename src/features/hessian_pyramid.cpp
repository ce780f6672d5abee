// Box-filter Hessian determinants with OpenCV's calcLayerDetAndTrace geometry and weights. The three
// lobes of Dxx (Dyy) have equal areas at every SURF filter size, so Dxx = (whole - 3 * middle) / area:
// one box fewer per derivative, and an exact integer times the lobe weight, which is what OpenCV's
// double accumulation computes before rounding to float. (OpenCV's reference outputs still differ in
// the last bit of some responses: builds differ in vector code and contraction.)
#include "hessian_pyramid.hpp"

#include "box_pattern.hpp"

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <cstdint>

namespace bovw::surf {
namespace {

constexpr int kHaarSize0 = 9;    // filter size of the first layer of the first octave
constexpr int kHaarSizeInc = 6;  // growth per layer: keeps all sizes of an octave odd and aligned

// Second-derivative patterns of the 9x9 filter, {x1, y1, x2, y2, weight}, as in OpenCV.
constexpr int kDx[3][5] = {{0, 2, 3, 7, 1}, {3, 2, 6, 7, -2}, {6, 2, 9, 7, 1}};
constexpr int kDy[3][5] = {{2, 0, 7, 3, 1}, {2, 3, 7, 6, -2}, {2, 6, 7, 9, 1}};
constexpr int kDxy[4][5] = {{1, 1, 4, 4, 1}, {5, 1, 8, 4, -1}, {1, 5, 4, 8, -1}, {5, 5, 8, 8, 1}};

// The filter of one layer reduced to the boxes the inner loop reads.
struct LayerFilter {
  // Dxx: whole span and middle lobe; Dyy likewise; Dxy: four quadrants (+, -, -, +).
  int xw[4], xm[4], yw[4], ym[4], q[4][4];
  float wx, wy, wxy;
};

LayerFilter makeFilter(int size, int row_step) {
  Box dx[3], dy[3], dxy[4];
  resizeBoxPattern(kDx, dx, kHaarSize0, size, row_step);
  resizeBoxPattern(kDy, dy, kHaarSize0, size, row_step);
  resizeBoxPattern(kDxy, dxy, kHaarSize0, size, row_step);
  LayerFilter f{};
  // whole span of Dxx: left edge of lobe 0 to right edge of lobe 2, same rows
  f.xw[0] = dx[0].p0; f.xw[1] = dx[0].p1; f.xw[2] = dx[2].p2; f.xw[3] = dx[2].p3;
  f.xm[0] = dx[1].p0; f.xm[1] = dx[1].p1; f.xm[2] = dx[1].p2; f.xm[3] = dx[1].p3;
  f.yw[0] = dy[0].p0; f.yw[1] = dy[2].p1; f.yw[2] = dy[0].p2; f.yw[3] = dy[2].p3;
  f.ym[0] = dy[1].p0; f.ym[1] = dy[1].p1; f.ym[2] = dy[1].p2; f.ym[3] = dy[1].p3;
  for (int k = 0; k < 4; ++k) {
    f.q[k][0] = dxy[k].p0; f.q[k][1] = dxy[k].p1; f.q[k][2] = dxy[k].p2; f.q[k][3] = dxy[k].p3;
  }
  f.wx = dx[0].w;  // lobe weights are +-w, -2w with w = 1 / lobe area
  f.wy = dy[0].w;
  f.wxy = dxy[0].w;
  // The (whole - 3 * middle) form needs equal lobes; SURF sizes (9 + 6 l) << o always give them.
  CV_Assert(dx[1].w == -2 * dx[0].w && dx[2].w == dx[0].w && dy[1].w == -2 * dy[0].w && dy[2].w == dy[0].w);
  return f;
}

inline std::int32_t box(const std::uint32_t* o, const int (&p)[4]) {
  return static_cast<std::int32_t>(o[p[0]] + o[p[3]] - o[p[1]] - o[p[2]]);
}

// One row of samples of one layer.
void detRow(const std::uint32_t* __restrict origin, int samples, int step, const LayerFilter& f,
            float* __restrict out) {
  for (int j = 0; j < samples; ++j, origin += step) {
    const float dx = static_cast<float>(box(origin, f.xw) - 3 * box(origin, f.xm)) * f.wx;
    const float dy = static_cast<float>(box(origin, f.yw) - 3 * box(origin, f.ym)) * f.wy;
    const float dxy =
        static_cast<float>(box(origin, f.q[0]) - box(origin, f.q[1]) - box(origin, f.q[2]) + box(origin, f.q[3])) * f.wxy;
    out[j] = dx * dy - 0.81f * dxy * dxy;  // 0.81 = 0.9^2, Bay et al.'s box-filter correction
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
      layer.size = (kHaarSize0 + kHaarSizeInc * l) << o;
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
    filters[li] = makeFilter(layer.size, static_cast<int>(sum.step1()));
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
