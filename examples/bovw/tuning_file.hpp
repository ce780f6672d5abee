// The tuning file: the tile sizes `bovw bench --tune --save-tuning FILE` found fastest on a device,
// read back by `--tuning FILE` on the histogram commands. JSON:
//   {"device": "NVIDIA H100 80GB HBM3", "tiles": "8,8,16,16,16", "n": ..., "k": ..., "d": ..., "date": ...}
#pragma once

#include <bovw/histogrammer.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace bovw::cli {

// Writes `tuning` (a JSON object with at least "device" and "tiles") atomically.
void writeTuningFile(const std::string& path, const nlohmann::json& tuning);

// The tile sizes saved for `device_name`; throws InvalidInput naming the file when it is malformed
// or was made on another device (tile sizes do not carry over between devices).
TileSizes readTuningFile(const std::string& path, const std::string& device_name);

}  // namespace bovw::cli
