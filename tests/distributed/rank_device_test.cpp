// Which device each rank of a host takes (bovw::deviceOfLocalRank), on made-up device lists: a spec
// that matches several devices spreads the ranks over them (local rank mod their number), one that
// pins a device leaves ranks sharing it and says so, and the default falls back to the CPU device
// without a word. Each case is checked against a count of the ranks that take each device.
#include <bovw/device.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bovw {
namespace {

DeviceInfo device(int platform, int index, const std::string& platform_name, const std::string& name,
                  const std::string& type) {
  DeviceInfo info;
  info.platform_index = platform;
  info.device_index = index;
  info.platform = platform_name;
  info.name = name;
  info.type = type;
  return info;
}

// PoCL's CPU device first (platform 0), then two NVIDIA GPUs (platform 1): the GPUs are not the
// first entries, as on the machines of issue 27 with both ICDs installed.
std::vector<DeviceInfo> twoGpusAfterPocl() {
  return {device(0, 0, "Portable Computing Language", "cpu-haswell-AMD EPYC", "CPU"),
          device(1, 0, "NVIDIA CUDA", "NVIDIA H200", "GPU"), device(1, 1, "NVIDIA CUDA", "NVIDIA H200", "GPU")};
}

std::vector<DeviceInfo> onlyPocl() { return {device(0, 0, "Portable Computing Language", "cpu-haswell", "CPU")}; }

// The reference: rank r of `size` takes expected[r mod m]; it shares when another rank of [0, size)
// has the same residue (counted, not derived).
void expectSpread(const std::vector<DeviceInfo>& devices, const std::string& spec, const std::vector<int>& expected,
                  bool warn_when_shared) {
  const int m = static_cast<int>(expected.size());
  for (int size = 1; size <= 7; ++size) {
    for (int rank = 0; rank < size; ++rank) {
      SCOPED_TRACE("spec '" + spec + "', local rank " + std::to_string(rank) + " of " + std::to_string(size));
      int same = 0;
      for (int other = 0; other < size; ++other) same += other % m == rank % m ? 1 : 0;
      const RankDevice chosen = deviceOfLocalRank(devices, spec, rank, size);
      EXPECT_EQ(chosen.index, expected[static_cast<std::size_t>(rank % m)]);
      EXPECT_EQ(chosen.matching, m);
      EXPECT_EQ(chosen.shared, warn_when_shared && same > 1);
    }
  }
}

TEST(RankDevice, SpecsMatchingSeveralGpusSpreadTheRanks) {
  const auto devices = twoGpusAfterPocl();
  expectSpread(devices, "", {1, 2}, true);        // the default: every GPU
  expectSpread(devices, "NVIDIA", {1, 2}, true);  // a vendor (the platform's name)
  expectSpread(devices, "nvidia", {1, 2}, true);  // any case
  expectSpread(devices, "H200", {1, 2}, true);    // part of the devices' name
  expectSpread(devices, "gpu", {1, 2}, true);
  // Two ranks on two GPUs: one each, neither shared (the case of the issue: BOVW_DEVICE=NVIDIA).
  EXPECT_EQ(deviceOfLocalRank(devices, "NVIDIA", 0, 2).index, 1);
  EXPECT_EQ(deviceOfLocalRank(devices, "NVIDIA", 1, 2).index, 2);
  EXPECT_FALSE(deviceOfLocalRank(devices, "NVIDIA", 1, 2).shared);
  // Three ranks: the third goes back to the first GPU, and those two share it.
  EXPECT_EQ(deviceOfLocalRank(devices, "gpu", 2, 3).index, 1);
  EXPECT_TRUE(deviceOfLocalRank(devices, "gpu", 2, 3).shared);
  EXPECT_TRUE(deviceOfLocalRank(devices, "gpu", 0, 3).shared);
  EXPECT_FALSE(deviceOfLocalRank(devices, "gpu", 1, 3).shared);
}

TEST(RankDevice, GpusOfSeveralPlatformsAreTakenInListOrder) {
  const std::vector<DeviceInfo> devices = {device(0, 0, "AMD Accelerated Parallel Processing", "gfx90a", "GPU"),
                                           device(1, 0, "PoCL", "cpu", "CPU"),
                                           device(2, 0, "NVIDIA CUDA", "NVIDIA A100", "GPU")};
  expectSpread(devices, "", {0, 2}, true);
  expectSpread(devices, "gpu", {0, 2}, true);
  expectSpread(devices, "nvidia", {2}, true);
}

TEST(RankDevice, ASpecPinningOneDeviceLeavesEveryRankOnItAndWarns) {
  const auto devices = twoGpusAfterPocl();
  expectSpread(devices, "1:1", {2}, true);
  expectSpread(devices, "cpu", {0}, true);   // asked for: shared, and said
  expectSpread(onlyPocl(), "0:0", {0}, true);
  expectSpread(onlyPocl(), "cpu", {0}, true);
  const RankDevice one = deviceOfLocalRank(devices, "1:1", 0, 1);  // a rank alone on its host shares nothing
  EXPECT_EQ(one.index, 2);
  EXPECT_FALSE(one.shared);
}

TEST(RankDevice, TheDefaultOnAHostWithoutGpusTakesTheCpuDeviceSilently) {
  expectSpread(onlyPocl(), "", {0}, false);
  // Two CPU devices (PoCL with POCL_DEVICES="pthread pthread"): the default takes the first only,
  // as one process would; "cpu" spreads over both.
  const std::vector<DeviceInfo> two = {device(0, 0, "PoCL", "cpu-a", "CPU"), device(0, 1, "PoCL", "cpu-b", "CPU")};
  expectSpread(two, "", {0}, false);
  expectSpread(two, "cpu", {0, 1}, true);
  expectSpread(two, "PoCL", {0, 1}, true);
}

TEST(RankDevice, ASpecMatchingNothingChoosesNothing) {
  for (const auto& devices : {twoGpusAfterPocl(), onlyPocl(), std::vector<DeviceInfo>{}}) {
    for (const std::string spec : {"2:0", "0:5", "no-such-device", "accelerator"}) {
      const RankDevice chosen = deviceOfLocalRank(devices, spec, 1, 2);
      EXPECT_EQ(chosen.index, -1) << spec;
      EXPECT_EQ(chosen.matching, 0) << spec;
      EXPECT_FALSE(chosen.shared) << spec;
    }
  }
  EXPECT_EQ(deviceOfLocalRank({}, "", 0, 2).index, -1);  // no OpenCL platform at all
}

// What one process picks (selectDevice's rule) is what local rank 0 takes.
TEST(RankDevice, LocalRankZeroTakesWhatOneProcessPicks) {
  const auto devices = twoGpusAfterPocl();
  EXPECT_EQ(deviceOfLocalRank(devices, "", 0, 1).index, 1);
  EXPECT_EQ(deviceOfLocalRank(devices, "cpu", 0, 1).index, 0);
  EXPECT_EQ(deviceOfLocalRank(devices, "1:1", 0, 1).index, 2);
}

}  // namespace
}  // namespace bovw
