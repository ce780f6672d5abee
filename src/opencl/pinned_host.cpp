// PinnedHost: map once, unmap at the end; PinnedReadback: grow by replacing.
#include "opencl/pinned_host.hpp"

#include <algorithm>
#include <utility>

namespace bovw::detail {

PinnedHost::PinnedHost(const cl::Context& context, cl::CommandQueue queue, std::size_t bytes)
    : queue_(std::move(queue)), bytes_(std::max<std::size_t>(bytes, 1)) {
  buffer_ = cl::Buffer(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes_);
  data_ = static_cast<unsigned char*>(
      queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes_));
}

PinnedHost::~PinnedHost() { release(); }

PinnedHost::PinnedHost(PinnedHost&& other) noexcept
    : queue_(std::move(other.queue_)),
      buffer_(std::move(other.buffer_)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

PinnedHost& PinnedHost::operator=(PinnedHost&& other) noexcept {
  if (this != &other) {
    release();
    queue_ = std::move(other.queue_);
    buffer_ = std::move(other.buffer_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void PinnedHost::release() noexcept {
  if (data_ == nullptr) return;
  try {
    queue_.enqueueUnmapMemObject(buffer_, data_);
    queue_.finish();  // the unmap before the buffer goes
  } catch (const cl::Error&) {  // nothing to do about a failure while tearing down
  }
  data_ = nullptr;
  bytes_ = 0;
}

unsigned char* PinnedReadback::reserve(std::size_t bytes) {
  if (memory_.data() == nullptr || memory_.bytes() < bytes) {
    const std::size_t grown = std::max(bytes, memory_.bytes() + memory_.bytes() / 2);
    memory_ = PinnedHost();  // the old mapping first: both at once may not fit
    memory_ = PinnedHost(context_, queue_, grown);
  }
  return memory_.data();
}

}  // namespace bovw::detail
