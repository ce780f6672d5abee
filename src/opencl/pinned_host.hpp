// Page-locked host memory for transfers: a CL_MEM_ALLOC_HOST_PTR buffer of a device's context,
// mapped once for its lifetime (the portable recipe for pinned memory: NVIDIA's OpenCL pins such
// buffers, and a read or write whose host pointer lies in the mapping runs as a DMA without the
// driver's own staging copy; PoCL simply hands out host memory). Uploads from it and read-backs into
// it are what the SURF batches and the fused route use instead of pageable vectors.
#pragma once

#include "opencl/cl.hpp"

#include <cstddef>

namespace bovw::detail {

class PinnedHost {
 public:
  PinnedHost() = default;
  // `bytes` (at least 1) of pinned memory on `context`; `queue` (of that context) maps it now and
  // unmaps it in the destructor, so it must outlive this object. Throws cl::Error.
  PinnedHost(const cl::Context& context, cl::CommandQueue queue, std::size_t bytes);
  ~PinnedHost();
  PinnedHost(PinnedHost&& other) noexcept;
  PinnedHost& operator=(PinnedHost&& other) noexcept;
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;

  unsigned char* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() noexcept;

  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// One pinned buffer that grows (by half again, at least) when a larger one is asked for, for the
// read-backs of one queue's batches: the memory is made once, not per batch. Not thread-safe: one
// per queue, used by that queue's caller.
class PinnedReadback {
 public:
  PinnedReadback(const cl::Context& context, cl::CommandQueue queue) : context_(context), queue_(std::move(queue)) {}

  // At least `bytes` of pinned memory; what an earlier call returned is invalid afterwards (the
  // caller's reads into it must be done: this queue is in order, and growing maps on it).
  unsigned char* reserve(std::size_t bytes);

 private:
  cl::Context context_;
  cl::CommandQueue queue_;
  PinnedHost memory_;
};

}  // namespace bovw::detail
