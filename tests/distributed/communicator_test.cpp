// The collectives on one process and on R thread ranks: sums are exact and in every rank, a
// broadcast reaches every rank, gathers come back in rank order, agreement fails if any rank fails.
#include "support/thread_communicator.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <stdexcept>

namespace bovw {
namespace {

using test::runOnRanks;

Bytes bytesOf(int rank, std::size_t length) {
  Bytes bytes(length);
  for (std::size_t i = 0; i < length; ++i) bytes[i] = static_cast<std::uint8_t>(rank * 31 + i);
  return bytes;
}

TEST(Communicator, SingleProcessReturnsItsOwnInput) {
  Communicator& one = singleProcess();
  EXPECT_EQ(one.rank(), 0);
  EXPECT_EQ(one.size(), 1);
  std::int64_t values[2] = {5, -7};
  one.sum(values, 2);
  EXPECT_EQ(values[0], 5);
  EXPECT_EQ(values[1], -7);
  EXPECT_EQ(valuesOfRanks(one, 42), std::vector<std::int64_t>({42}));
  EXPECT_TRUE(allRanksAgree(one, true));
  EXPECT_FALSE(allRanksAgree(one, false));
  const auto gathered = one.gather(bytesOf(0, 3), 0);
  ASSERT_EQ(gathered.size(), 1u);
  EXPECT_EQ(gathered[0], bytesOf(0, 3));
}

class OnRanks : public ::testing::TestWithParam<int> {};

TEST_P(OnRanks, SumsAreExactOnEveryRank) {
  const int ranks = GetParam();
  runOnRanks(ranks, [&](Communicator& group) {
    // Values whose float64 sum would round: the integer sum must not.
    std::vector<std::int64_t> values = {(std::int64_t{1} << 60) + group.rank(), -group.rank(), 1};
    group.sum(values.data(), values.size());
    std::int64_t expected_first = 0;
    for (int r = 0; r < ranks; ++r) expected_first += (std::int64_t{1} << 60) + r;
    EXPECT_EQ(values[0], expected_first);
    EXPECT_EQ(values[1], -static_cast<std::int64_t>(ranks) * (ranks - 1) / 2);
    EXPECT_EQ(values[2], ranks);
    EXPECT_EQ(sumOverRanks(group, group.rank() + 1), ranks * (ranks + 1) / 2);
    const auto each = valuesOfRanks(group, 10 * group.rank());
    ASSERT_EQ(each.size(), static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) EXPECT_EQ(each[static_cast<std::size_t>(r)], 10 * r);
  });
}

TEST_P(OnRanks, MaximumBroadcastAndGathers) {
  const int ranks = GetParam();
  runOnRanks(ranks, [&](Communicator& group) {
    double values[2] = {static_cast<double>(group.rank()), -static_cast<double>(group.rank())};
    group.max(values, 2);
    EXPECT_EQ(values[0], ranks - 1);
    EXPECT_EQ(values[1], 0.0);

    const int root = ranks - 1;
    Bytes bytes = group.rank() == root ? bytesOf(root, 1000) : Bytes{};
    group.broadcast(bytes, root);
    EXPECT_EQ(bytes, bytesOf(root, 1000));

    // Different lengths per rank, an empty one included.
    const Bytes mine = bytesOf(group.rank(), static_cast<std::size_t>(group.rank()) * 5);
    const auto at_root = group.gather(mine, 0);
    const auto everywhere = group.allGather(mine);
    if (group.rank() == 0) {
      ASSERT_EQ(at_root.size(), static_cast<std::size_t>(ranks));
      for (int r = 0; r < ranks; ++r) EXPECT_EQ(at_root[static_cast<std::size_t>(r)], bytesOf(r, r * 5u));
    } else {
      EXPECT_TRUE(at_root.empty());
    }
    ASSERT_EQ(everywhere.size(), static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) EXPECT_EQ(everywhere[static_cast<std::size_t>(r)], bytesOf(r, r * 5u));
  });
}

TEST_P(OnRanks, AgreementFailsWhenAnyRankFails) {
  const int ranks = GetParam();
  for (int failing = -1; failing < ranks; ++failing)
    runOnRanks(ranks, [&](Communicator& group) {
      EXPECT_EQ(allRanksAgree(group, group.rank() != failing), failing < 0) << "failing rank " << failing;
    });
}

TEST_P(OnRanks, LocalRanksCountWithinEachHost) {
  const int ranks = GetParam();
  runOnRanks(
      ranks,
      [&](Communicator& group) {
        EXPECT_EQ(group.localRank(), group.rank() % 2);
        EXPECT_EQ(group.localSize(), std::min(2, ranks - group.rank() / 2 * 2));
      },
      2);
}

INSTANTIATE_TEST_SUITE_P(Ranks, OnRanks, ::testing::Values(1, 2, 3, 5));

TEST(Communicator, AnExceptionOnEveryRankReachesTheCaller) {
  EXPECT_THROW(runOnRanks(3, [](Communicator&) { throw std::runtime_error("fails alike"); }), std::runtime_error);
}

}  // namespace
}  // namespace bovw
