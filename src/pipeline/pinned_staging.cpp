// PinnedStaging: arenas of pinned chunks, bump-allocated, reset when their pipeline batch is released.
#include "pinned_staging.hpp"

#include "opencl/cl_errors.hpp"

#include <algorithm>

namespace bovw::detail {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{64} << 20;  // 64 MiB: ~160 images of 800 x 500
constexpr std::size_t kAlignment = 64;                        // a cache line per image start

thread_local const void* serving_staging = nullptr;
thread_local std::size_t serving_batch = 0;

}  // namespace

PinnedStaging::PinnedStaging(std::unique_ptr<DeviceContext> mapping, int depth)
    : device_(std::move(mapping)), arenas_(static_cast<std::size_t>(std::max(depth, 1))) {
  for (std::size_t i = 0; i < arenas_.size(); ++i) arenas_[i].serving = i;
}

PinnedStaging::~PinnedStaging() = default;

PinnedStaging::Serving::Serving(PinnedStaging& staging, std::size_t batch)
    : previous_staging_(serving_staging), previous_batch_(serving_batch) {
  serving_staging = &staging;
  serving_batch = batch;
}

PinnedStaging::Serving::~Serving() {
  serving_staging = previous_staging_;
  serving_batch = previous_batch_;
}

unsigned char* PinnedStaging::take(std::size_t batch, std::size_t bytes) const {
  bytes = std::max<std::size_t>((bytes + kAlignment - 1) / kAlignment * kAlignment, kAlignment);
  std::lock_guard<std::mutex> lock(mutex_);
  Arena& arena = arenas_[batch % arenas_.size()];
  if (arena.serving != batch) return nullptr;
  while (arena.chunk < arena.chunks.size() && arena.used + bytes > arena.chunks[arena.chunk].bytes()) {
    ++arena.chunk;  // the rest of a chunk too small for this image stays unused until the reset
    arena.used = 0;
  }
  if (arena.chunk == arena.chunks.size()) {
    try {
      arena.chunks.emplace_back(device_->context(), device_->queue(), std::max(kChunkBytes, bytes));
    } catch (const cl::Error&) {  // no more pinned memory: this image from the heap
      return nullptr;
    }
    arena.used = 0;
  }
  unsigned char* memory = arena.chunks[arena.chunk].data() + arena.used;
  arena.used += bytes;
  return memory;
}

void PinnedStaging::release(std::size_t batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  Arena& arena = arenas_[batch % arenas_.size()];
  if (arena.serving != batch) return;
  arena.serving = batch + arenas_.size();
  arena.chunk = 0;
  arena.used = 0;
}

cv::Mat PinnedStaging::stage(const cv::Mat& gray, std::size_t batch) {
  CV_Assert(gray.type() == CV_8UC1 && gray.dims == 2);
  if (holds(gray) || gray.empty()) return gray;
  cv::Mat staged;
  {
    Serving serving(*this, batch);
    staged.allocator = this;
    staged.create(gray.size(), CV_8UC1);
  }
  if (!holds(staged)) return gray;  // the arena is busy: the heap copy would gain nothing
  gray.copyTo(staged);
  return staged;
}

cv::UMatData* PinnedStaging::allocate(int dims, const int* sizes, int type, void* data, std::size_t* step,
                                      cv::AccessFlag flags, cv::UMatUsageFlags usage) const {
  cv::MatAllocator* heap = cv::Mat::getStdAllocator();
  if (serving_staging != this || data != nullptr || dims != 2 || type != CV_8UC1)
    return heap->allocate(dims, sizes, type, data, step, flags, usage);
  const std::size_t bytes = static_cast<std::size_t>(sizes[0]) * static_cast<std::size_t>(sizes[1]);
  unsigned char* memory = take(serving_batch, bytes);
  if (memory == nullptr) return heap->allocate(dims, sizes, type, data, step, flags, usage);
  step[0] = static_cast<std::size_t>(sizes[1]);  // continuous rows: the upload is one range
  step[1] = 1;
  auto* u = new cv::UMatData(this);
  u->data = u->origdata = memory;
  u->size = bytes;
  return u;
}

bool PinnedStaging::allocate(cv::UMatData* data, cv::AccessFlag flags, cv::UMatUsageFlags usage) const {
  return cv::Mat::getStdAllocator()->allocate(data, flags, usage);
}

void PinnedStaging::deallocate(cv::UMatData* data) const {
  if (data == nullptr) return;
  CV_Assert(data->urefcount == 0 && data->refcount == 0);
  delete data;  // the memory stays in its arena until the batch is released
}

}  // namespace bovw::detail
