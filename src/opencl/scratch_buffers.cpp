#include "opencl/scratch_buffers.hpp"

#include <algorithm>

namespace bovw::detail {

ScratchBuffers::~ScratchBuffers() {
  for (auto& [name, written] : uploads_) {
    try {
      if (written() != nullptr) written.wait();
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
  cl::Event& written = uploads_[name];
  if (written() != nullptr) written.wait();  // its memory may be written now
  const cl::Buffer buffer = get(name, bytes);
  written = cl::Event();
  if (bytes == 0) return buffer;
  unsigned char* content = pinned(name, bytes);
  std::copy_n(static_cast<const unsigned char*>(data), bytes, content);
  queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, content, nullptr, &written);
  return buffer;
}

unsigned char* ScratchBuffers::pinned(const std::string& name, std::size_t bytes) {
  PinnedHost& memory = pinned_[name];
  if (memory.data() == nullptr || memory.bytes() < bytes) {
    if (mapping_() == nullptr) mapping_ = cl::CommandQueue(context_, context_.getInfo<CL_CONTEXT_DEVICES>().front());
    // At least a page, and by half again when it grows: a batch of a few more images asks for more.
    const std::size_t grown = std::max({bytes, memory.bytes() + memory.bytes() / 2, std::size_t{4096}});
    memory = PinnedHost();  // the old mapping first
    memory = PinnedHost(context_, mapping_, grown);
  }
  return memory.data();
}

}  // namespace bovw::detail
