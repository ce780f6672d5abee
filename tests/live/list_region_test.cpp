// The memory an open copies a checkpoint's lists into (src/live/list_region.hpp): every list at a
// 16-byte aligned offset of its own, none overlapping; releasing lists in any order leaves the held
// ones' bytes untouched, gives back exactly the pages no held list lies on (they read as zeros
// again: anonymous memory given back), and counts what stays held, checked against a count made
// here page by page.
#include "live/list_region.hpp"

#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

namespace bovw::test {
namespace {

using live_detail::ListRegion;
constexpr std::size_t kPage = ListRegion::kPage;

// Sizes from empty through a byte to lists spanning several pages, most small (many to a page).
std::vector<std::size_t> randomSizes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::size_t> sizes(n);
  for (auto& size : sizes) {
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    size = kind == 0 ? 0 : kind < 7 ? std::uniform_int_distribution<std::size_t>(1, 600)(rng)
                                     : std::uniform_int_distribution<std::size_t>(600, 5 * kPage + 77)(rng);
  }
  return sizes;
}

unsigned char pattern(std::size_t list, std::size_t i) { return static_cast<unsigned char>(1 + (list * 31 + i) % 251); }

// The pages that some held list lies on, counted from the layout.
std::set<std::size_t> heldPages(const ListRegion& region, const unsigned char* base) {
  std::set<std::size_t> pages;
  for (std::size_t list = 0; list < region.lists(); ++list) {
    if (!region.holds(list) || region.size(list) == 0) continue;
    const auto begin = static_cast<std::size_t>(region.at(list) - base);
    for (std::size_t page = begin / kPage; page <= (begin + region.size(list) - 1) / kPage; ++page) pages.insert(page);
  }
  return pages;
}

TEST(ListRegion, ListsAreAlignedAndApart) {
  BOVW_SEEDED_RNG(rng);
  const std::vector<std::size_t> sizes = randomSizes(rng, std::uniform_int_distribution<std::size_t>(1, 400)(rng));
  const ListRegion region(sizes);
  ASSERT_EQ(region.lists(), sizes.size());
  for (std::size_t list = 0; list < sizes.size(); ++list) {
    EXPECT_EQ(region.size(list), sizes[list]);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(region.at(list)) % 16, 0u) << list;
    if (list > 0) {
      EXPECT_GE(region.at(list), region.at(list - 1) + sizes[list - 1]) << list;
    }
  }
  EXPECT_EQ(region.held(), sizes.size());
}

TEST(ListRegion, ReleasedListsGiveBackOnlyThePagesNoHeldListLiesOn) {
  BOVW_SEEDED_RNG(rng);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<std::size_t> sizes = randomSizes(rng, std::uniform_int_distribution<std::size_t>(1, 300)(rng));
    ListRegion region(sizes);
    const unsigned char* base = region.at(0);
    for (std::size_t list = 0; list < sizes.size(); ++list)
      for (std::size_t i = 0; i < sizes[list]; ++i) region.at(list)[i] = pattern(list, i);
    EXPECT_EQ(region.heldBytes(), heldPages(region, base).size() * kPage);

    std::vector<std::size_t> order(sizes.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(std::uniform_int_distribution<std::size_t>(0, order.size())(rng));
    if (!order.empty()) order.push_back(order.front());  // released twice: no change
    std::set<std::size_t> before = heldPages(region, base);
    for (std::size_t list : order) {
      region.release(list);
      const std::set<std::size_t> after = heldPages(region, base);
      ASSERT_EQ(region.heldBytes(), after.size() * kPage) << "trial " << trial;
      for (std::size_t page : before) {  // the pages given back hold zeros now
        if (after.count(page)) continue;
        for (std::size_t i = 0; i < kPage; i += 97) ASSERT_EQ(base[page * kPage + i], 0) << "page " << page;
      }
      before = after;
    }
    const std::set<std::size_t> released(order.begin(), order.end());
    EXPECT_EQ(region.held(), sizes.size() - released.size());
    for (std::size_t list = 0; list < sizes.size(); ++list) {
      EXPECT_EQ(region.holds(list), released.count(list) == 0);
      if (!region.holds(list)) continue;
      for (std::size_t i = 0; i < sizes[list]; ++i)
        ASSERT_EQ(region.at(list)[i], pattern(list, i)) << "list " << list << " byte " << i;
    }
  }
}

TEST(ListRegion, ReleasingEveryListGivesBackEveryPage) {
  BOVW_SEEDED_RNG(rng);
  const std::vector<std::size_t> sizes = randomSizes(rng, 200);
  ListRegion region(sizes);
  for (std::size_t list = 0; list < sizes.size(); ++list) std::fill_n(region.at(list), sizes[list], 0xab);
  for (std::size_t list = sizes.size(); list-- > 0;) region.release(list);
  EXPECT_EQ(region.held(), 0u);
  EXPECT_EQ(region.heldBytes(), 0u);
}

// Placed one by one in a region sized for a bound of their bytes (as an open places the lists it
// makes), lists are aligned and apart, only the pages they lie on count as held, and a list beyond the
// capacity is refused without changing what was placed.
TEST(ListRegion, ListsPlacedOneByOneWithinACapacity) {
  BOVW_SEEDED_RNG(rng);
  const std::vector<std::size_t> sizes = randomSizes(rng, std::uniform_int_distribution<std::size_t>(1, 300)(rng));
  std::size_t capacity = 0;
  for (std::size_t size : sizes) capacity += ListRegion::roomFor(size);
  capacity += std::uniform_int_distribution<std::size_t>(0, 3 << 20)(rng);  // slack a bound leaves
  ListRegion region(capacity);
  for (std::size_t list = 0; list < sizes.size(); ++list) {
    ASSERT_EQ(region.place(sizes[list]), list);
    std::fill_n(region.at(list), sizes[list], pattern(list, 0));
  }
  ASSERT_EQ(region.lists(), sizes.size());
  const unsigned char* base = region.at(0);
  for (std::size_t list = 0; list < sizes.size(); ++list) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(region.at(list)) % 16, 0u) << list;
    if (list > 0) {
      EXPECT_GE(region.at(list), region.at(list - 1) + sizes[list - 1]) << list;
    }
    EXPECT_EQ(std::count(region.at(list), region.at(list) + sizes[list], pattern(list, 0)),
              static_cast<std::ptrdiff_t>(sizes[list])) << list;
  }
  EXPECT_EQ(region.heldBytes(), heldPages(region, base).size() * kPage);
  EXPECT_THROW(region.place(capacity + 1), std::length_error);
  EXPECT_EQ(region.lists(), sizes.size());
  EXPECT_THROW(ListRegion(0).place(1), std::length_error);
}

TEST(ListRegion, NoListsNoMemory) {
  const ListRegion none(std::vector<std::size_t>{});
  EXPECT_EQ(none.lists(), 0u);
  EXPECT_EQ(none.heldBytes(), 0u);
  const ListRegion empty_lists(std::vector<std::size_t>{0, 0});
  EXPECT_EQ(empty_lists.heldBytes(), 0u);
  EXPECT_EQ(empty_lists.held(), 2u);
}

}  // namespace
}  // namespace bovw::test
