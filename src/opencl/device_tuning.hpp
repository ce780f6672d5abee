// Which kernel variant and tile sizes a device gets: the one place that knows (CLBlast's database/
// of tuned parameters, in small). A table of device kinds, first match wins, read by `--variant auto`
// and by the tiled kernel's defaults; a tuning file from `bovw-bench --tune --save-tuning` is an
// override entry in front of it for the one device it was measured on.
#pragma once

#include <bovw/device.hpp>
#include <bovw/histogrammer.hpp>

namespace bovw::detail {

// One row of the table: the devices it applies to (every non-empty field must match) and what they get.
struct DeviceTuning {
  const char* type;       // DeviceInfo::type ("GPU", "CPU", ...); "" matches any
  const char* vendor;     // a substring of DeviceInfo::vendor (case-sensitive); "" matches any
  KernelVariant variant;  // what KernelVariant::Auto runs
  TileSizes tiles;        // the tiled kernel's defaults (every field > 0)
  const char* measured;   // where the numbers come from
};

// The first row of the table that matches `device` (the last row matches every device).
const DeviceTuning& deviceTuning(const DeviceInfo& device);

// `asked` made concrete for `device`: Auto replaced by the table's variant, and every tile size
// that is 0 taken from the tuning file (when config.tuning_file is set: checked to be this device's)
// or else from the table. Throws InvalidInput naming the tuning file when it is unreadable,
// malformed or made on another device.
HistogrammerConfig tunedConfig(const HistogrammerConfig& asked, const DeviceInfo& device);

// The tuning file at `path`, refused (InvalidInput naming it) unless made on `*device_name` when
// that is given; loadTuningFile is this without the device.
TuningRecord readTuningFile(const std::string& path, const std::string* device_name);

}  // namespace bovw::detail
