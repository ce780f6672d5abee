// The anonymous memory an open writes lists and postings into (src/live/huge_pages.hpp): at least
// the bytes asked for, in whole 2 MiB pages at a 2 MiB aligned address, zero until written, every
// byte writable and readable back; none for 0 bytes; a move hands the mapping over whole.
#include "live/huge_pages.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>

namespace bovw::test {
namespace {

using live_detail::HugePages;

TEST(HugePages, OddSizesAreWholeAlignedZeroedPagesThatHoldWhatIsWritten) {
  std::mt19937_64 random(std::random_device{}());
  for (std::size_t bytes : {std::size_t{1}, HugePages::kHugePage - 1, HugePages::kHugePage, HugePages::kHugePage + 1,
                            std::size_t{3} * HugePages::kHugePage + random() % HugePages::kHugePage}) {
    SCOPED_TRACE(bytes);
    const HugePages memory(bytes);
    ASSERT_NE(memory.data(), nullptr);
    EXPECT_GE(memory.size(), bytes);
    EXPECT_LT(memory.size(), bytes + HugePages::kHugePage);
    EXPECT_EQ(memory.size() % HugePages::kHugePage, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(memory.data()) % HugePages::kHugePage, 0u);
    unsigned char* first = memory.data();
    unsigned char* last = memory.data() + memory.size();
    EXPECT_TRUE(std::all_of(first, last, [](unsigned char b) { return b == 0; }));
    const auto seed = random();
    std::mt19937 fill(static_cast<std::uint32_t>(seed));
    std::generate(first, last, [&] { return static_cast<unsigned char>(fill()); });
    std::mt19937 check(static_cast<std::uint32_t>(seed));
    EXPECT_TRUE(std::all_of(first, last, [&](unsigned char b) { return b == static_cast<unsigned char>(check()); }));
  }
}

TEST(HugePages, NoBytesMapNothingAndAMoveHandsTheMappingOver) {
  const HugePages none(0);
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.size(), 0u);

  HugePages first(100);
  first.data()[99] = 42;
  unsigned char* const at = first.data();
  HugePages second(std::move(first));
  EXPECT_EQ(second.data(), at);
  EXPECT_EQ(second.data()[99], 42);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): a moved-from mapping is empty
  EXPECT_EQ(first.size(), 0u);
  HugePages third(HugePages::kHugePage * 2);
  third = std::move(second);
  EXPECT_EQ(third.data(), at);
  EXPECT_EQ(third.size(), HugePages::kHugePage);
}

}  // namespace
}  // namespace bovw::test
