// SURF's detector on an OpenCL device (stages 1-3: integral image, Hessian determinants, extrema),
// kernels/surf_integral.cl, surf_hessian.cl and surf_extrema.cl. The host only plans the scale space
// and sorts the keypoints the extremum kernel appends, so the result is findHessianExtrema's.
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

// Events that close each detector stage, for per-stage device times; null when nothing ran.
struct DetectionEvents {
  cl::Event hessian, first_extrema, extrema;  // extrema: the last launch (a second one when the first ran out of room)
};

// Keypoints of the image whose integral image is `sum`, in findHessianExtrema's order and values
// (angle -1). `mask_sum`: null, or the integral image of min(mask, 1). Waits for the device.
// Throws CapacityError when the scale space does not fit in one allocation of the device.
std::vector<cv::KeyPoint> detectKeypoints(detail::DeviceContext& device, const cl::Buffer& sum,
                                          const cl::Buffer* mask_sum, cv::Size image_size,
                                          const SurfParams& params, DetectionEvents* events = nullptr);

}  // namespace bovw::surf
