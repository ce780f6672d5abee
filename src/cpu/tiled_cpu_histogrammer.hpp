// The OpenMPTiled backend: ||c||^2 - 2 x.c blocked like a GEMM on the CPU, with an exact re-check of
// close candidates by the golden scan, so its answers equal the OpenMP backend's bit for bit.
#pragma once

#include <bovw/histogrammer.hpp>

#include <memory>

namespace bovw::detail {

// threads == 0: all cores.
std::unique_ptr<Histogrammer> makeTiledCpuHistogrammer(int threads);

}  // namespace bovw::detail
