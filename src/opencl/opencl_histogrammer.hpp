// The OpenCL backend: the kernel variants behind the Histogrammer interface.
#pragma once

#include "opencl/cl.hpp"

#include <bovw/histogrammer.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace bovw::detail {

class DeviceContext;

std::unique_ptr<Histogrammer> makeOpenCLHistogrammer(const HistogrammerConfig& config);

// The histogrammer's own device context (device, context, queue) when it is an OpenCL histogrammer,
// else null: work that hands it rows on the device (the fused SURF path) runs on this queue, in order
// with its searches.
DeviceContext* deviceOf(Histogrammer& histogrammer);

// Histograms of rows already on the device, enqueued on deviceOf(histogrammer)'s queue after what is
// there: image i's rows are [offsets[i], offsets[i + 1]) of the n rows of width d in `rows` (offsets:
// images + 1 ints on the device, offsets[images] = n). Writes every row's word to best_word (n ints)
// and the counts to histograms (images x K ints, zeroed here). No validation (the caller's rows are
// finite) and no wait: the buffers must live until the queue has finished. Returns the search's
// kernel events (for its device time).
std::vector<cl::Event> enqueueResidentHistograms(Histogrammer& histogrammer, const cl::Buffer& rows, int n, int d,
                                                 const cl::Buffer& offsets, int images, const Vocabulary& words,
                                                 const cl::Buffer& best_word, const cl::Buffer& histograms);

// k-means keeps its sample on the device for the whole training: the nearest word of the n rows of
// width d already in `rows` (a buffer of the histogrammer's device), written to `out`, with no
// upload. `histogrammer` must come from makeOpenCLHistogrammer; the words must be finite.
void assignResident(Histogrammer& histogrammer, const cl::Buffer& rows, int n, int d, const Vocabulary& words,
                    std::int32_t* out);

}  // namespace bovw::detail
