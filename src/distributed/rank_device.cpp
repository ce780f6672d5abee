// The devices of a host dealt out to its ranks: local rank mod the devices the spec matches.
#include <bovw/device.hpp>

#include "opencl/device_context.hpp"

namespace bovw {

RankDevice deviceOfLocalRank(const std::vector<DeviceInfo>& devices, const std::string& spec, int local_rank,
                             int local_size) {
  RankDevice chosen;
  const std::vector<int> matching = detail::matchingDevices(devices, spec);
  chosen.matching = static_cast<int>(matching.size());
  if (matching.empty()) return chosen;
  const std::size_t slot = static_cast<std::size_t>(local_rank > 0 ? local_rank : 0) % matching.size();
  chosen.index = matching[slot];
  // Ranks slot, slot + m, slot + 2m, ... of the host take this device: another one exists when
  // slot + m < local_size.
  const bool cpu_fallback = spec.empty() && devices[static_cast<std::size_t>(chosen.index)].type != "GPU";
  chosen.shared = static_cast<std::size_t>(local_size > 0 ? local_size : 0) > slot + matching.size() && !cpu_fallback;
  return chosen;
}

}  // namespace bovw
