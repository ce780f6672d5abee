#include "device_layers.hpp"

#include "features/hessian_pyramid.hpp"

#include <algorithm>
#include <cstring>

namespace bovw::surf {
namespace {

// Image `image`'s layers and searches, appended to `plan`.
void planImage(const DeviceImageRecord& image, int index, int octaves, int octave_layers, DeviceScaleSpace& plan) {
  const int rows = image.rows, cols = image.cols, row_step = cols + 1;
  const int first_layer = static_cast<int>(plan.layers.size());
  for (int o = 0; o < octaves; ++o) {
    const int step = 1 << o;
    for (int l = 0; l < octave_layers + 2; ++l) {
      DeviceLayer d{};
      d.size = layerFilterSize(o, l);
      d.step = step;
      d.det_rows = rows / step;
      d.det_cols = cols / step;
      d.margin = (d.size / 2) / step;
      const bool fits = d.size <= rows && d.size <= cols;
      d.samples_i = fits ? 1 + (rows - d.size) / step : 0;
      d.samples_j = fits ? 1 + (cols - d.size) / step : 0;
      d.det_offset = static_cast<std::int32_t>(plan.det_elements);
      d.first_item = d.det_offset;  // one work-item per stored determinant
      d.sum = image.sum;
      d.sum_pitch = row_step;
      const LayerFilter f = makeLayerFilter(d.size, row_step);
      std::memcpy(d.x_top, f.x_top, sizeof f.x_top);
      std::memcpy(d.x_bottom, f.x_bottom, sizeof f.x_bottom);
      std::memcpy(d.y_left, f.y_left, sizeof f.y_left);
      std::memcpy(d.y_right, f.y_right, sizeof f.y_right);
      std::memcpy(d.q, f.q, sizeof f.q);
      std::memcpy(d.wx, f.wx, sizeof f.wx);
      std::memcpy(d.wy, f.wy, sizeof f.wy);
      std::memcpy(d.wxy, f.wxy, sizeof f.wxy);
      plan.det_elements += static_cast<std::int64_t>(d.det_rows) * d.det_cols;
      plan.layers.push_back(d);
    }
  }
  // As findHessianExtrema: rows and columns [margin, n - margin) of every middle layer.
  for (int o = 0; o < octaves; ++o) {
    for (int l = 1; l <= octave_layers; ++l) {
      const int mid = first_layer + o * (octave_layers + 2) + l;
      const DeviceLayer& m = plan.layers[mid];
      const int margin = (plan.layers[mid + 1].size / 2) / m.step + 1;
      const int search_rows = m.det_rows - 2 * margin, search_cols = m.det_cols - 2 * margin;
      if (search_rows <= 0 || search_cols <= 0) continue;
      plan.searches.push_back({mid, o, margin, search_cols, static_cast<std::int32_t>(plan.search_items), index});
      plan.search_items += static_cast<std::int64_t>(search_rows) * search_cols;
    }
  }
}

}  // namespace

DeviceScaleSpace planDeviceScaleSpace(const ImageLayout& images, int octaves, int octave_layers) {
  DeviceScaleSpace plan;
  for (int i = 0; i < images.size(); ++i) planImage(images.records[i], i, octaves, octave_layers, plan);
  plan.hessian_items = plan.det_elements;
  return plan;
}

std::int64_t batchPixelLimit(int octaves, int octave_layers, std::uint64_t max_alloc, std::uint64_t global_memory) {
  // Responses a pixel, bounded from above: each layer of octave o holds at most one per 4^o pixels.
  double per_pixel = 0;
  for (int o = 0; o < octaves; ++o) per_pixel += (octave_layers + 2) / static_cast<double>(std::int64_t{1} << (2 * o));
  const double budget = static_cast<double>(std::min(max_alloc, global_memory / 8));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(budget / (sizeof(float) * std::max(per_pixel, 1.0))));
}

}  // namespace bovw::surf
