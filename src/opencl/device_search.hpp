// The device half of a histogram call: given descriptors already on the device, find every row's
// nearest word and count it in its image's histogram. OpenCLHistogrammer owns the transfers and the
// shared buffers; a DeviceSearch owns the kernels of one family and whatever layout of the words
// they need. Three families: the chapter's five variants (chapter_search.cpp), bovw's tiled kernel
// (tiled_search.cpp) and its TF32 tensor-core form (tensor_core_search.cpp).
#pragma once

#include "opencl/cl.hpp"
#include "opencl/device_context.hpp"

#include <bovw/histogrammer.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bovw::detail {

// One batch of rows on the device. Rows [0, n) of `descriptors` are rows row_base.. of the image
// offsets; the search writes best_word[0, n) and increments `histograms` (images x words, zeroed by
// the caller).
struct DeviceBatch {
  cl::Buffer descriptors;
  int n = 0;
  int d = 0;
  int row_base = 0;
  cl::Buffer offsets;
  int images = 0;
  cl::Buffer best_word;
  cl::Buffer histograms;
};

// Events of the enqueued work, for StageTimes.
struct SearchEvents {
  std::vector<cl::Event> transpose;
  std::vector<cl::Event> kernels;
  std::vector<cl::Event> recheck;  // also counted in the kernel time
};

class DeviceSearch {
 public:
  virtual ~DeviceSearch() = default;

  // Compiles (or fetches from the cache) the kernels for width d; throws CapacityError when the
  // device cannot run them.
  virtual void prepare(int d) = 0;
  // Makes `vocabulary` resident on the device (a no-op when it already is).
  virtual void setVocabulary(const Vocabulary& vocabulary) = 0;
  // Device memory, in bytes, that the search needs beyond the shared buffers for n rows of width d
  // and the given vocabulary (checked against the limit before anything is allocated).
  virtual std::uint64_t extraBytes(int n, int d, const Vocabulary& vocabulary) const = 0;
  // Enqueues the search of one batch on `queue` (in order after what is already there).
  virtual void enqueue(cl::CommandQueue& queue, const DeviceBatch& batch, SearchEvents& events) = 0;
  // "constant (work-group 64)", "tiled 128x128 (8x8 per item, BK 16)": for descriptions.
  virtual std::string describe() const = 0;
  // Rows re-checked by direct sums (Tiled) in the batches enqueued since startCall(), valid once
  // the queue has finished them.
  virtual void startCall() {}
  virtual std::int64_t rechecked() const { return 0; }
  virtual std::int64_t fullyRechecked() const { return 0; }  // of rechecked(): every word summed
};

// A buffer that only grows, so repeated calls of similar size allocate nothing.
class GrowingBuffer {
 public:
  cl::Buffer& ensure(const cl::Context& context, std::size_t bytes, cl_mem_flags flags) {
    if (bytes_ < bytes || bytes_ == 0) {
      buffer_ = cl::Buffer(context, flags, std::max<std::size_t>(bytes, 4));
      bytes_ = std::max<std::size_t>(bytes, 4);
    }
    return buffer_;
  }

 private:
  cl::Buffer buffer_;
  std::size_t bytes_ = 0;
};

inline std::size_t roundUp(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Both compile through the device's process-wide program cache.
std::unique_ptr<DeviceSearch> makeChapterSearch(DeviceContext& device, const HistogrammerConfig& config);
std::unique_ptr<DeviceSearch> makeTiledSearch(DeviceContext& device, const HistogrammerConfig& config);
std::unique_ptr<DeviceSearch> makeTensorCoreSearch(DeviceContext& device, const HistogrammerConfig& config);

}  // namespace bovw::detail
