// The tuning table and the tuning file (see device_tuning.hpp and bovw/histogrammer.hpp).
#include "opencl/device_tuning.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/input_file.hpp>

#include <nlohmann/json.hpp>

#include <iterator>

namespace bovw::detail {

namespace {

// First match wins; keep the catch-all last. Tiles are {TM, TN, work-items along rows, along words,
// depth}. A new device kind gets a row here once `bovw-bench` (the grid) and `bovw-bench --tune` have
// been run on it; a single machine is better served by a tuning file.
constexpr DeviceTuning kTable[] = {
    // NVIDIA GPUs: the tiled kernel on FP16 tensor cores, certified exact: on an H100 1.27x the same
    // kernel on TF32 operands and 4.2x the FP32 tiled kernel at 1M x 1,024 x 64, 1.30x and 4.7x at
    // 1M x 4,096, 1.97x and 5.7x at D = 128 (one run: docs/PERFORMANCE.md); a vocabulary outside
    // FP16's range runs on TF32 operands. 4 warps of 2 x 16 rows, 4 x 8 words per step (3% faster
    // than 2 x 8 at D = 64, within 1% at D = 128), the words staged in local memory 64 at a time
    // through two buffers (on an H100 against reading them from global memory: 1.31x at K = 65,536,
    // 1.11x at D = 128, within 2% at K <= 8,192, TF32 operands). Where its PTX does not build (GPUs
    // before Ampere have no m16n8k16 mma), the histogrammer falls back to `tiled`.
    {"GPU", "NVIDIA", KernelVariant::TiledFP16, {2, 4, 4, 1, 8}, "bovw-bench --tiles sweeps on an NVIDIA H200 and an H100"},
    // The tiled kernel is the fastest variant on GPUs (docs/PERFORMANCE.md). On the H100, 64 x 128
    // tiles of 8 x 8 per work-item: 128 work-items of ~170 registers, two groups per SM, so that one
    // group's barrier overlaps the other's arithmetic.
    {"GPU", "", KernelVariant::Tiled, {8, 8, 8, 16, 16}, "bovw-bench and bench --tune on an NVIDIA H100"},
    // Other devices (PoCL's CPU device): Float4's explicit vector arithmetic beats the tiled kernel,
    // and 64 x 64 tiles suit a work-group that runs as a loop.
    {"", "", KernelVariant::Float4, {8, 8, 8, 8, 16}, "bovw-bench on PoCL's CPU device"},
};

// The tensor-core variants' shape when asked for by name on a device whose row runs another variant.
constexpr TileSizes kTensorCoreTiles{2, 2, 4, 1, 8};

bool matches(const DeviceTuning& row, const DeviceInfo& device) {
  return (*row.type == '\0' || device.type == row.type) &&
         (*row.vendor == '\0' || device.vendor.find(row.vendor) != std::string::npos);
}

}  // namespace

// Checks the device (when `device_name` is given) before the tile sizes: a file from another
// device is refused as such, whatever else is wrong with it.
TuningRecord readTuningFile(const std::string& path, const std::string* device_name) {
  const std::string text = readInputFile(path);  // a FIFO or a device is refused, not waited on
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidInput(path, std::string("tuning file is not JSON (") + e.what() + ")");
  }
  if (!json.is_object() || !json.contains("device") || !json["device"].is_string() || !json.contains("tiles") ||
      !json["tiles"].is_string())
    throw InvalidInput(path, "tuning file needs string fields \"device\" and \"tiles\"");
  TuningRecord record;
  record.device = json["device"].get<std::string>();
  if (device_name != nullptr && record.device != *device_name)
    throw InvalidInput(path, "tuning file made on '" + record.device + "', not on '" + *device_name +
                                 "': run `bovw-bench --tune --save-tuning FILE` on this device");
  record.tiles = namingFile(path, [&] { return parseTileSizes(json["tiles"].get<std::string>()); });
  // What it was measured on: informative only, so absent or odd fields are not an error.
  auto number = [&](const char* name) {
    return json.contains(name) && json[name].is_number_integer() ? json[name].get<std::int64_t>() : 0;
  };
  record.n = number("n");
  record.k = static_cast<int>(number("k"));
  record.d = static_cast<int>(number("d"));
  if (json.contains("date") && json["date"].is_string()) record.date = json["date"].get<std::string>();
  return record;
}

const DeviceTuning& deviceTuning(const DeviceInfo& device) {
  for (const DeviceTuning& row : kTable)
    if (matches(row, device)) return row;
  return *std::prev(std::end(kTable));
}

HistogrammerConfig tunedConfig(const HistogrammerConfig& asked, const DeviceInfo& device) {
  const DeviceTuning& row = deviceTuning(device);
  HistogrammerConfig config = asked;
  if (config.variant == KernelVariant::Auto) config.variant = row.variant;
  // Tiles from the first row for this device that runs the variant asked for: on an NVIDIA GPU,
  // `tiled` by name gets the GPU row's FP32 tiles, not the TF32 row's (tiled-tf32's tiles mean warps
  // and tensor-core tiles: bovw/histogrammer.hpp). A variant no row runs here gets the first row's
  // (the chapter's variants ignore them), or tiled-tf32's own shape.
  const DeviceTuning* own = nullptr;
  for (const DeviceTuning& candidate : kTable)
    if (matches(candidate, device) && candidate.variant == config.variant) {
      own = &candidate;
      break;
    }
  const bool tensor_cores = config.variant == KernelVariant::TiledTF32 || config.variant == KernelVariant::TiledFP16;
  const TileSizes& defaults = own != nullptr ? own->tiles : tensor_cores ? kTensorCoreTiles : row.tiles;
  const TileSizes fallback =
      asked.tuning_file.empty() ? defaults : readTuningFile(asked.tuning_file, &device.name).tiles;
  auto pick = [](int value, int otherwise) { return value > 0 ? value : otherwise; };
  const TileSizes& t = asked.tiles;
  config.tiles = {pick(t.rows_per_item, fallback.rows_per_item), pick(t.words_per_item, fallback.words_per_item),
                  pick(t.group_rows, fallback.group_rows), pick(t.group_words, fallback.group_words),
                  pick(t.depth, fallback.depth)};
  return config;
}

}  // namespace bovw::detail

namespace bovw {

void saveTuningFile(const std::string& path, const TuningRecord& record) {
  // nlohmann's objects keep their keys sorted: the file reads d, date, device, k, n, tiles.
  const nlohmann::json json = {{"device", record.device}, {"tiles", toString(record.tiles)},
                               {"n", record.n},           {"k", record.k},
                               {"d", record.d},           {"date", record.date}};
  writeFileAtomically(path, [&](std::ostream& out) { out << json.dump(2) << "\n"; });
}

TuningRecord loadTuningFile(const std::string& path) {
  return detail::readTuningFile(path, nullptr);
}

}  // namespace bovw
