// DeviceContext: the process-wide context, program cache and pinned-memory registry of a device,
// and a queue of one's own.
#include "opencl/device_context.hpp"

#include "opencl/cl_errors.hpp"

#include <iterator>
#include <utility>

namespace bovw::detail {

void PinnedRanges::add(const void* begin, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  ranges_[reinterpret_cast<std::uintptr_t>(begin)] = bytes;
}

void PinnedRanges::remove(const void* begin) {
  std::lock_guard<std::mutex> lock(mutex_);
  ranges_.erase(reinterpret_cast<std::uintptr_t>(begin));
}

bool PinnedRanges::contains(const void* begin, std::size_t bytes) const {
  const auto first = reinterpret_cast<std::uintptr_t>(begin);
  std::lock_guard<std::mutex> lock(mutex_);
  auto after = ranges_.upper_bound(first);  // the first range starting beyond `begin`
  if (after == ranges_.begin()) return false;
  const auto& [start, size] = *std::prev(after);
  return first - start <= size && bytes <= size - (first - start);
}

SharedDevice::SharedDevice(DeviceInfo device_info, cl::Device cl_device)
    : info(std::move(device_info)), device(std::move(cl_device)), context(device),
      programs(context, device, ProgramBinaryStore::fromEnvironment()) {}

namespace {

// The registry lives until the process ends and is deliberately never destroyed: releasing OpenCL
// objects from static destructors, after a vendor driver may already have unloaded, crashes some ICDs.
std::shared_ptr<SharedDevice> sharedDevice(const DeviceHandle& handle) {
  static std::mutex mutex;
  static auto* registry = new std::map<cl_device_id, std::shared_ptr<SharedDevice>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& shared = (*registry)[handle.device()];
  if (!shared) shared = std::make_shared<SharedDevice>(handle.info, handle.device);
  return shared;
}

}  // namespace

DeviceContext::DeviceContext(const std::string& spec) {
  const DeviceHandle handle = findDevice(spec);
  withOpenCLErrors([&] {
    shared_ = sharedDevice(handle);
    queue_ = cl::CommandQueue(shared_->context, shared_->device, CL_QUEUE_PROFILING_ENABLE);
    scratch_ = ScratchBuffers(shared_->context);
  });
}

DeviceContext::DeviceContext(std::shared_ptr<SharedDevice> shared) : shared_(std::move(shared)) {
  withOpenCLErrors([&] {
    queue_ = cl::CommandQueue(shared_->context, shared_->device, CL_QUEUE_PROFILING_ENABLE);
    scratch_ = ScratchBuffers(shared_->context);
  });
}

std::unique_ptr<DeviceContext> DeviceContext::anotherQueue() const {
  return std::unique_ptr<DeviceContext>(new DeviceContext(shared_));
}

PinnedReadback& DeviceContext::readback() {
  if (!readback_) readback_ = std::make_unique<PinnedReadback>(shared_->context, queue_);
  return *readback_;
}

cl::Kernel& DeviceContext::kernel(const std::string& file, const std::string& kernel_name,
                                  const std::string& options) {
  const std::string key = file + '\n' + kernel_name + '\n' + options;
  auto it = kernels_.find(key);
  if (it == kernels_.end()) it = kernels_.emplace(key, programs().kernel(file, kernel_name, options)).first;
  return it->second;
}

}  // namespace bovw::detail
