// SURF's detector on an OpenCL device (stages 1-3: integral image, Hessian determinants, extrema),
// kernels/surf_integral.cl, surf_hessian.cl and surf_extrema.cl, over a batch of images at once. The
// host only plans the scale spaces; the keypoints the extremum kernel appends stay on the device for
// orientation and description, and sorted into OpenCV's order they are findHessianExtrema's.
#pragma once

#include "device_images.hpp"
#include "device_keypoint.hpp"
#include "opencl/device_context.hpp"

#include <bovw/surf.hpp>

#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace bovw::surf {

// Enqueues the integral images of images.gray into images.sum (integralImage's values). Returns the
// last command's event.
cl::Event enqueueIntegralImages(detail::DeviceContext& device, const DeviceImages& images);

// A started detection's extremum launch and count read-back (surf_detect.cpp), kept until
// finishDetection has the count: a second launch with more room needs the same arguments.
struct PendingExtrema;

// What the detector leaves on the device: `count` keypoint records (DeviceKeypoint, each naming its
// image) in `records`, in no particular order, and the events that close its stages (null where
// nothing ran). `count` is known once the detection is finished.
struct DeviceDetection {
  cl::Buffer records;
  int count = 0;
  cl::Event hessian, first_extrema, extrema;  // extrema: the last launch (a second one when the first ran out of room)
  double count_wait_s = 0;                    // the host's wait for the count (host clock)
  std::shared_ptr<PendingExtrema> pending;    // between startDetection and finishDetection
};

// Enqueues the Hessian and extrema of every image of the batch and the read-back of the keypoint
// count, without waiting. `masks`: null, or the integral images of min(mask, 1), one per image (same
// layout). `slot` names the working buffers (surf.det, the records, the count): a detection started
// while an earlier one of another slot is still to be finished must not share them. Throws
// CapacityError when the scale spaces do not fit in one allocation of the device or in 32-bit
// indices.
DeviceDetection startDetection(detail::DeviceContext& device, const DeviceImages& images, const DeviceImages* masks,
                               const SurfParams& params, const std::string& slot);

// Waits for a started detection's keypoint count (not for what was queued after it); when the
// records had too little room, runs the extremum search again with room for all (and waits for it).
void finishDetection(detail::DeviceContext& device, DeviceDetection& detection);

// startDetection and finishDetection: waits only for the keypoint count.
DeviceDetection detectOnDevice(detail::DeviceContext& device, const DeviceImages& images, const DeviceImages* masks,
                               const SurfParams& params);

// detectOnDevice for one image, read back and sorted: findHessianExtrema's keypoints and order (angle -1).
std::vector<cv::KeyPoint> detectKeypoints(detail::DeviceContext& device, const DeviceImages& image,
                                          const DeviceImages* mask, const SurfParams& params);

}  // namespace bovw::surf
