// Device listing and selection by spec (index, type, name substring). Skips with a message where no
// OpenCL platform is installed; CI here has PoCL, so these run.
#include "support/test_support.hpp"

#include <bovw/device.hpp>
#include <bovw/error.hpp>

#include <cctype>

namespace bovw::test {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(Devices, ListingDescribesEveryDevice) {
  const auto devices = listDevices();
  if (devices.empty()) GTEST_SKIP() << "no OpenCL platform installed (Debian: apt install pocl-opencl-icd)";
  for (const auto& d : devices) {
    SCOPED_TRACE(d.name);
    std::printf("[ bovw     ] [%d:%d] %s / %s (%s), %s, %u CUs, local %llu B, constant %llu B, max work-group %zu\n",
                d.platform_index, d.device_index, d.platform.c_str(), d.name.c_str(), d.type.c_str(),
                d.c_version.c_str(), d.compute_units, static_cast<unsigned long long>(d.local_memory),
                static_cast<unsigned long long>(d.constant_memory), d.max_work_group_size);
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.platform.empty());
    EXPECT_TRUE(d.type == "GPU" || d.type == "CPU" || d.type == "accelerator" || d.type == "other") << d.type;
    EXPECT_NE(d.c_version.find("OpenCL C"), std::string::npos) << d.c_version;
    EXPECT_GT(d.compute_units, 0u);
    EXPECT_GT(d.global_memory, 0u);
    EXPECT_GT(d.max_allocation, 0u);
    EXPECT_LE(d.max_allocation, d.global_memory);
    EXPECT_GT(d.local_memory, 0u);
    EXPECT_GT(d.constant_memory, 0u);
    EXPECT_GT(d.max_work_group_size, 0u);
  }
}

TEST(Devices, SelectionBySpec) {
  BOVW_REQUIRE_OPENCL();
  const auto devices = listDevices();
  for (const auto& d : devices) {
    const std::string index = std::to_string(d.platform_index) + ":" + std::to_string(d.device_index);
    const DeviceInfo by_index = selectDevice(index);
    EXPECT_EQ(by_index.name, d.name) << index;
    EXPECT_EQ(by_index.platform_index, d.platform_index);
    EXPECT_EQ(by_index.device_index, d.device_index);
    // Name substring, case-insensitive: the first device with that name matches.
    EXPECT_EQ(selectDevice(upper(d.name)).name, d.name);
  }
  // By type: the first device of that type, or an error listing the devices.
  for (const char* type : {"cpu", "gpu", "accelerator"}) {
    const auto it = std::find_if(devices.begin(), devices.end(),
                                 [&](const DeviceInfo& d) { return upper(d.type) == upper(type); });
    if (it != devices.end()) {
      EXPECT_EQ(selectDevice(type).name, it->name) << type;
    } else {
      EXPECT_THROW(selectDevice(type), InvalidInput) << type;
    }
  }
}

// The default: first GPU, else first CPU device (with $BOVW_DEVICE unset).
TEST(Devices, DefaultIsTheFirstGpuElseTheFirstCpu) {
  BOVW_REQUIRE_OPENCL();
  const char* env = std::getenv("BOVW_DEVICE");
  if (env && *env) GTEST_SKIP() << "BOVW_DEVICE is set to '" << env << "'";
  const auto devices = listDevices();
  auto first = [&](const char* type) {
    return std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) { return d.type == type; });
  };
  const auto expected = first("GPU") != devices.end() ? first("GPU") : first("CPU");
  ASSERT_NE(expected, devices.end());
  const DeviceInfo chosen = selectDevice("");
  EXPECT_EQ(chosen.platform_index, expected->platform_index);
  EXPECT_EQ(chosen.device_index, expected->device_index);
}

TEST(Devices, HistogrammerDescriptionNamesVariantDeviceAndWorkGroup) {
  BOVW_REQUIRE_OPENCL();
  HistogrammerConfig config = openclConfig(KernelVariant::Float4, 33);
  const std::string text = makeHistogrammer(config)->description();
  EXPECT_NE(text.find("float4"), std::string::npos) << text;
  EXPECT_NE(text.find(testDevice().name), std::string::npos) << text;
  EXPECT_NE(text.find("33"), std::string::npos) << text;
}

}  // namespace
}  // namespace bovw::test
