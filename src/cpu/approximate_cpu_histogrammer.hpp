// The OpenMPApproximate backend: nearest words from OpenCV FLANN's hierarchical k-means tree over the
// vocabulary's words (a vocabulary tree), for large K on the CPU. Approximate: see Backend.
#pragma once

#include <bovw/histogrammer.hpp>

#include <memory>

namespace bovw::detail {

// threads == 0: all cores; checks: HistogrammerConfig::approximate_checks (>= 1).
std::unique_ptr<Histogrammer> makeApproximateCpuHistogrammer(int threads, int checks);

}  // namespace bovw::detail
