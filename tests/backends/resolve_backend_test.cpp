// Backend::Auto (bovw::resolveBackend): the GPU that the device spec picks, else the tiled CPU path;
// on lists of made-up devices, and on this machine's, where it must compute what the backend it
// names computes.
#include "support/test_support.hpp"

#include <bovw/device.hpp>
#include <bovw/histogrammer.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace bovw::test {
namespace {

DeviceInfo fakeDevice(int platform, int index, std::string name, std::string type) {
  DeviceInfo info;
  info.platform_index = platform;
  info.device_index = index;
  info.platform = type == "GPU" ? "NVIDIA CUDA" : "Portable Computing Language";
  info.name = std::move(name);
  info.type = std::move(type);
  return info;
}

const DeviceInfo kPocl = fakeDevice(0, 0, "cpu-haswell-AMD EPYC 7B13", "CPU");
const DeviceInfo kGpu = fakeDevice(1, 0, "NVIDIA H100 80GB HBM3", "GPU");
const DeviceInfo kAccelerator = fakeDevice(2, 0, "Some FPGA", "accelerator");

// Clears $BOVW_DEVICE (or sets it) for one test, then restores it.
class DeviceVariable {
 public:
  explicit DeviceVariable(const char* value) {
    if (const char* old = std::getenv("BOVW_DEVICE")) old_ = old;
    if (value)
      ::setenv("BOVW_DEVICE", value, 1);
    else
      ::unsetenv("BOVW_DEVICE");
  }
  ~DeviceVariable() {
    if (old_)
      ::setenv("BOVW_DEVICE", old_->c_str(), 1);
    else
      ::unsetenv("BOVW_DEVICE");
  }

 private:
  std::optional<std::string> old_;
};

Backend autoOn(const std::vector<DeviceInfo>& devices, const std::string& device = "") {
  HistogrammerConfig config;
  config.device = device;
  return resolveBackend(config, devices);
}

TEST(ResolveBackend, AutoIsTheDefaultAndANameOfItsOwn) {
  EXPECT_EQ(HistogrammerConfig{}.backend, Backend::Auto);
  EXPECT_EQ(parseBackend("auto"), Backend::Auto);
  EXPECT_EQ(toString(Backend::Auto), "auto");
  for (Backend b : allBackends()) EXPECT_NE(b, Backend::Auto);  // suites over every backend get concrete ones
}

TEST(ResolveBackend, TheCpuPathWithoutAGpu) {
  DeviceVariable unset(nullptr);
  EXPECT_EQ(autoOn({}), Backend::OpenMPTiled);                    // no OpenCL at all
  EXPECT_EQ(autoOn({kPocl}), Backend::OpenMPTiled);               // PoCL only: its device is a CPU
  EXPECT_EQ(autoOn({kPocl, kAccelerator}), Backend::OpenMPTiled);  // an accelerator is no GPU
}

TEST(ResolveBackend, TheGpuWhereThereIsOne) {
  DeviceVariable unset(nullptr);
  EXPECT_EQ(autoOn({kGpu}), Backend::OpenCL);
  EXPECT_EQ(autoOn({kPocl, kGpu}), Backend::OpenCL);  // the first GPU, not the first device
  EXPECT_EQ(autoOn({kPocl, kGpu}, "gpu"), Backend::OpenCL);
  EXPECT_EQ(autoOn({kPocl, kGpu}, "1:0"), Backend::OpenCL);
  EXPECT_EQ(autoOn({kPocl, kGpu}, "h100"), Backend::OpenCL);
}

TEST(ResolveBackend, TheChosenDeviceDecides) {
  DeviceVariable unset(nullptr);
  // A spec that picks the CPU device: the CPU path, whatever else is installed (the SURF's auto
  // makes the same choice, so that no pipeline splits over two devices).
  EXPECT_EQ(autoOn({kPocl, kGpu}, "cpu"), Backend::OpenMPTiled);
  EXPECT_EQ(autoOn({kPocl, kGpu}, "0:0"), Backend::OpenMPTiled);
  EXPECT_EQ(autoOn({kPocl, kGpu}, "portable"), Backend::OpenMPTiled);
  EXPECT_EQ(autoOn({kPocl, kGpu}, "no-such-device"), Backend::OpenMPTiled);
  {
    DeviceVariable cpu("cpu");
    EXPECT_EQ(autoOn({kPocl, kGpu}), Backend::OpenMPTiled);
    EXPECT_EQ(autoOn({kPocl, kGpu}, "gpu"), Backend::OpenCL);  // the config's device wins over $BOVW_DEVICE
  }
  DeviceVariable gpu("NVIDIA");
  EXPECT_EQ(autoOn({kPocl, kGpu}), Backend::OpenCL);
}

TEST(ResolveBackend, OtherBackendsAreLeftAsTheyAre) {
  DeviceVariable unset(nullptr);
  for (Backend b : allBackends()) {
    HistogrammerConfig config;
    config.backend = b;
    EXPECT_EQ(resolveBackend(config, {kGpu}), b) << toString(b);
    EXPECT_EQ(resolveBackend(config, {}), b) << toString(b);
  }
  HistogrammerConfig config;
  config.backend = Backend::OpenMP;
  EXPECT_EQ(withResolvedBackend(config).backend, Backend::OpenMP);
}

// On this machine: Auto names the backend the table above gives for its devices, and computes what
// that backend computes, which is what the golden path computes.
TEST(ResolveBackend, OnThisMachineAutoComputesWhatItsChoiceComputes) {
  const std::vector<DeviceInfo> devices = listDevices();
  const int picked = [&] {
    try {
      const DeviceInfo chosen = selectDevice("");
      return chosen.type == "GPU" ? 1 : 0;
    } catch (const Error&) {
      return 0;
    }
  }();
  const Backend expected = picked ? Backend::OpenCL : Backend::OpenMPTiled;
  EXPECT_EQ(resolveBackend(HistogrammerConfig{}), expected);
  EXPECT_EQ(withResolvedBackend(HistogrammerConfig{}).backend, expected);
  bool gpu_listed = false;
  for (const DeviceInfo& d : devices) gpu_listed = gpu_listed || d.type == "GPU";
  if (!std::getenv("BOVW_DEVICE")) {
    EXPECT_EQ(expected == Backend::OpenCL, gpu_listed);
  }

  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 3001, 64);
  const Vocabulary vocabulary(randomMatrix(rng, 97, 64));
  const DescriptorBatch batch(x, {0, 1000, 1000, 3001});
  auto automatic = makeHistogrammer();
  HistogrammerConfig explicit_config;
  explicit_config.backend = expected;
  auto chosen = makeHistogrammer(explicit_config);
  EXPECT_EQ(automatic->description(), chosen->description());
  std::vector<std::int32_t> automatic_words, chosen_words;
  const Histograms automatic_histograms = automatic->compute(batch, vocabulary, &automatic_words);
  EXPECT_TRUE(histogramsEqual(automatic_histograms, chosen->compute(batch, vocabulary, &chosen_words)));
  EXPECT_EQ(automatic_words, chosen_words);
  EXPECT_EQ(automatic_words, openmpAssign(x, vocabulary));  // and the golden path's
}

}  // namespace
}  // namespace bovw::test
