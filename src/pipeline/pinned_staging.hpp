// Page-locked staging for the decoded images of the device routes (device_histograms.cpp,
// extract_in_batches.cpp): the decoders write each 8-bit gray image straight into pinned memory of
// the device's context, from which its upload runs as a DMA (no pageable copy on the way, and none
// for the driver to make). A ring of arenas, one per pipeline batch in flight, reused batch after
// batch: the memory is allocated while the first batches fill it and never again.
//
// The decoder writes into the arena through a cv::MatAllocator: cv::imdecode allocates its output
// with the output Mat's allocator once the header gives the size and type, so a gray 8-bit decode
// lands in pinned memory with no copy at all. What the allocator does not take (16-bit images before
// their conversion, buffers OpenCV allocates internally, a batch whose arena is still in use) comes
// from the ordinary heap, and prepare's 8-bit gray result is then copied into the arena once.
#pragma once

#include "opencl/device_context.hpp"
#include "opencl/pinned_host.hpp"

#include <opencv2/core.hpp>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace bovw::detail {

class PinnedStaging final : public cv::MatAllocator {
 public:
  // Arenas on the context of `mapping`, a queue of their own (so that mapping a new chunk never waits
  // for the device's work). `depth` pipeline batches may hold arenas at once.
  PinnedStaging(std::unique_ptr<DeviceContext> mapping, int depth);
  ~PinnedStaging() override;

  // The arena of pipeline batch `batch` serves this thread's allocations while the object lives
  // (the worker's decode and conversion of one image).
  class Serving {
   public:
    Serving(PinnedStaging& staging, std::size_t batch);
    ~Serving();
    Serving(const Serving&) = delete;
    Serving& operator=(const Serving&) = delete;

   private:
    const void* previous_staging_;
    std::size_t previous_batch_;
  };

  // True when `m`'s pixels lie in this staging's memory.
  bool holds(const cv::Mat& m) const { return m.u != nullptr && m.u->currAllocator == this; }

  // `gray` (CV_8UC1) in batch `batch`'s arena: itself if it is there already, else a copy, or `gray`
  // unchanged when the arena cannot take it now (it is still in use by an earlier batch).
  cv::Mat stage(const cv::Mat& gray, std::size_t batch);

  // Pipeline batch `batch` is done with its arena: every upload from it has run and nothing will read
  // it again. The arena serves batch + depth next. Batches are released in order.
  void release(std::size_t batch);

  // cv::MatAllocator: the arena memory for 2-D CV_8UC1 Mats of this thread's serving batch, else the
  // heap's.
  cv::UMatData* allocate(int dims, const int* sizes, int type, void* data, std::size_t* step,
                         cv::AccessFlag flags, cv::UMatUsageFlags usage) const override;
  bool allocate(cv::UMatData* data, cv::AccessFlag flags, cv::UMatUsageFlags usage) const override;
  void deallocate(cv::UMatData* data) const override;

 private:
  struct Arena {
    std::size_t serving = 0;  // the pipeline batch it belongs to
    std::vector<PinnedHost> chunks;
    std::size_t chunk = 0, used = 0;  // the next free byte: chunks[chunk] at `used`
  };
  // `bytes` of batch `batch`'s arena, or null when that arena still serves an earlier batch.
  unsigned char* take(std::size_t batch, std::size_t bytes) const;

  std::unique_ptr<DeviceContext> device_;  // the mapping queue
  mutable std::mutex mutex_;
  mutable std::vector<Arena> arenas_;
};

}  // namespace bovw::detail
