// Host side of the OpenCL orientation and descriptor stages: build options, the constant tables the
// kernels read (uploaded once per queue: ScratchBuffers::table), and the launches.
#include "features/opencl/surf_describe.hpp"

#include "features/opencl/opencv_atan_rounding.hpp"
#include "features/opencl/program_options.hpp"
#include "features/orientation.hpp"
#include "features/surf_descriptor.hpp"

#include <string>
#include <vector>

namespace bovw::surf {
namespace {

constexpr int kOrientationGroup = 128;  // kernels/surf_orientation.cl's SURF_ORIENTATION_GROUP
constexpr int kPatchGroup = 256;        // kernels/surf_descriptor.cl's SURF_PATCH_GROUP
constexpr int kPatchBands = 4;          // and SURF_BANDS
constexpr int kPatchPixels = 21 * 21;   // and SURF_PATCH_PIXELS
constexpr int kDescriptorGroup = 64;    // and SURF_DESCRIPTOR_GROUP

// surf_quad_image of `gray`, in a new buffer; `done`: its kernel's event.
cl::Buffer enqueueQuadImage(detail::DeviceContext& device, const std::string& options, const cl::Buffer& gray,
                            cv::Size image_size, cl::Event& done) {
  // kernels/surf_window.h's surf_quad_index: tiles of 8 x 4 words.
  const std::size_t tiles = static_cast<std::size_t>((image_size.height + 3) / 4) * ((image_size.width + 7) / 8);
  cl::Buffer quads = device.scratch().get("surf.quads", sizeof(cl_uint) * 32 * tiles);
  cl::Kernel& kernel = device.kernel("surf_descriptor", "surf_quad_image", options);
  kernel.setArg(0, gray);
  kernel.setArg(1, cl_int{image_size.height});
  kernel.setArg(2, cl_int{image_size.width});
  kernel.setArg(3, quads);
  device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(image_size.width, image_size.height),
                                      cl::NullRange, nullptr, &done);
  return quads;
}

// surf_patch's 21x21 patches of the n keypoints, in a new buffer; `done`: its kernel's event.
// Work-group w computes band w % kPatchBands of keypoint w / kPatchBands.
cl::Buffer enqueuePatches(detail::DeviceContext& device, const std::string& options, const cl::Buffer& gray,
                          const cl::Buffer& quads, cv::Size image_size, const cl::Buffer& keypoints, int n,
                          cl::Event& done) {
  cl::Buffer patches = device.scratch().get("surf.patches", static_cast<std::size_t>(n) * kPatchPixels);
  cl::Kernel& kernel = device.kernel("surf_descriptor", "surf_patch", options);
  kernel.setArg(0, gray);
  kernel.setArg(1, quads);
  kernel.setArg(2, cl_int{image_size.height});
  kernel.setArg(3, cl_int{image_size.width});
  kernel.setArg(4, keypoints);
  kernel.setArg(5, patches);
  device.queue().enqueueNDRangeKernel(kernel, cl::NullRange,
                                      cl::NDRange(static_cast<std::size_t>(n) * kPatchBands * kPatchGroup),
                                      cl::NDRange(kPatchGroup), nullptr, &done);
  return patches;
}

}  // namespace

cl::Event enqueueOrientations(detail::DeviceContext& device, const cl::Buffer& sum, cv::Size image_size,
                         const cl::Buffer& keypoints, int n, bool upright) {
  if (n <= 0) return cl::Event();
  cl::Kernel& kernel = device.kernel(
      "surf_orientation", "surf_orientation", surfProgramOptions(device) + atanBuildOptions(opencvAtanRounding()));
  const OrientationSampling& sampling = orientationSampling();
  CV_Assert(sampling.count <= kOrientationGroup);  // one work-item per sample
  std::vector<cl_int> offsets;
  for (int k = 0; k < sampling.count; ++k) {
    offsets.push_back(sampling.offset[k].x);
    offsets.push_back(sampling.offset[k].y);
  }
  const cl::Buffer offset_buffer =
      device.scratch().table("surf.orientation.offsets", offsets.data(), sizeof(cl_int) * offsets.size());
  const cl::Buffer weight_buffer =
      device.scratch().table("surf.orientation.weights", sampling.weight.data(), sizeof(float) * sampling.count);
  kernel.setArg(0, sum);
  kernel.setArg(1, cl_int{image_size.height});
  kernel.setArg(2, cl_int{image_size.width});
  kernel.setArg(3, keypoints);
  kernel.setArg(4, cl_int{upright ? 1 : 0});
  kernel.setArg(5, offset_buffer);
  kernel.setArg(6, weight_buffer);
  kernel.setArg(7, cl_int{sampling.count});
  cl::Event done;
  device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(static_cast<std::size_t>(n) * kOrientationGroup),
                                      cl::NDRange(kOrientationGroup), nullptr, &done);
  return done;
}

cl::Event enqueueDescriptors(detail::DeviceContext& device, const cl::Buffer& gray, cv::Size image_size,
                        const cl::Buffer& keypoints, int n, bool extended, bool upright,
                        const cl::Buffer& descriptors) {
  if (n <= 0) return cl::Event();
  const std::string options = surfProgramOptions(device) + " -DSURF_EXTENDED=" + (extended ? "1" : "0") +
                              " -DSURF_UPRIGHT=" + (upright ? "1" : "0");
  cl::Event first, patched;
  // Oriented windows sample through the quad image (one load per sample); upright ones read pixels,
  // and the kernel takes `gray` as a stand-in argument it never reads.
  const cl::Buffer quads = upright ? gray : enqueueQuadImage(device, options, gray, image_size, first);
  const cl::Buffer patches = enqueuePatches(device, options, gray, quads, image_size, keypoints, n, patched);
  cl::Kernel& kernel = device.kernel("surf_descriptor", "surf_descriptor", options);
  const cl::Buffer weight_buffer =
      device.scratch().table("surf.descriptor.weights", descriptorWeights(), sizeof(float) * 20 * 20);
  kernel.setArg(0, keypoints);
  kernel.setArg(1, patches);
  kernel.setArg(2, weight_buffer);
  kernel.setArg(3, descriptors);
  device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(static_cast<std::size_t>(n) * kDescriptorGroup),
                                      cl::NDRange(kDescriptorGroup));
  return upright ? patched : first;
}

}  // namespace bovw::surf
