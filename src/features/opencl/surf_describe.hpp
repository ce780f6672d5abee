// The last two SURF stages on an OpenCL device: orientation (kernels/surf_orientation.cl) and
// descriptor (kernels/surf_descriptor.cl), on keypoints that stay on the device. Both reproduce the
// CPU stages (orientation.hpp, surf_descriptor.hpp) bit for bit; docs/SURF.md ("The OpenCL backend",
// "Orientation and descriptor stages") says how, and where that rests on the host's OpenCV and C library.
#pragma once

#include "device_images.hpp"
#include "opencl/device_context.hpp"

#include <opencv2/core.hpp>

namespace bovw::surf {

// Sets angle (or size -1) of the n keypoints (DeviceKeypoint records, each naming its image of
// `images`) as assignOrientations does. Enqueued on device.queue(); no wait. Returns the kernel's
// event (a null event when n = 0).
cl::Event enqueueOrientations(detail::DeviceContext& device, const DeviceImages& images, const cl::Buffer& keypoints,
                              int n, bool upright);

// Row k of `descriptors` (n x (extended ? 128 : 64) float32, packed) for keypoint k, as
// computeDescriptors; rows of keypoints with size <= 0 are zeros. Enqueued on device.queue(); no
// wait. Returns the event of the stage's first command (oriented: the quad images it samples through;
// upright: the patch kernel), a null event when n = 0; `last`, when given, gets the last command's.
cl::Event enqueueDescriptors(detail::DeviceContext& device, const DeviceImages& images, const cl::Buffer& keypoints,
                             int n, bool extended, bool upright, const cl::Buffer& descriptors,
                             cl::Event* last = nullptr);

}  // namespace bovw::surf
