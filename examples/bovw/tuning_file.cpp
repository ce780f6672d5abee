// Reading and writing the tuning file (see tuning_file.hpp).
#include "tuning_file.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <fstream>

namespace bovw::cli {

void writeTuningFile(const std::string& path, const nlohmann::json& tuning) {
  writeFileAtomically(path, [&](std::ostream& out) { out << tuning.dump(2) << "\n"; });
}

TileSizes readTuningFile(const std::string& path, const std::string& device_name) {
  std::ifstream in(path);
  if (!in) throw InvalidInput("tuning file '" + path + "': cannot be opened");
  nlohmann::json tuning;
  try {
    in >> tuning;
  } catch (const nlohmann::json::exception& e) {
    throw InvalidInput("tuning file '" + path + "': not JSON (" + e.what() + ")");
  }
  if (!tuning.is_object() || !tuning.contains("device") || !tuning["device"].is_string() ||
      !tuning.contains("tiles") || !tuning["tiles"].is_string())
    throw InvalidInput("tuning file '" + path + "': needs string fields \"device\" and \"tiles\"");
  const std::string device = tuning["device"];
  if (device != device_name)
    throw InvalidInput("tuning file '" + path + "' was made on '" + device + "', not on '" + device_name +
                       "': run `bovw bench --tune --save-tuning FILE` on this device");
  try {
    return parseTileSizes(tuning["tiles"].get<std::string>());
  } catch (const InvalidInput& e) {
    throw InvalidInput("tuning file '" + path + "': " + e.what());
  }
}

}  // namespace bovw::cli
