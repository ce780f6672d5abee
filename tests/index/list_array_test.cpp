// A posting list's array (src/index/list_array.hpp), owned or borrowed, against a std::vector put
// through the same random changes: the elements agree after each one, a borrowed array's bytes are
// never written (the first change copies them), copies are independent, and its fixed size is the
// 16 bytes that keep an empty posting list small.
#include "index/list_array.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace bovw::test {
namespace {

using index_detail::ListArray;

static_assert(sizeof(ListArray<std::uint32_t>) == 16, "an empty posting list's size (index_data.hpp)");

template <typename T>
void expectSame(const ListArray<T>& array, const std::vector<T>& expected) {
  ASSERT_EQ(array.size(), expected.size());
  EXPECT_EQ(array.empty(), expected.empty());
  EXPECT_EQ(std::vector<T>(array.begin(), array.end()), expected);
  EXPECT_GE(array.heapBytes(), array.borrowed() ? 0 : expected.size() * sizeof(T));
}

// One random change to both.
template <typename T>
void change(std::mt19937_64& rng, ListArray<T>& array, std::vector<T>& expected) {
  const auto value = static_cast<T>(rng());
  switch (rng() % 8) {
    case 0:
      array.push_back(value);
      expected.push_back(value);
      break;
    case 1: {
      const std::vector<T> more(rng() % 40, value);
      array.append(more.data(), more.data() + more.size());
      expected.insert(expected.end(), more.begin(), more.end());
      break;
    }
    case 2: {
      const std::size_t n = rng() % (expected.size() + 30);
      array.resize(n, value);
      expected.resize(n, value);
      break;
    }
    case 3:
      if (!expected.empty()) {
        const std::size_t at = rng() % expected.size();
        array.erase(at);
        expected.erase(expected.begin() + static_cast<std::ptrdiff_t>(at));
      }
      break;
    case 4:
      if (!expected.empty()) {
        const std::size_t at = rng() % expected.size();
        array.writable()[at] = value;
        expected[at] = value;
      }
      break;
    case 5:
      array.reserve(rng() % 100);
      break;
    case 6:
      array.shrinkToFit();
      EXPECT_EQ(array.spare(), 0u);
      break;
    default: {
      const std::size_t n = rng() % 20;
      array.assign(n, value);
      expected.assign(n, value);
      break;
    }
  }
}

TEST(ListArray, OwnedArraysFollowAVectorThroughRandomChanges) {
  BOVW_SEEDED_RNG(rng);
  ListArray<std::uint32_t> array;
  std::vector<std::uint32_t> expected;
  expectSame(array, expected);
  for (int step = 0; step < 3000; ++step) {
    change(rng, array, expected);
    expectSame(array, expected);
    EXPECT_FALSE(array.borrowed());
  }
}

TEST(ListArray, BorrowedBytesAreReadUntilTheFirstChangeAndNeverWritten) {
  BOVW_SEEDED_RNG(rng);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::uint8_t> bytes(1 + rng() % 50);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const std::vector<std::uint8_t> original = bytes;
    ListArray<std::uint8_t> array;
    array.push_back(7);  // what it owned before is given back
    array.borrow(bytes.data(), bytes.size());
    ASSERT_TRUE(array.borrowed());
    EXPECT_EQ(array.data(), bytes.data()) << "read in place, not copied";
    EXPECT_EQ(array.spare(), 0u);
    EXPECT_EQ(array.heapBytes(), 0u);

    const ListArray<std::uint8_t> copy = array;  // a copy borrows the same bytes
    EXPECT_EQ(copy.data(), bytes.data());

    std::vector<std::uint8_t> expected = original;
    change(rng, array, expected);
    expectSame(array, expected);
    EXPECT_EQ(bytes, original) << "a change wrote into the borrowed bytes";
    expectSame(copy, original);
    for (int step = 0; step < 20; ++step) change(rng, array, expected);
    expectSame(array, expected);
    EXPECT_EQ(bytes, original);
  }
}

TEST(ListArray, BorrowingNothingLeavesAnEmptyOwnedArray) {
  const std::uint32_t one = 5;
  ListArray<std::uint32_t> array;
  array.borrow(&one, 0);
  EXPECT_FALSE(array.borrowed());
  EXPECT_TRUE(array.empty());
  array.push_back(3);
  expectSame(array, {3});
}

TEST(ListArray, CopiesAndMovesOfOwnedArraysAreIndependent) {
  BOVW_SEEDED_RNG(rng);
  ListArray<std::uint32_t> array;
  std::vector<std::uint32_t> expected;
  for (int i = 0; i < 100; ++i) change(rng, array, expected);
  ListArray<std::uint32_t> copy = array;
  EXPECT_TRUE(copy.empty() || copy.data() != array.data());
  copy.push_back(1);
  expectSame(array, expected);
  ListArray<std::uint32_t> moved = std::move(array);
  expectSame(moved, expected);
  array = moved;  // a moved-from array takes a new value
  expectSame(array, expected);
}

TEST(ListArray, MoreThanItsLimitIsRefusedAndLeavesTheArrayAsItWas) {
  ListArray<std::uint8_t> array;
  array.assign(3, 9);
  EXPECT_THROW(array.reserve(ListArray<std::uint8_t>::kMaxSize + 1), std::length_error);
  expectSame(array, {9, 9, 9});
}

}  // namespace
}  // namespace bovw::test
