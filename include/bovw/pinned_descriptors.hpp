// Descriptors in pinned (page-locked) host memory of an OpenCL device: fill them in place, pass them
// to a Histogrammer of the same device, and its uploads read them directly over the bus instead of
// first copying them into the histogrammer's own pinned staging (docs/PERFORMANCE.md, "Transfers").
// No OpenCL types here: applications need not include OpenCL headers.
#pragma once

#include <bovw/descriptors.hpp>
#include <bovw/device.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace bovw {

class PinnedDescriptors {
 public:
  // rows x cols floats (row-major, uninitialised) of page-locked memory allocated through the
  // device that `device` names (the spec of HistogrammerConfig::device: "" -> $BOVW_DEVICE -> first
  // GPU -> first CPU). No fallback to ordinary memory: throws InvalidInput for negative sizes or a
  // spec that matches no device (also when no OpenCL platform is installed), CapacityError when the
  // matrix exceeds the device's largest allocation, OpenCLError when the driver refuses the memory.
  // An empty matrix (0 rows or 0 columns) allocates nothing.
  PinnedDescriptors(std::int64_t rows, std::int64_t cols, const std::string& device = "");
  ~PinnedDescriptors();  // releases the memory: nothing may still use it

  PinnedDescriptors(PinnedDescriptors&& other) noexcept;
  PinnedDescriptors& operator=(PinnedDescriptors&& other) noexcept;
  PinnedDescriptors(const PinnedDescriptors&) = delete;
  PinnedDescriptors& operator=(const PinnedDescriptors&) = delete;

  // The matrix, to fill and to pass to Histogrammer::compute/assign (it binds to DescriptorsRef
  // without a copy). Row blocks of it (middleRows, topRows) are uploaded directly as well; column
  // blocks are strided and go through the histogrammer's staging like ordinary memory.
  Eigen::Map<Descriptors> matrix() { return {data_, rows_, cols_}; }
  Eigen::Map<const Descriptors> matrix() const { return {data_, rows_, cols_}; }

  float* data() { return data_; }
  const float* data() const { return data_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  // The device whose pinned memory this is (a default DeviceInfo for a moved-from object).
  const DeviceInfo& device() const;

 private:
  struct Allocation;  // the OpenCL buffer behind the memory (src/opencl/pinned_descriptors.cpp)
  std::unique_ptr<Allocation> allocation_;
  float* data_ = nullptr;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
};

}  // namespace bovw
