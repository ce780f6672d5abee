// GPU (localRank mod G) per rank, and one info line on rank 0 saying who uses what.
#include "rank_device.hpp"

#include <bovw/device.hpp>

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <vector>

namespace bovw::cli {

namespace {

std::string spec(const DeviceInfo& device) {
  return std::to_string(device.platform_index) + ":" + std::to_string(device.device_index);
}

// The device the default choice would take, by name, for the log ("" when there is none).
std::string describe(const std::string& device) {
  try {
    const DeviceInfo info = selectDevice(device);
    return spec(info) + " " + info.name;
  } catch (const std::exception&) {
    return device.empty() ? "the default device" : device;
  }
}

}  // namespace

std::string deviceOfRank(Communicator& ranks, const std::string& chosen) {
  if (ranks.size() == 1) return chosen;
  std::string device = chosen;
  const char* environment = std::getenv("BOVW_DEVICE");
  if (chosen.empty() && !(environment && *environment)) {
    std::vector<DeviceInfo> gpus;
    for (const DeviceInfo& info : listDevices())
      if (info.type == "GPU") gpus.push_back(info);
    if (!gpus.empty()) device = spec(gpus[static_cast<std::size_t>(ranks.localRank()) % gpus.size()]);
  }
  const std::string mine = describe(device);
  const std::vector<Bytes> all = ranks.gather(Bytes(mine.begin(), mine.end()), 0);
  if (ranks.rank() == 0) {
    std::string line;
    for (std::size_t r = 0; r < all.size(); ++r)
      line += (r ? ", " : "") + std::string("rank ") + std::to_string(r) + ": " + std::string(all[r].begin(), all[r].end());
    spdlog::info("devices: {}", line);
  }
  return device;
}

}  // namespace bovw::cli
