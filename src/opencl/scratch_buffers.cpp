#include "opencl/scratch_buffers.hpp"

#include <algorithm>

namespace bovw::detail {

ScratchBuffers::~ScratchBuffers() {
  for (auto& [name, entry] : uploads_) {
    try {
      if (entry.written() != nullptr) entry.written.wait();
    } catch (const cl::Error&) {  // a failed write reads nothing any more
    }
  }
}

cl::Buffer ScratchBuffers::get(const std::string& name, std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 1);
  if (bytes > retain_limit_) {
    buffers_.erase(name);  // nor keep a smaller one that a later huge request would not use
    return cl::Buffer(context_, CL_MEM_READ_WRITE, bytes);
  }
  Entry& entry = buffers_[name];
  if (entry.bytes < bytes) {
    entry.bytes = std::min(retain_limit_, std::max(bytes, entry.bytes + entry.bytes / 2));
    entry.buffer = cl::Buffer(context_, CL_MEM_READ_WRITE, entry.bytes);
  }
  return entry.buffer;
}

cl::Buffer ScratchBuffers::table(const std::string& name, const void* data, std::size_t bytes) {
  const auto* begin = static_cast<const unsigned char*>(data);
  Table& entry = tables_[name];
  if (entry.buffer() == nullptr || !std::equal(begin, begin + bytes, entry.content.begin(), entry.content.end())) {
    entry.content.assign(begin, begin + bytes);
    entry.buffer = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<std::size_t>(bytes, 1),
                              entry.content.data());
  }
  return entry.buffer;
}

cl::Buffer ScratchBuffers::upload(cl::CommandQueue& queue, const std::string& name, const void* data,
                                  std::size_t bytes) {
  Upload& entry = uploads_[name];
  if (entry.written() != nullptr) entry.written.wait();  // its content may go now
  const auto* begin = static_cast<const unsigned char*>(data);
  entry.content.assign(begin, begin + bytes);
  const cl::Buffer buffer = get(name, bytes);
  entry.written = cl::Event();
  if (bytes > 0)
    queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, entry.content.data(), nullptr, &entry.written);
  return buffer;
}

}  // namespace bovw::detail
