// DeviceContext: context and profiling queue for one device.
#include "opencl/device_context.hpp"

#include "opencl/cl_errors.hpp"

namespace bovw::detail {

DeviceContext::DeviceContext(const std::string& spec) {
  DeviceHandle handle = findDevice(spec);
  info_ = handle.info;
  device_ = handle.device;
  withOpenCLErrors([&] {
    context_ = cl::Context(device_);
    queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE);
  });
}

}  // namespace bovw::detail
