// ScratchBuffers (src/opencl/scratch_buffers.hpp): a name's buffer is reused while it is big enough,
// grows when it is not, and requests above the retain limit are served but not kept.
#include "opencl/device_context.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace bovw
