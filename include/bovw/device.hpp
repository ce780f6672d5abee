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

// The device of one rank among the `local_size` ranks of its host (bovw-mpi, docs/SCALING.md): the
// ranks of a host share out the devices that the spec matches, rank `local_rank` taking matching
// device (local_rank mod their number), so that "gpu", a vendor's name or the default puts one rank
// on each GPU. `spec` as selectDevice reads it, but "" is the default itself (every GPU, else the
// first CPU device), not $BOVW_DEVICE: the caller applies that. A pure function of its arguments.
struct RankDevice {
  int index = -1;    // in `devices`; -1 when the spec matches none (selectDevice then says why)
  int matching = 0;  // how many of `devices` the spec matches
  // Another rank of this host takes the same device (more ranks than matching devices): worth a
  // warning where a spec chose it (given, or the default's GPUs), not where the default fell back
  // to the CPU device that every rank of a host without GPUs shares anyway.
  bool shared = false;
};
RankDevice deviceOfLocalRank(const std::vector<DeviceInfo>& devices, const std::string& spec, int local_rank,
                             int local_size);

// The device's measured ceilings, for reporting kernels as a share of what is possible.
struct DeviceCeilings {
  double fp32_gflops = 0;     // an FMA-bound microkernel
  double tf32_gflops = 0;     // an mma.sync-bound microkernel, TF32 operands (NVIDIA only; 0 elsewhere)
  double fp16_gflops = 0;     // ... FP16 operands, FP32 accumulation (NVIDIA only; 0 elsewhere)
  double copy_gb_per_s = 0;   // a device-to-device buffer copy (bytes read + written)
  double pinned_upload_gb_per_s = 0;    // host to device from pinned (page-locked) memory: the bus
  double pageable_upload_gb_per_s = 0;  // host to device from ordinary (pageable) memory
};
DeviceCeilings measureDeviceCeilings(const std::string& spec);

}  // namespace bovw
