// SURF's detector on an OpenCL device (stages 1-3: integral image, Hessian determinants, extrema),
// kernels/surf_integral.cl, surf_hessian.cl and surf_extrema.cl. The host only plans the scale space;
// the keypoints the extremum kernel appends stay on the device for orientation and description, and
// sorted into OpenCV's order they are findHessianExtrema's.
#pragma once

#include "opencl/device_context.hpp"

#include <bovw/surf.hpp>

#include <opencv2/core.hpp>

#include <vector>

namespace bovw::surf {

// Enqueues the integral image of `gray` (rows x cols uint8, packed) into `sum` ((rows + 1) x
// (cols + 1) uint32, packed), integralImage's values. Returns the last command's event.
cl::Event enqueueIntegralImage(detail::DeviceContext& device, const cl::Buffer& gray, cv::Size image_size,
                               const cl::Buffer& sum);

// What the detector leaves on the device: `count` keypoint records (DeviceKeypoint) in `records`, in
// no particular order, and the events that close its stages (null where nothing ran).
struct DeviceDetection {
  cl::Buffer records;
  int count = 0;
  cl::Event hessian, first_extrema, extrema;  // extrema: the last launch (a second one when the first ran out of room)
};

// Hessian and extrema of the image whose integral image is `sum`; waits only for the keypoint count.
// `mask_sum`: null, or the integral image of min(mask, 1). Throws CapacityError when the scale space
// does not fit in one allocation of the device or in 32-bit indices.
DeviceDetection detectOnDevice(detail::DeviceContext& device, const cl::Buffer& sum, const cl::Buffer* mask_sum,
                               cv::Size image_size, const SurfParams& params);

// The first `count` records of `records`, as keypoints, in their order on the device. Waits.
std::vector<cv::KeyPoint> readKeypoints(detail::DeviceContext& device, const cl::Buffer& records, int count);

// detectOnDevice, read back and sorted: findHessianExtrema's keypoints and order (angle -1).
std::vector<cv::KeyPoint> detectKeypoints(detail::DeviceContext& device, const cl::Buffer& sum,
                                          const cl::Buffer* mask_sum, cv::Size image_size,
                                          const SurfParams& params);

}  // namespace bovw::surf
