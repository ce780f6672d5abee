// The images of one SURF batch on the device: their 8-bit pixels one after another in one buffer,
// their integral images likewise in another, and a table (kernels/surf_common.h's surf_image) that
// says where each image starts, so that one launch of each stage covers every image of the batch.
// A single image is a batch of one.
#pragma once

#include "opencl/device_context.hpp"

#include <opencv2/core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bovw::surf {

struct DeviceImageRecord {
  std::int32_t pixels, sum, quads, rows, cols, first_row, first_column, pad;
};
static_assert(sizeof(DeviceImageRecord) == 8 * 4, "must match kernels/surf_common.h");

// Where a batch's images go in the device buffers (host side only; no device work).
struct ImageLayout {
  std::vector<DeviceImageRecord> records;
  std::int64_t pixels = 0;        // bytes of the gray buffer
  std::int64_t sum_elements = 0;  // uint32 elements of the integral images
  std::int64_t quad_words = 0;    // uint32 words of the quad images
  int rows = 0;                   // rows of all images (row launches)
  int columns = 0;                // integral columns (cols + 1) of all images (column launch)
  int widest = 0;                 // the largest cols

  int size() const { return static_cast<int>(records.size()); }
};

// The layout of images of these sizes, in order. Throws CapacityError when a buffer would pass the
// kernels' 32-bit offsets.
ImageLayout layoutImages(const std::vector<cv::Size>& sizes);

// A batch on the device: `gray` and `sum` per `layout`, the table, and the events that bound the
// upload and integral-image stage. `sources` are the images the uploads read from: keep the
// DeviceImages until the queue has run the uploads (any later wait on the queue will do).
struct DeviceImages {
  ImageLayout layout;
  cl::Buffer table, gray, sum;
  cl::Event uploaded, integrated;  // uploaded: the first image's transfer
  std::vector<cv::Mat> sources;
};

// Enqueues the upload of `grays` (CV_8UC1, any strides; the layout's sizes) and their integral images
// on device.queue(), without waiting (a blocking upload would wait for everything queued before it,
// and the device would idle while the host prepares the next batch). Each image goes from its own
// memory (no packed copy: for a batch of 16 Mpx that copy, into fresh memory, cost the host more than
// the device's whole SURF). `name` tells which scratch buffers hold them (an image batch and its masks
// are on the device at once).
DeviceImages uploadImages(detail::DeviceContext& device, const std::vector<cv::Mat>& grays, const std::string& name);

}  // namespace bovw::surf
