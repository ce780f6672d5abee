// ScratchBuffers (src/opencl/scratch_buffers.hpp): a name's buffer is reused while it is big enough,
// grows when it is not, and requests above the retain limit are served but not kept; tables and
// uploads hold what they were given.
#include "opencl/device_context.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace bovw {
namespace {

TEST(ScratchBuffers, ReusesGrowsAndDoesNotRetainHugeBuffers) {
  BOVW_REQUIRE_OPENCL();
  detail::DeviceContext device("");
  detail::ScratchBuffers& scratch = device.scratch();
  const cl::Buffer first = scratch.get("a", 1000);
  EXPECT_EQ(scratch.get("a", 1000)(), first());  // the same cl_mem
  EXPECT_EQ(scratch.get("a", 10)(), first());
  EXPECT_NE(scratch.get("b", 10)(), first());  // names do not share
  const cl::Buffer grown = scratch.get("a", 1001);
  EXPECT_NE(grown(), first());
  EXPECT_GE(grown.getInfo<CL_MEM_SIZE>(), 1500u);  // grown by half at least, so a run of larger sizes reuses it
  EXPECT_EQ(scratch.get("a", 1400)(), grown());

  const std::size_t huge = detail::ScratchBuffers::kRetainLimit + 1;
  const cl::Buffer once = scratch.get("a", huge);
  EXPECT_EQ(once.getInfo<CL_MEM_SIZE>(), huge);
  EXPECT_NE(scratch.get("a", huge)(), once());  // not kept
  EXPECT_NE(scratch.get("a", 1000)(), grown());  // and the small one was let go with it
}

TEST(ScratchBuffers, TablesAreKeptWhileTheirContentIsTheSame) {
  BOVW_REQUIRE_OPENCL();
  detail::DeviceContext device("");
  detail::ScratchBuffers& scratch = device.scratch();
  std::vector<int> values = {3, 1, 4, 1, 5};
  const cl::Buffer first = scratch.table("t", values.data(), sizeof(int) * values.size());
  EXPECT_EQ(scratch.table("t", values.data(), sizeof(int) * values.size())(), first());
  values[2] = 9;
  const cl::Buffer changed = scratch.table("t", values.data(), sizeof(int) * values.size());
  EXPECT_NE(changed(), first());
  std::vector<int> read(values.size());
  device.queue().enqueueReadBuffer(changed, CL_TRUE, 0, sizeof(int) * read.size(), read.data());
  EXPECT_EQ(read, values);  // the new content, not the old
  EXPECT_NE(scratch.table("t", values.data(), sizeof(int) * 4)(), changed());  // a shorter table differs
}

// Uploads write into one kept buffer, without waiting, from a copy: the caller's memory may change or
// go at once, and each kernel-side reader (here a read-back queued right after each upload) sees the
// content of its own upload, not a later one.
TEST(ScratchBuffers, UploadsReuseTheirBufferAndEachReaderSeesItsOwnContent) {
  BOVW_REQUIRE_OPENCL();
  detail::DeviceContext device("");
  detail::ScratchBuffers& scratch = device.scratch();
  std::vector<std::vector<int>> reads;
  cl::Buffer first;
  for (int round = 0; round < 5; ++round) {
    std::vector<int> values(8 - round % 2);  // the longest first: later ones fit its buffer
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = round * 100 + static_cast<int>(i);
    const cl::Buffer buffer = scratch.upload(device.queue(), "u", values.data(), sizeof(int) * values.size());
    if (round == 0) first = buffer;
    EXPECT_EQ(buffer(), first()) << "round " << round << ": a new buffer (a release per change)";
    reads.emplace_back(values.size());
    device.queue().enqueueReadBuffer(buffer, CL_FALSE, 0, sizeof(int) * values.size(), reads.back().data());
    values.assign(values.size(), -1);  // the caller's memory changes before the write has run
  }
  device.queue().finish();
  for (int round = 0; round < 5; ++round)
    for (std::size_t i = 0; i < reads[round].size(); ++i)
      EXPECT_EQ(reads[round][i], round * 100 + static_cast<int>(i)) << "round " << round << ", value " << i;
}

}  // namespace
}  // namespace bovw
