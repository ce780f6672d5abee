// DeviceContext: the process-wide context and program cache of a device, and a queue of one's own.
#include "opencl/device_context.hpp"

#include "opencl/cl_errors.hpp"

#include <map>
#include <mutex>

namespace bovw::detail {

namespace {

// The registry lives until the process ends and is deliberately never destroyed: releasing OpenCL
// objects from static destructors, after a vendor driver may already have unloaded, crashes some ICDs.
std::shared_ptr<SharedDevice> sharedDevice(const DeviceHandle& handle) {
  static std::mutex mutex;
  static auto* registry = new std::map<cl_device_id, std::shared_ptr<SharedDevice>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& shared = (*registry)[handle.device()];
  if (!shared) {
    cl::Context context(handle.device);
    shared = std::make_shared<SharedDevice>(
        SharedDevice{handle.info, handle.device, context, ProgramCache(context, handle.device)});
  }
  return shared;
}

}  // namespace

DeviceContext::DeviceContext(const std::string& spec) {
  const DeviceHandle handle = findDevice(spec);
  withOpenCLErrors([&] {
    shared_ = sharedDevice(handle);
    queue_ = cl::CommandQueue(shared_->context, shared_->device, CL_QUEUE_PROFILING_ENABLE);
  });
}

}  // namespace bovw::detail
