// One selected OpenCL device with its context and a profiling-enabled in-order queue.
#pragma once

#include "opencl/cl.hpp"

#include <bovw/device.hpp>

#include <string>

namespace bovw::detail {

struct DeviceHandle {
  cl::Device device;
  DeviceInfo info;
};

// Resolves a spec ("" -> $BOVW_DEVICE -> first GPU -> first CPU); throws InvalidInput if none matches.
DeviceHandle findDevice(const std::string& spec);

class DeviceContext {
 public:
  explicit DeviceContext(const std::string& spec);

  const DeviceInfo& info() const { return info_; }
  const cl::Device& device() const { return device_; }
  const cl::Context& context() const { return context_; }
  cl::CommandQueue& queue() { return queue_; }

 private:
  DeviceInfo info_;
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
};

}  // namespace bovw::detail
