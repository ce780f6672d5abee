// The OpenCL backend: the kernel variants behind the Histogrammer interface.
#pragma once

#include "opencl/cl.hpp"

#include <bovw/histogrammer.hpp>

#include <cstdint>
#include <memory>

namespace bovw::detail {

std::unique_ptr<Histogrammer> makeOpenCLHistogrammer(const HistogrammerConfig& config);

// k-means keeps its sample on the device for the whole training: the nearest word of the n rows of
// width d already in `rows` (a buffer of the histogrammer's device), written to `out`, with no
// upload. `histogrammer` must come from makeOpenCLHistogrammer; the words must be finite.
void assignResident(Histogrammer& histogrammer, const cl::Buffer& rows, int n, int d, const Vocabulary& words,
                    std::int32_t* out);

}  // namespace bovw::detail
