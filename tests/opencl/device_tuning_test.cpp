// The tuning table (src/opencl/device_tuning.cpp), the tuning file it takes as an override entry, and
// the histogrammers' device seam (residentHistogramsOf). The file tests need no device; those that
// make an OpenCL histogrammer skip with a message where no OpenCL platform is installed.
#include "opencl/device_context.hpp"
#include "opencl/device_tuning.hpp"
#include "opencl/resident_histograms.hpp"
#include "support/io_test_support.hpp"
#include "support/test_support.hpp"

#include <bovw/device.hpp>
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <string>

namespace bovw::test {
namespace {

DeviceInfo deviceOfType(const std::string& type, const std::string& name = "Some Device") {
  DeviceInfo info;
  info.type = type;
  info.name = name;
  info.vendor = "Some Vendor";
  return info;
}

// Rows that are copies of a random word plus a small perturbation, so that each row's nearest word is
// unambiguous: that word's index goes to `expected`.
Descriptors nearCopies(const Descriptors& words, int n, std::uint64_t seed, std::vector<std::int32_t>& expected) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(words.rows()) - 1);
  const Descriptors noise = randomMatrix(rng, n, words.cols(), -1e-3f, 1e-3f);
  Descriptors rows(n, words.cols());
  expected.resize(n);
  for (int i = 0; i < n; ++i) {
    expected[i] = pick(rng);
    rows.row(i) = words.row(expected[i]) + noise.row(i);
  }
  return rows;
}

bool sameTiles(const TileSizes& a, const TileSizes& b) {
  return a.rows_per_item == b.rows_per_item && a.words_per_item == b.words_per_item &&
         a.group_rows == b.group_rows && a.group_words == b.group_words && a.depth == b.depth;
}

// What docs/KERNELS.md and docs/PERFORMANCE.md say each kind of device gets.
TEST(TuningTable, GpusGetTheTiledKernelOtherDevicesFloat4) {
  const detail::DeviceTuning& gpu = detail::deviceTuning(deviceOfType("GPU"));
  EXPECT_EQ(gpu.variant, KernelVariant::Tiled);
  EXPECT_EQ(toString(gpu.tiles), "8,8,8,16,16");
  DeviceInfo nvidia = deviceOfType("GPU");
  nvidia.vendor = "NVIDIA Corporation";
  const detail::DeviceTuning& tensor = detail::deviceTuning(nvidia);
  EXPECT_EQ(tensor.variant, KernelVariant::TiledFP16);
  EXPECT_EQ(toString(tensor.tiles), "2,4,4,1,8");
  // Asked for by name on another device, tiled-tf32 gets the tensor cores' shape, not the table's
  // FP32 tiles (on an NVIDIA GPU too, whose row runs tiled-fp16 in its own shape); and `tiled`
  // by name on an NVIDIA GPU gets the FP32 tiles of the GPU row, not the tensor-core row's.
  HistogrammerConfig asked;
  asked.variant = KernelVariant::TiledTF32;
  EXPECT_EQ(toString(detail::tunedConfig(asked, deviceOfType("CPU")).tiles), "2,2,4,1,8");
  EXPECT_EQ(toString(detail::tunedConfig(asked, nvidia).tiles), "2,2,4,1,8");
  asked.variant = KernelVariant::Tiled;
  EXPECT_EQ(toString(detail::tunedConfig(asked, nvidia).tiles), "8,8,8,16,16");
  asked.variant = KernelVariant::Auto;
  EXPECT_EQ(detail::tunedConfig(asked, nvidia).variant, KernelVariant::TiledFP16);
  EXPECT_EQ(toString(detail::tunedConfig(asked, nvidia).tiles), "2,4,4,1,8");
  for (const char* type : {"CPU", "accelerator", "other"}) {
    SCOPED_TRACE(type);
    const detail::DeviceTuning& row = detail::deviceTuning(deviceOfType(type));
    EXPECT_EQ(row.variant, KernelVariant::Float4);
    EXPECT_EQ(toString(row.tiles), "8,8,8,8,16");
  }
}

TEST(TuningTable, AutoAndUnsetTilesComeFromTheTable) {
  HistogrammerConfig asked;  // Auto, no tiles
  const HistogrammerConfig gpu = detail::tunedConfig(asked, deviceOfType("GPU"));
  EXPECT_EQ(gpu.variant, KernelVariant::Tiled);
  EXPECT_EQ(toString(gpu.tiles), "8,8,8,16,16");
  // A variant asked for by name stays; tile sizes asked for win field by field (0 or less: unset).
  asked.variant = KernelVariant::Coalesced;
  asked.tiles = {4, 0, -1, 4, 32};
  const HistogrammerConfig cpu = detail::tunedConfig(asked, deviceOfType("CPU"));
  EXPECT_EQ(cpu.variant, KernelVariant::Coalesced);
  EXPECT_EQ(toString(cpu.tiles), "4,8,8,4,32");
}

class TuningFile : public ScratchDirTest {};

// The exact bytes `bovw-bench --tune --save-tuning` has always written (sorted keys, two spaces).
TEST_F(TuningFile, SavesTheBenchFormatAndReadsItBack) {
  const TuningRecord record{"Some Device", {8, 8, 16, 16, 16}, 1048576, 1024, 64, "2024-05-01 10:00:00"};
  saveTuningFile(path("t.json"), record);
  EXPECT_EQ(readBytes(path("t.json")),
            "{\n  \"d\": 64,\n  \"date\": \"2024-05-01 10:00:00\",\n  \"device\": \"Some Device\",\n"
            "  \"k\": 1024,\n  \"n\": 1048576,\n  \"tiles\": \"8,8,16,16,16\"\n}\n");
  const TuningRecord back = loadTuningFile(path("t.json"));
  EXPECT_EQ(back.device, "Some Device");
  EXPECT_TRUE(sameTiles(back.tiles, record.tiles));
  EXPECT_EQ(back.n, 1048576);
  EXPECT_EQ(back.k, 1024);
  EXPECT_EQ(back.d, 64);
  EXPECT_EQ(back.date, record.date);
}

