// Each rank's device from the spec and its local rank (bovw::deviceOfLocalRank), and rank 0's
// info line saying who uses what, with one warning when ranks of a host share a device.
#include "rank_device.hpp"

#include <bovw/device.hpp>

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <vector>

namespace bovw::cli {

namespace {

std::string spec(const DeviceInfo& device) {
  return std::to_string(device.platform_index) + ":" + std::to_string(device.device_index);
}

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "?";
  return name;
}

// What rank 0 learns of each rank: the fields of one line, tab-separated.
struct Placement {
  std::string host, device, description, shared, matching;
};

Bytes encode(const Placement& p) {
  const std::string text = p.host + '\t' + p.device + '\t' + p.description + '\t' + p.shared + '\t' + p.matching;
  return Bytes(text.begin(), text.end());
}

Placement decode(const Bytes& bytes) {
  std::vector<std::string> fields(1);
  for (std::uint8_t c : bytes) {
    if (c == '\t') fields.emplace_back();
    else fields.back() += static_cast<char>(c);
  }
  fields.resize(5);
  return {fields[0], fields[1], fields[2], fields[3], fields[4]};
}

// "ranks 0, 2 share 0:0 (name) on host h (spec 'cpu' matches 2 devices there for 3 ranks)", for each
// device of a host that several flagged ranks use; "" if none does.
std::string sharedDevices(const std::vector<Placement>& all, const std::string& spec_words) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> users;
  std::map<std::string, std::size_t> ranks_on_host;
  for (std::size_t r = 0; r < all.size(); ++r) {
    ++ranks_on_host[all[r].host];
    if (all[r].shared == "1") users[{all[r].host, all[r].device}].push_back(r);
  }
  std::string text;
  for (const auto& [where, ranks] : users) {
    if (ranks.size() < 2) continue;
    std::string list;
    for (std::size_t r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    const Placement& first = all[ranks.front()];
    text += (text.empty() ? "" : "; ") + std::string("ranks ") + list + " share " + first.description +
            " on host " + where.first + " (" + spec_words + " matches " + first.matching + " device" +
            (first.matching == "1" ? "" : "s") + " there for " + std::to_string(ranks_on_host[where.first]) +
            " ranks)";
  }
  return text;
}

}  // namespace

std::string deviceOfRank(Communicator& ranks, const std::string& chosen) {
  if (ranks.size() == 1) return chosen;
  const char* environment = std::getenv("BOVW_DEVICE");
  const std::string effective = !chosen.empty() ? chosen : environment ? environment : "";
  std::vector<DeviceInfo> devices;
  try {
    devices = listDevices();
  } catch (const std::exception&) {
    // No usable OpenCL: the spec stays as it is, and whatever needs a device says why.
  }
  const RankDevice mine = deviceOfLocalRank(devices, effective, ranks.localRank(), ranks.localSize());
  Placement placement{hostName(), "", effective.empty() ? "the default device" : effective, "0",
                      std::to_string(mine.matching)};
  std::string device = chosen;
  if (mine.index >= 0) {
    const DeviceInfo& info = devices[static_cast<std::size_t>(mine.index)];
    device = spec(info);
    placement.device = device;
    placement.description = device + " " + info.name;
    placement.shared = mine.shared ? "1" : "0";
  }
  const std::vector<Bytes> gathered = ranks.gather(encode(placement), 0);
  if (ranks.rank() == 0) {
    std::vector<Placement> all;
    std::string line;
    for (std::size_t r = 0; r < gathered.size(); ++r) {
      all.push_back(decode(gathered[r]));
      line += (r ? ", " : "") + std::string("rank ") + std::to_string(r) + ": " + all.back().description;
    }
    spdlog::info("devices: {}", line);
    const std::string spec_words = !chosen.empty()      ? "--device '" + chosen + "'"
                                   : !effective.empty() ? "$BOVW_DEVICE '" + effective + "'"
                                                        : "the default (every GPU)";
    const std::string shared = sharedDevices(all, spec_words);
    if (!shared.empty())
      spdlog::warn("devices: {}; a spec that matches several devices (a vendor's name, 'gpu') spreads the ranks "
                   "over them", shared);
  }
  return device;
}

}  // namespace bovw::cli
