// The scale-space plan the SURF kernels read: kernels/surf_layers.h's surf_layer and surf_search
// records for every image of a batch, one image after another, filled from the CPU detector's own
// geometry (hessian_pyramid.hpp), so both detectors evaluate the same filters at the same samples.
#pragma once

#include "device_images.hpp"

#include <opencv2/core.hpp>

#include <cstdint>
#include <vector>

namespace bovw::surf {

struct DeviceLayer {
  std::int32_t det_offset, det_rows, det_cols, size, step, margin, samples_i, samples_j, first_item;
  std::int32_t sum, sum_pitch;
  std::int32_t x_top[4], x_bottom[4], y_left[4], y_right[4];
  std::int32_t q[4][4];
  float wx[3], wy[3], wxy[4];
};
static_assert(sizeof(DeviceLayer) == 53 * 4, "must match kernels/surf_layers.h");

struct DeviceSearch {
  std::int32_t layer, octave, margin, cols, first_item, image;
};
static_assert(sizeof(DeviceSearch) == 6 * 4, "must match kernels/surf_layers.h");

struct DeviceScaleSpace {
  std::vector<DeviceLayer> layers;     // per image, octave-major, octave_layers + 2 per octave
  std::vector<DeviceSearch> searches;  // per image, the middle layers with an interior to search
  std::int64_t det_elements = 0;       // determinant buffer length, all layers
  std::int64_t hessian_items = 0;      // work-items of the Hessian launch (= det_elements)
  std::int64_t search_items = 0;       // work-items of the extremum launch
};

// The plan for the images of `images`, over their integral images.
DeviceScaleSpace planDeviceScaleSpace(const ImageLayout& images, int octaves, int octave_layers);

// The most pixels a batch should hold on a device whose largest allocation is `max_alloc` bytes and
// whose memory is `global_memory` bytes: its Hessian responses (the largest of its buffers, at most
// (octave_layers + 2) x 4/3 floats a pixel) within the largest allocation and an eighth of the
// memory, since two batches are in flight with their other buffers. At least one pixel.
std::int64_t batchPixelLimit(int octaves, int octave_layers, std::uint64_t max_alloc, std::uint64_t global_memory);

}  // namespace bovw::surf
