// One selected OpenCL device as a histogrammer uses it: the device's process-wide context and
// program cache (shared by every histogrammer on that device, so an application that makes one per
// request compiles each kernel once per process), and a profiling-enabled in-order queue of its own.
#pragma once

#include "opencl/cl.hpp"
#include "opencl/program_cache.hpp"

#include <bovw/device.hpp>

#include <memory>
#include <string>

namespace bovw::detail {

struct DeviceHandle {
  cl::Device device;
  DeviceInfo info;
};

// Resolves a spec ("" -> $BOVW_DEVICE -> first GPU -> first CPU); throws InvalidInput if none matches.
DeviceHandle findDevice(const std::string& spec);

// What all users of one device share for the life of the process.
struct SharedDevice {
  DeviceInfo info;
  cl::Device device;
  cl::Context context;
  ProgramCache programs;
};

class DeviceContext {
 public:
  explicit DeviceContext(const std::string& spec);

  const DeviceInfo& info() const { return shared_->info; }
  const cl::Device& device() const { return shared_->device; }
  const cl::Context& context() const { return shared_->context; }
  ProgramCache& programs() { return shared_->programs; }
  cl::CommandQueue& queue() { return queue_; }

 private:
  std::shared_ptr<SharedDevice> shared_;
  cl::CommandQueue queue_;
};

}  // namespace bovw::detail
