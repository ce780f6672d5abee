// The OpenCL backend: the kernel variants behind the Histogrammer interface. Rows already on its
// device reach its search through the device seam (resident_histograms.hpp).
#pragma once

#include <bovw/histogrammer.hpp>

#include <memory>

namespace bovw::detail {

// Variant and tile sizes as bovw's tuning table (device_tuning.hpp) and config.tuning_file say.
std::unique_ptr<Histogrammer> makeOpenCLHistogrammer(const HistogrammerConfig& config);

}  // namespace bovw::detail