TEST_F(TuningFile, ItsTilesReplaceTheTablesOnItsDeviceOnly) {
  writeBytes(path("t.json"), R"({"device": "Some Device", "tiles": "4,4,4,4,8"})");  // informative fields absent
  HistogrammerConfig asked;
  asked.tuning_file = path("t.json");
  EXPECT_EQ(toString(detail::tunedConfig(asked, deviceOfType("GPU")).tiles), "4,4,4,4,8");
  asked.tiles.depth = 12;  // a field asked for still wins
  EXPECT_EQ(toString(detail::tunedConfig(asked, deviceOfType("GPU")).tiles), "4,4,4,4,12");
  try {
    detail::tunedConfig(asked, deviceOfType("GPU", "Another Device"));
    FAIL() << "a tuning file from another device was accepted";
  } catch (const InvalidInput& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path("t.json")), std::string::npos) << message;
    EXPECT_NE(message.find("tuning file made on 'Some Device', not on 'Another Device'"), std::string::npos) << message;
  }
}

TEST_F(TuningFile, RefusesMalformedFilesNamingThem) {
  const std::pair<const char*, const char*> cases[] = {
      {"{not json", "tuning file is not JSON"},
      {"[1, 2]", "needs string fields \"device\" and \"tiles\""},
      {R"({"device": "Some Device"})", "needs string fields \"device\" and \"tiles\""},
      {R"({"device": 3, "tiles": "8,8,8,8,16"})", "needs string fields \"device\" and \"tiles\""},
      {R"({"device": "Some Device", "tiles": "8,8,8"})", "five"},
      {R"({"device": "Some Device", "tiles": "8,8,8,0,16"})", "positive"},
  };
  for (const auto& [text, problem] : cases) {
    SCOPED_TRACE(text);
    writeBytes(path("bad.json"), text);
    try {
      loadTuningFile(path("bad.json"));
      FAIL() << "accepted";
    } catch (const InvalidInput& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path("bad.json")), std::string::npos) << message;
      EXPECT_NE(message.find(problem), std::string::npos) << message;
    }
  }
  EXPECT_THROW(loadTuningFile(path("absent.json")), IoError);
}

// On a real device: the histogrammer runs the file's tiles, and refuses another device's file
// before anything is searched.
TEST_F(TuningFile, TheOpenCLHistogrammerRunsTheFilesTiles) {
  if (listDevices().empty()) GTEST_SKIP() << "no OpenCL platform installed (Debian: apt install pocl-opencl-icd)";
  const DeviceInfo device = selectDevice("");
  saveTuningFile(path("here.json"), {device.name, {4, 4, 4, 4, 8}, 1, 1, 1, ""});
  HistogrammerConfig config;
  config.backend = Backend::OpenCL;
  config.variant = KernelVariant::Tiled;
  config.tuning_file = path("here.json");
  auto histogrammer = makeHistogrammer(config);
  EXPECT_NE(histogrammer->description().find("tiled 16x16 (4x4 per work-item, depth 8)"), std::string::npos)
      << histogrammer->description();
  std::mt19937_64 rng(11);
  const Vocabulary words(randomMatrix(rng, 5, 8));
  std::vector<std::int32_t> expected;
  const Descriptors x = nearCopies(words.centroids(), 37, 12, expected);
  EXPECT_TRUE(assignmentsEqual(expected, histogrammer->assign(x, words)));

  saveTuningFile(path("there.json"), {device.name + " (another)", {4, 4, 4, 4, 8}, 1, 1, 1, ""});
  config.tuning_file = path("there.json");
  EXPECT_THROW(makeHistogrammer(config), InvalidInput);
}

TEST(DeviceSeam, OnlyDeviceHistogrammersOfferResidentSearches) {
  for (Backend backend : allBackends()) {
    if (backend == Backend::OpenCL) continue;
    HistogrammerConfig config;
    config.backend = backend;
    EXPECT_EQ(detail::residentHistogramsOf(*makeHistogrammer(config)), nullptr) << toString(backend);
  }
  if (listDevices().empty()) GTEST_SKIP() << "no OpenCL platform installed (Debian: apt install pocl-opencl-icd)";
  HistogrammerConfig config;
  config.backend = Backend::OpenCL;
  auto histogrammer = makeHistogrammer(config);
  detail::ResidentHistograms* resident = detail::residentHistogramsOf(*histogrammer);
  ASSERT_NE(resident, nullptr);
  // Rows put on its device by hand get their nearest words.
  std::mt19937_64 rng(21);
  const Vocabulary words(randomMatrix(rng, 7, 16));
  std::vector<std::int32_t> expected;
  Descriptors x = nearCopies(words.centroids(), 53, 22, expected);
  cl::Buffer rows(resident->device().context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                  sizeof(float) * static_cast<std::size_t>(x.size()), x.data());
  std::vector<std::int32_t> on_device(53);
  resident->assign(rows, 53, 16, words, on_device.data());
  EXPECT_TRUE(assignmentsEqual(expected, on_device));
}

}  // namespace
}  // namespace bovw::test
