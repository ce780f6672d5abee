#include "opencl/scratch_buffers.hpp"

#include <algorithm>

namespace bovw::detail {

cl::Buffer ScratchBuffers::get(const std::string& name, std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 1);
  if (bytes > kRetainLimit) {
    buffers_.erase(name);  // nor keep a smaller one that a later huge request would not use
    return cl::Buffer(context_, CL_MEM_READ_WRITE, bytes);
  }
  Entry& entry = buffers_[name];
  if (entry.bytes < bytes) {
    entry.bytes = std::min(kRetainLimit, std::max(bytes, entry.bytes + entry.bytes / 2));
    entry.buffer = cl::Buffer(context_, CL_MEM_READ_WRITE, entry.bytes);
  }
  return entry.buffer;
}

}  // namespace bovw::detail
