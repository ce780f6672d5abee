// The device seam of the extractors: what one whose features are computed on an OpenCL device (SURF's
// OpenCL backend) offers the fused images-to-histograms route (src/pipeline/device_histograms.cpp),
// so that its descriptors stay on the device and go straight to the histogram search. Asked for with
// detail::deviceFeaturesOf (a private virtual of FeatureExtractor, null for extractors on the host),
// not with casts to a backend's class.
#pragma once

#include "surf_batch.hpp"

#include <bovw/surf.hpp>

#include <opencv2/core.hpp>

#include <memory>
#include <vector>

namespace bovw::detail {

class DeviceFeatures {
 public:
  // True when this extractor's batches may run on `device`'s queue (the same OpenCL device), in
  // order with the work of whoever owns that queue.
  virtual bool runsOn(const DeviceContext& device) const = 0;

  // The host's part of one image, done on the decoding workers: 8-bit gray (toSurfGray).
  virtual cv::Mat prepare(const cv::Mat& image) const = 0;

  // A batch of prepared images started on device.queue(): uploaded and searched for keypoints,
  // nothing waited for (surf::startSurf).
  virtual surf::SurfOnDevice start(DeviceContext& device, const surf::SurfBatchInput& input) const = 0;

  // The rest of a started batch, its features left on the device (surf::finishSurf: waits only for
  // the batch's keypoint count).
  virtual void finish(DeviceContext& device, const surf::SurfBatchInput& input, surf::SurfOnDevice& batch) const = 0;

  // A batch of prepared images through every stage on a queue of the extractor's, its features read
  // back into that queue's pinned memory and returned in OpenCV's order (what extractFeaturesBatch
  // gives for them, without the checks): the extraction route's device batches.
  virtual std::vector<ImageFeatures> extract(const surf::SurfBatchInput& input) const = 0;

  // The most pixels one of this extractor's batches should hold on `device` (batchPixelLimit in
  // device_layers.hpp): the device routes cut their batches at the smaller of it and
  // PipelineOptions::device_batch_pixels.
  virtual std::int64_t batchPixelLimit(const DeviceContext& device) const = 0;

  // A new queue on this extractor's device (for work beside its own, such as mapping pinned staging).
  virtual std::unique_ptr<DeviceContext> newQueue() const = 0;

 protected:
  ~DeviceFeatures() = default;  // not owned through this interface
};

}  // namespace bovw::detail
