// OpenCL devices as users see them: listing, selection by a textual spec, measured ceilings.
// No OpenCL types here: applications need not include OpenCL headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bovw {

struct DeviceInfo {
  int platform_index = 0;
  int device_index = 0;
  std::string platform;
  std::string name;
  std::string vendor;
  std::string type;            // "GPU", "CPU", "accelerator", "other"
  std::string version;         // CL_DEVICE_VERSION
  std::string c_version;       // CL_DEVICE_OPENCL_C_VERSION
  std::string driver_version;
  unsigned compute_units = 0;
  std::uint64_t global_memory = 0;
  std::uint64_t max_allocation = 0;
  std::uint64_t local_memory = 0;
  std::uint64_t constant_memory = 0;
  std::size_t max_work_group_size = 0;
};

// Every device of every platform; empty (not an error) when no OpenCL platform is installed.
std::vector<DeviceInfo> listDevices();

// Resolves a device spec (see HistogrammerConfig::device); "" consults $BOVW_DEVICE.
// Throws InvalidInput naming the spec and listing the devices if none matches.
DeviceInfo selectDevice(const std::string& spec);

// The device's measured ceilings, for reporting kernels as a share of what is possible.
struct DeviceCeilings {
  double fp32_gflops = 0;     // an FMA-bound microkernel
  double tf32_gflops = 0;     // an mma.sync-bound microkernel (NVIDIA only; 0 elsewhere)
  double copy_gb_per_s = 0;   // a device-to-device buffer copy (bytes read + written)
  double pinned_upload_gb_per_s = 0;    // host to device from pinned (page-locked) memory: the bus
  double pageable_upload_gb_per_s = 0;  // host to device from ordinary (pageable) memory
};
DeviceCeilings measureDeviceCeilings(const std::string& spec);

}  // namespace bovw
