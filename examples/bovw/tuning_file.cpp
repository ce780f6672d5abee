// Reading and writing the tuning file (see tuning_file.hpp).
#include "tuning_file.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/input_file.hpp>

namespace bovw::cli {

void writeTuningFile(const std::string& path, const nlohmann::json& tuning) {
  writeFileAtomically(path, [&](std::ostream& out) { out << tuning.dump(2) << "\n"; });
}

TileSizes readTuningFile(const std::string& path, const std::string& device_name) {
  const std::string text = readInputFile(path);
  nlohmann::json tuning;
  try {
    tuning = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidInput(path, std::string("tuning file is not JSON (") + e.what() + ")");
  }
  if (!tuning.is_object() || !tuning.contains("device") || !tuning["device"].is_string() ||
      !tuning.contains("tiles") || !tuning["tiles"].is_string())
    throw InvalidInput(path, "tuning file needs string fields \"device\" and \"tiles\"");
  const std::string device = tuning["device"];
  if (device != device_name)
    throw InvalidInput(path, "tuning file made on '" + device + "', not on '" + device_name +
                                 "': run `bovw bench --tune --save-tuning FILE` on this device");
  return namingFile(path, [&] { return parseTileSizes(tuning["tiles"].get<std::string>()); });
}

}  // namespace bovw::cli
