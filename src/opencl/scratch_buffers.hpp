// Device buffers that one command queue's callers reuse from call to call, by name, and small
// constant tables kept while unchanged. Allocating and releasing device memory for every image
// costs driver work that does not overlap with other queues' kernels (on NVIDIA's driver a release
// can wait for the device), so per-image stages (SURF's) take their working buffers from here. A buffer grows (by half again, so that a run of
// slightly larger images does not reallocate each time) and is never shrunk; a request above
// kRetainLimit (or retainUpTo's bound) gets a buffer of its own that is not kept (a huge image's scale space should not stay
// allocated on every queue of a pool). Safe on an in-order
// queue: a buffer handed out again is only used by commands enqueued after the earlier ones.
// Not thread-safe: one per queue, used by the thread that owns the queue.
#pragma once

#include "opencl/cl.hpp"
#include "opencl/pinned_host.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bovw::detail {

class ScratchBuffers {
 public:
  static constexpr std::size_t kRetainLimit = std::size_t{64} << 20;

  explicit ScratchBuffers(cl::Context context) : context_(std::move(context)) {}
  ~ScratchBuffers();  // waits for the uploads still reading this object's copies
  ScratchBuffers(ScratchBuffers&&) = default;
  ScratchBuffers& operator=(ScratchBuffers&&) = default;

  // A read-write buffer of at least `bytes` (at least 1) bytes, named `name`; its content is
  // whatever the previous user left.
  cl::Buffer get(const std::string& name, std::size_t bytes);

  // Keeps buffers of up to `bytes` from now on (a queue that runs batches of many images needs
  // its big working buffers every time).
  void retainUpTo(std::size_t bytes) { retain_limit_ = std::max(retain_limit_, bytes); }

  // A buffer holding exactly `bytes` bytes of `data` (a small table the kernels read), named `name`:
  // made once and handed out again while the table is the same, so an unchanged table is neither
  // uploaded nor allocated again.
  cl::Buffer table(const std::string& name, const void* data, std::size_t bytes);

  // A buffer named `name` (as get's) holding `bytes` bytes of `data`, written on `queue` without
  // waiting: for a small table that changes from call to call (a batch's image offsets), where
  // table() would make a buffer per change and release the previous one, and a release on NVIDIA's
  // driver waits for the device to finish everything queued (the queue drains at every batch). The
  // bytes are copied into pinned memory (pinned()) and kept until their write has run: the name's
  // next upload waits for it (on an in-order queue long done by then).
  cl::Buffer upload(cl::CommandQueue& queue, const std::string& name, const void* data, std::size_t bytes);

  // At least `bytes` of page-locked host memory named `name`, for a small transfer to or from the
  // device; its content is whatever the previous user left, and it moves only when a larger size is
  // asked for. On NVIDIA's driver a transfer from or to pageable memory, however small, left the
  // device idle for 0.1-0.35 ms (a staged copy by the host between two commands): four such
  // transfers in each SURF batch were a tenth of the fused route's time.
  unsigned char* pinned(const std::string& name, std::size_t bytes);

 private:
  struct Entry {
    cl::Buffer buffer;
    std::size_t bytes = 0;
  };
  struct Table {
    cl::Buffer buffer;
    std::vector<unsigned char> content;
  };
  cl::Context context_;
  std::size_t retain_limit_ = kRetainLimit;
  std::map<std::string, Entry> buffers_;
  std::map<std::string, Table> tables_;
  cl::CommandQueue mapping_;  // maps the pinned memory (on a queue of its own: a map waits for its queue)
  std::map<std::string, PinnedHost> pinned_;
  std::map<std::string, cl::Event> uploads_;  // each upload's write, which reads its pinned memory
};

}  // namespace bovw::detail
