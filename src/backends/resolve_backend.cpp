// Backend::Auto: which backend a machine's devices call for, decided here and nowhere else.
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include "opencl/device_context.hpp"

namespace bovw {

Backend resolveBackend(const HistogrammerConfig& config, const std::vector<DeviceInfo>& devices) {
  if (config.backend != Backend::Auto) return config.backend;
  const int picked = detail::pickDevice(devices, config.device);
  if (picked >= 0 && devices[static_cast<std::size_t>(picked)].type == "GPU") return Backend::OpenCL;
  // On the CPU the tiled exact search beats the golden scan at every measured size, on 2 cores and
  // on 16 (docs/PERFORMANCE.md, "CPU paths"), with the same answers; PoCL's CPU device is far slower.
  return Backend::OpenMPTiled;
}

Backend resolveBackend(const HistogrammerConfig& config) {
  if (config.backend != Backend::Auto) return config.backend;
  std::vector<DeviceInfo> devices;
  try {
    devices = listDevices();
  } catch (const Error&) {
    // An OpenCL installation that fails to list its devices has no GPU to offer: the CPU path.
  }
  return resolveBackend(config, devices);
}

HistogrammerConfig withResolvedBackend(HistogrammerConfig config) {
  config.backend = resolveBackend(config);
  return config;
}

}  // namespace bovw
