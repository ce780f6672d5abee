// A batch of images through all five SURF stages on one queue, its features left on the device
// grouped by image: one launch sequence for many images, so that small images still fill a GPU.
// The extractor (a batch of one, or many) and the fused images-to-histograms path (src/pipeline)
// share it.
#pragma once

#include "device_images.hpp"
#include "device_keypoint.hpp"
#include "opencl/device_context.hpp"

#include <bovw/feature_extractor.hpp>
#include <bovw/surf.hpp>

#include <opencv2/core.hpp>

#include <vector>

namespace bovw::surf {

constexpr int kMaxBatchImages = 1024;  // kernels/surf_group.cl's SURF_MAX_IMAGES

struct SurfBatchInput {
  std::vector<cv::Mat> grays;  // CV_8UC1
  // Empty, or one per image: CV_8UC1 of its size (keypoints kept where non-zero) or empty (none).
  std::vector<cv::Mat> masks;
  // One image only: describe these keypoints (their angles recomputed unless upright) instead of
  // detecting; null to detect.
  const std::vector<cv::KeyPoint>* given = nullptr;
  bool describe = true;
};

// What a batch leaves on the device, and the events that bound its stages.
struct SurfOnDevice {
  DeviceImages images, masks;  // masks: only when the input has any
  int image_count = 0;
  int count = 0;           // keypoint records, dropped ones (size <= 0) included
  cl::Buffer records;      // DeviceKeypoint: detected ones grouped by image, given ones in the caller's order
  // image_count + 2 ints: image i's records are [offsets[i], offsets[i + 1]); detected keypoints the
  // orientation stage dropped lie in [offsets[image_count], count).
  cl::Buffer offsets;
  cl::Buffer descriptors;  // `count` rows in the records' order, when described (dropped ones: zeros)
  int width = 0;
  cl::Event hessian, first_extrema, extrema, oriented, grouped, described, described_end;
  double count_wait_s = 0;  // the host's wait for the keypoint count (host clock)
};

// Enqueues the batch on device.queue(); waits only for the keypoint count (and so for everything
// queued before). Keep the result until the queue has run it. Throws CapacityError when the batch's
// scale spaces do not fit the device (see detectOnDevice).
SurfOnDevice enqueueSurf(detail::DeviceContext& device, const SurfBatchInput& input, const SurfParams& params);

// The features of every image, read back (waits): detected keypoints in OpenCV's order, given ones
// in the caller's, without those the orientation stage dropped or outside the image's mask, with
// their descriptor rows (empty descriptors when not described). Adds the device's stage times and
// the host's reordering to `times` when given.
std::vector<ImageFeatures> readFeatures(detail::DeviceContext& device, const SurfOnDevice& batch,
                                        const SurfBatchInput& input, SurfStageTimes* times = nullptr);

// The host part of readFeatures for one image: the order of its `count` records (`records`) in
// the output, without dropped ones and those outside `mask`; detected ones sorted as OpenCV sorts.
std::vector<int> outputOrder(const DeviceKeypoint* records, int count, bool detected, const cv::Mat& mask);

// Device timestamps of completed commands, in milliseconds. Stage times are diagnostics: a device
// that withholds a timestamp (seen on NVIDIA's driver for a few percent of commands when several
// queues run at once) gives 0 for that stage rather than failing the image.
double elapsedBetween(const cl::Event& first, const cl::Event& last);

// The batch's device stage times (from its events; complete once the queue has finished it).
void addStageTimes(const SurfOnDevice& batch, SurfStageTimes& times);

}  // namespace bovw::surf
