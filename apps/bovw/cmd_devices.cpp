// `bovw devices`: the OpenCL platforms and devices, with the limits the kernels depend on, and what
// the default `--backend auto` runs on this machine.
#include "commands.hpp"

#include <bovw/device.hpp>
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <cstdlib>

#include <iostream>

namespace bovw::cli {

namespace {
std::string kib(std::uint64_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }
std::string mib(std::uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

// One line: the backend --backend auto resolves to here (bovw::resolveBackend), and why.
void printAutoChoice(const std::vector<DeviceInfo>& devices) {
  const HistogrammerConfig config;  // backend auto, device "" ($BOVW_DEVICE, else the first GPU)
  const Backend chosen = resolveBackend(config, devices);
  const char* env = std::getenv("BOVW_DEVICE");
  std::cout << "--backend auto: " << toString(chosen);
  if (chosen == Backend::OpenCL) {
    const DeviceInfo device = selectDevice("");
    std::cout << " on [" << device.platform_index << ":" << device.device_index << "] " << device.name
              << " (a GPU; SURF runs there too, fused with the histograms)\n";
  } else if (env && *env) {
    bool matched = true;
    try {
      selectDevice("");
    } catch (const Error&) {
      matched = false;
    }
    std::cout << " on the CPU ($BOVW_DEVICE '" << env << "' " << (matched ? "is not a GPU" : "matches no device")
              << ")\n";
  } else {
    std::cout << " on the CPU (no OpenCL GPU)\n";
  }
}

}  // namespace

CLI::App* addDevicesCommand(CLI::App& app) {
  return app.add_subcommand("devices", "List OpenCL platforms and devices (use P:D with --device)");
}

int runDevicesCommand() {
  const auto devices = listDevices();
  if (devices.empty()) {
    std::cout << "No OpenCL platform found (on Debian: apt install pocl-opencl-icd).\n";
    printAutoChoice(devices);
    return 0;
  }
  std::string platform;
  for (const auto& d : devices) {
    if (d.platform != platform) {
      platform = d.platform;
      std::cout << "Platform " << d.platform_index << ": " << d.platform << "\n";
    }
    std::cout << "  [" << d.platform_index << ":" << d.device_index << "] " << d.name << " (" << d.type
              << ", " << d.vendor << ")\n"
              << "      " << d.version << ", " << d.c_version << ", driver " << d.driver_version << "\n"
              << "      compute units " << d.compute_units << ", global memory " << mib(d.global_memory)
              << ", max allocation " << mib(d.max_allocation) << "\n"
              << "      local memory " << kib(d.local_memory) << ", constant memory "
              << kib(d.constant_memory) << ", max work-group " << d.max_work_group_size << "\n";
  }
  printAutoChoice(devices);
  return 0;
}

}  // namespace bovw::cli
