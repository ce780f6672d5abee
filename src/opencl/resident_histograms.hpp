// The device seam of the histogrammers: what one whose search runs on an OpenCL device offers code
// that holds rows on that device already (k-means' resident sample, SURF's descriptors in the fused
// images-to-histograms route), so that they are searched where they are, with no upload. Asked for
// with residentHistogramsOf (a private virtual of Histogrammer, null on the host backends), not with
// casts to a backend's class: a new device backend implements this and the routes follow.
#pragma once

#include "opencl/cl.hpp"

#include <bovw/histogrammer.hpp>

#include <cstdint>
#include <vector>

namespace bovw::detail {

class DeviceContext;

class ResidentHistograms {
 public:
  // The histogrammer's own device context (device, context, queue): work that hands it rows on the
  // device runs on this queue, in order with its searches.
  virtual DeviceContext& device() = 0;

  // Histograms of rows already on the device, enqueued on device()'s queue after what is there:
  // image i's rows are [offsets[i], offsets[i + 1]) of the n rows of width d in `rows` (offsets:
  // images + 1 ints on the device, offsets[images] = n). Writes every row's word to best_word (n ints)
  // and the counts to histograms (images x K ints, zeroed here). No validation (the caller's rows are
  // finite) and no wait: the buffers must live until the queue has finished. Returns the search's
  // kernel events (for its device time).
  virtual std::vector<cl::Event> enqueueHistograms(const cl::Buffer& rows, int n, int d, const cl::Buffer& offsets,
                                                   int images, const Vocabulary& words, const cl::Buffer& best_word,
                                                   const cl::Buffer& histograms) = 0;

  // The nearest word of the n rows of width d in `rows` (a buffer of device()'s context) into `out`,
  // waiting for it; the words must be finite.
  virtual void assign(const cl::Buffer& rows, int n, int d, const Vocabulary& words, std::int32_t* out) = 0;

 protected:
  ~ResidentHistograms() = default;  // not owned through this interface
};

}  // namespace bovw::detail
