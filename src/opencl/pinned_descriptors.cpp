// PinnedDescriptors: a CL_MEM_ALLOC_HOST_PTR buffer of the device's shared context, mapped for the
// object's lifetime (the pinned-memory recipe of NVIDIA's OpenCL guide), and its host range
// registered with the device so that histogrammers upload straight from it.
#include <bovw/error.hpp>
#include <bovw/pinned_descriptors.hpp>

#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"

#include <string>
#include <utility>

namespace bovw {

struct PinnedDescriptors::Allocation {
  explicit Allocation(const std::string& spec) : device(spec) {}
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  ~Allocation() {
    if (!mapped) return;
    device.pinnedRanges().remove(mapped);
    try {
      device.queue().enqueueUnmapMemObject(buffer, mapped);
      device.queue().finish();
    } catch (const cl::Error&) {  // nothing to do about a failure while tearing down
    }
  }

  detail::DeviceContext device;
  cl::Buffer buffer;
  void* mapped = nullptr;
};

PinnedDescriptors::PinnedDescriptors(std::int64_t rows, std::int64_t cols, const std::string& device) {
  const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
  if (rows < 0 || cols < 0) throw InvalidInput("pinned descriptors: " + shape + " is not a matrix shape");
  auto allocation = std::make_unique<Allocation>(device);  // InvalidInput when the spec matches no device
  if (rows > 0 && cols > 0) {
    const DeviceInfo& info = allocation->device.info();
    const std::uint64_t largest = info.max_allocation / sizeof(float);
    if (static_cast<std::uint64_t>(rows) > largest / static_cast<std::uint64_t>(cols))
      throw CapacityError("pinned descriptors: " + shape + " floats exceed the largest allocation of " +
                          info.name + " (" + std::to_string(info.max_allocation >> 20) +
                          " MiB); use smaller batches or ordinary memory");
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    detail::withOpenCLErrors([&] {
      allocation->buffer = cl::Buffer(allocation->device.context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes);
      allocation->mapped = allocation->device.queue().enqueueMapBuffer(allocation->buffer, CL_TRUE,
                                                                       CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
    });
    allocation->device.pinnedRanges().add(allocation->mapped, bytes);
  }
  data_ = static_cast<float*>(allocation->mapped);
  rows_ = rows;
  cols_ = cols;
  allocation_ = std::move(allocation);
}

PinnedDescriptors::~PinnedDescriptors() = default;

PinnedDescriptors::PinnedDescriptors(PinnedDescriptors&& other) noexcept
    : allocation_(std::move(other.allocation_)),
      data_(std::exchange(other.data_, nullptr)),
      rows_(std::exchange(other.rows_, 0)),
      cols_(std::exchange(other.cols_, 0)) {}

PinnedDescriptors& PinnedDescriptors::operator=(PinnedDescriptors&& other) noexcept {
  if (this != &other) {
    allocation_ = std::move(other.allocation_);
    data_ = std::exchange(other.data_, nullptr);
    rows_ = std::exchange(other.rows_, 0);
    cols_ = std::exchange(other.cols_, 0);
  }
  return *this;
}

const DeviceInfo& PinnedDescriptors::device() const {
  static const DeviceInfo none;
  return allocation_ ? allocation_->device.info() : none;
}

}  // namespace bovw
