// The OpenCL backend: the five kernel variants behind the Histogrammer interface.
#pragma once

#include <bovw/histogrammer.hpp>

#include <memory>

namespace bovw::detail {

std::unique_ptr<Histogrammer> makeOpenCLHistogrammer(const HistogrammerConfig& config);

}  // namespace bovw::detail
