// A batch of images through all five SURF stages on one queue, its features left on the device
// grouped by image: one launch sequence for many images, so that small images still fill a GPU.
// The extractor (a batch of one, or many) and the fused images-to-histograms path (src/pipeline)
// share it.
#pragma once

#include "device_images.hpp"
#include "device_keypoint.hpp"
#include "surf_detect.hpp"
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
  // Which set of working buffers the batch's upload and detection use: a batch started while an
  // earlier one still waits to be finished (startSurf, finishSurf) needs a slot of its own.
  int slot = 0;
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
  DeviceDetection detection;  // detected batches: its stages' events, its count wait
  cl::Event oriented, counted, grouped, described, described_end;  // counted, grouped: the grouping's two passes
};

// Starts the batch on device.queue(): the upload and the detection, up to the keypoint count's
// read-back, without waiting. Keep the result until the queue has run it. Throws InvalidInput for a
// bad batch, CapacityError when its scale spaces do not fit the device (see startDetection).
SurfOnDevice startSurf(detail::DeviceContext& device, const SurfBatchInput& input, const SurfParams& params);

// Waits for a started batch's keypoint count (not for batches started after it), then enqueues its
// orientation, grouping and description. The device goes on with what was queued after the count
// while the host waits and enqueues: a caller that starts batch n + 1 before finishing batch n (in
// another slot) keeps the device busy.
void finishSurf(detail::DeviceContext& device, const SurfBatchInput& input, const SurfParams& params,
                SurfOnDevice& batch);

// startSurf and finishSurf: waits only for the keypoint count (and so for everything queued before).
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
