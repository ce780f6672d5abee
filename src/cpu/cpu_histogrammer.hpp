// The CPU backends (Serial and OpenMP): the golden reference for every OpenCL variant.
#pragma once

#include <bovw/histogrammer.hpp>

#include <memory>

namespace bovw::detail {

// threads == 1: the Serial backend; threads == 0: all cores.
std::unique_ptr<Histogrammer> makeCpuHistogrammer(int threads);

}  // namespace bovw::detail
