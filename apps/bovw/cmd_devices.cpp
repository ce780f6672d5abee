// `bovw devices`: the OpenCL platforms and devices, with the limits the kernels depend on.
#include "commands.hpp"

#include <bovw/device.hpp>

#include <iostream>

namespace bovw::cli {

namespace {
std::string kib(std::uint64_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }
std::string mib(std::uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }
}  // namespace

CLI::App* addDevicesCommand(CLI::App& app) {
  return app.add_subcommand("devices", "List OpenCL platforms and devices (use P:D with --device)");
}

int runDevicesCommand() {
  const auto devices = listDevices();
  if (devices.empty()) {
    std::cout << "No OpenCL platform found (on Debian: apt install pocl-opencl-icd).\n";
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
  return 0;
}

}  // namespace bovw::cli
