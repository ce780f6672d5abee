// One selected OpenCL device as a histogrammer uses it: the device's process-wide context, program
// cache (shared by every histogrammer on that device, so an application that makes one per request
// compiles each kernel once per process) and registry of pinned descriptor memory, and a
// profiling-enabled in-order queue of its own with its scratch buffers.
#pragma once

#include "opencl/cl.hpp"
#include "opencl/pinned_host.hpp"
#include "opencl/program_cache.hpp"
#include "opencl/scratch_buffers.hpp"

#include <bovw/device.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bovw::detail {

struct DeviceHandle {
  cl::Device device;
  DeviceInfo info;
};

// The index in `devices` of the device a spec picks ("" -> $BOVW_DEVICE -> first GPU -> first CPU),
// or -1 if none matches: the rule of findDevice, on a list (so that choices can be made, and tested,
// without an OpenCL call).
int pickDevice(const std::vector<DeviceInfo>& devices, const std::string& spec);

// Every device in `devices` that `effective` (a spec with $BOVW_DEVICE already applied) matches, in
// list order: for "" every GPU, else the first CPU device; for "P:D" that one; for "gpu", "cpu" or
// a name part all that match. pickDevice takes the first; the ranks of one host share them out
// (bovw::deviceOfLocalRank).
std::vector<int> matchingDevices(const std::vector<DeviceInfo>& devices, const std::string& effective);

// Resolves a spec as pickDevice does; throws InvalidInput if none matches.
DeviceHandle findDevice(const std::string& spec);

// The host ranges of the PinnedDescriptors allocated on one device, so that a histogrammer can
// tell that a batch's rows are already page-locked and upload them without copying them into its
// staging first. Thread-safe: allocations come and go on any thread while histogrammers look up.
class PinnedRanges {
 public:
  void add(const void* begin, std::size_t bytes);
  void remove(const void* begin);
  // True when [begin, begin + bytes) lies inside one registered range.
  bool contains(const void* begin, std::size_t bytes) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::uintptr_t, std::size_t> ranges_;  // first byte -> size; ranges never overlap
};

// What all users of one device share for the life of the process.
struct SharedDevice {
  SharedDevice(DeviceInfo device_info, cl::Device cl_device);

  DeviceInfo info;
  cl::Device device;
  cl::Context context;
  ProgramCache programs;
  PinnedRanges pinned;
};

class DeviceContext {
 public:
  explicit DeviceContext(const std::string& spec);
  // Another queue (with its own scratch buffers and kernels) on this one's device and context.
  std::unique_ptr<DeviceContext> anotherQueue() const;

  const DeviceInfo& info() const { return shared_->info; }
  const cl::Device& device() const { return shared_->device; }
  const cl::Context& context() const { return shared_->context; }
  ProgramCache& programs() { return shared_->programs; }
  PinnedRanges& pinnedRanges() { return shared_->pinned; }
  cl::CommandQueue& queue() { return queue_; }
  ScratchBuffers& scratch() { return scratch_; }  // working buffers reused by this queue's callers
  // Pinned host memory for this queue's read-backs (made on first use, grown as needed).
  PinnedReadback& readback();

  // Kernel `kernel_name` of kernels/<file>.cl built with `options`, made once for this queue and kept:
  // a cl_kernel's arguments belong to the object, so each queue's caller needs its own, and making and
  // releasing kernels per call from several threads at once crashed PoCL 3.1 (an assertion on a
  // reference count of its binary cache, about one run in eight of a four-thread test).
  cl::Kernel& kernel(const std::string& file, const std::string& kernel_name, const std::string& options);

 private:
  explicit DeviceContext(std::shared_ptr<SharedDevice> shared);

  std::shared_ptr<SharedDevice> shared_;
  cl::CommandQueue queue_;
  ScratchBuffers scratch_{cl::Context()};
  std::map<std::string, cl::Kernel> kernels_;  // by file, kernel name and options
  std::unique_ptr<PinnedReadback> readback_;
};

}  // namespace bovw::detail
