// Host side of the OpenCL orientation and descriptor stages: build options, the constant tables the
// kernels read (uploaded once per queue: ScratchBuffers::table), and the launches.
#include "features/opencl/surf_describe.hpp"

#include "features/opencl/opencv_atan_rounding.hpp"
#include "features/opencl/program_options.hpp"
#include "features/orientation.hpp"
#include "features/surf_descriptor.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace bovw::surf {
namespace {

constexpr int kOrientationGroup = 128;  // kernels/surf_orientation.cl's SURF_ORIENTATION_GROUP
constexpr int kPatchGroup = 128;        // kernels/surf_descriptor.cl's SURF_PATCH_GROUP
constexpr int kPatchBands = 4;          // and SURF_BANDS
constexpr int kPatchPixels = 21 * 21;   // and SURF_PATCH_PIXELS
constexpr int kDescriptorGroup = 64;    // and SURF_DESCRIPTOR_GROUP

// surf_quad_image of every image of the batch, in a new buffer; `done`: its kernel's event.
cl::Buffer enqueueQuadImages(detail::DeviceContext& device, const std::string& options, const DeviceImages& images,
                             cl::Event& done) {
  const ImageLayout& layout = images.layout;
  cl::Buffer quads = device.scratch().get("surf.quads", sizeof(cl_uint) * layout.quad_words);
  cl::Kernel& kernel = device.kernel("surf_descriptor", "surf_quad_image", options);
  kernel.setArg(0, images.gray);
  kernel.setArg(1, images.table);
  kernel.setArg(2, cl_int{layout.size()});
  kernel.setArg(3, quads);
  device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(layout.widest, layout.rows), cl::NullRange,
                                      nullptr, &done);
  return quads;
}

// surf_patch's 21x21 patches of the n keypoints, in a new buffer; `done`: its kernel's event. First
// surf_extra_bands lists the bands past the first of the big windows; then one work-group per
// keypoint takes its first band, and enough work-groups to fill the device (8 a compute unit, no more
// than the list can hold) take the listed ones.
cl::Buffer enqueuePatches(detail::DeviceContext& device, const std::string& options, const DeviceImages& images,
                          const cl::Buffer& quads, const cl::Buffer& keypoints, int n, cl::Event& done) {
  cl::Buffer patches = device.scratch().get("surf.patches", static_cast<std::size_t>(n) * kPatchPixels);
  const std::size_t extra_room = static_cast<std::size_t>(n) * (kPatchBands - 1);
  const cl::Buffer extra = device.scratch().get("surf.patch.extra", sizeof(cl_int2) * extra_room);
  const cl::Buffer extra_count = device.scratch().get("surf.patch.extra_count", sizeof(cl_int));
  device.queue().enqueueFillBuffer(extra_count, cl_int{0}, 0, sizeof(cl_int));
  cl::Kernel& bands = device.kernel("surf_descriptor", "surf_extra_bands", options);
  bands.setArg(0, keypoints);
  bands.setArg(1, cl_int{n});
  bands.setArg(2, extra);
  bands.setArg(3, extra_count);
  device.queue().enqueueNDRangeKernel(bands, cl::NullRange, cl::NDRange(n));
  const int extra_groups = static_cast<int>(
      std::min<std::size_t>(extra_room, std::size_t{8} * std::max(1u, device.info().compute_units)));
  cl::Kernel& kernel = device.kernel("surf_descriptor", "surf_patch", options);
  kernel.setArg(0, images.gray);
  kernel.setArg(1, quads);
  kernel.setArg(2, images.table);
  kernel.setArg(3, keypoints);
  kernel.setArg(4, patches);
  kernel.setArg(5, extra);
  kernel.setArg(6, extra_count);
  kernel.setArg(7, cl_int{extra_groups});
  device.queue().enqueueNDRangeKernel(
      kernel, cl::NullRange, cl::NDRange((static_cast<std::size_t>(n) + extra_groups) * kPatchGroup),
      cl::NDRange(kPatchGroup), nullptr, &done);
  return patches;
}

}  // namespace

cl::Event enqueueOrientations(detail::DeviceContext& device, const DeviceImages& images, const cl::Buffer& keypoints,
                              int n, bool upright) {
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
  kernel.setArg(0, images.sum);
  kernel.setArg(1, images.table);
  kernel.setArg(2, keypoints);
  kernel.setArg(3, cl_int{upright ? 1 : 0});
  kernel.setArg(4, offset_buffer);
  kernel.setArg(5, weight_buffer);
  kernel.setArg(6, cl_int{sampling.count});
  cl::Event done;
  device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(static_cast<std::size_t>(n) * kOrientationGroup),
                                      cl::NDRange(kOrientationGroup), nullptr, &done);
  return done;
}

cl::Event enqueueDescriptors(detail::DeviceContext& device, const DeviceImages& images, const cl::Buffer& keypoints,
                             int n, bool extended, bool upright, const cl::Buffer& descriptors, cl::Event* last) {
  if (n <= 0) return cl::Event();
  const std::string options = surfProgramOptions(device) + " -DSURF_EXTENDED=" + (extended ? "1" : "0") +
                              " -DSURF_UPRIGHT=" + (upright ? "1" : "0");
  cl::Event first, patched;
  // Oriented windows sample through the quad images (one load per sample); upright ones read pixels,
  // and the kernel takes the gray buffer as a stand-in argument it never reads.
  const cl::Buffer quads = upright ? images.gray : enqueueQuadImages(device, options, images, first);
  const cl::Buffer patches = enqueuePatches(device, options, images, quads, keypoints, n, patched);
  cl::Kernel& kernel = device.kernel("surf_descriptor", "surf_descriptor", options);
  const cl::Buffer weight_buffer =
      device.scratch().table("surf.descriptor.weights", descriptorWeights(), sizeof(float) * 20 * 20);
  kernel.setArg(0, keypoints);
  kernel.setArg(1, patches);
  kernel.setArg(2, weight_buffer);
  kernel.setArg(3, descriptors);
  device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(static_cast<std::size_t>(n) * kDescriptorGroup),
                                      cl::NDRange(kDescriptorGroup), nullptr, last);
  return upright ? patched : first;
}

}  // namespace bovw::surf
