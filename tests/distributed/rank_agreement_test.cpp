// everyRankOrNone: a step that fails on some ranks fails on all, with one message naming them; a
// step that succeeds everywhere returns everywhere; one rank sees its own exception unchanged.
#include "distributed/thread_communicator.hpp"

#include <bovw/rank_agreement.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

namespace bovw {
namespace {

// What each rank caught from everyRankOrNone(step of that rank): "" when nothing.
std::vector<std::string> caughtOnRanks(int ranks, const std::function<void(int rank)>& step) {
  std::vector<std::string> caught(static_cast<std::size_t>(ranks));
  test::runOnRanks(ranks, [&](Communicator& group) {
    try {
      everyRankOrNone(group, [&] { step(group.rank()); });
      sumOverRanks(group, 1);  // every rank goes on to the next collective: nobody waits forever
    } catch (const RanksFailed& e) {
      caught[static_cast<std::size_t>(group.rank())] = e.what();
    }
  });
  return caught;
}

TEST(RankAgreement, SuccessEverywhereReturnsEverywhere) {
  for (int ranks = 1; ranks <= 4; ++ranks) {
    std::atomic<int> ran{0};
    EXPECT_EQ(caughtOnRanks(ranks, [&](int) { ++ran; }), std::vector<std::string>(static_cast<std::size_t>(ranks)));
    EXPECT_EQ(ran, ranks);
  }
}

TEST(RankAgreement, OneRanksFailureFailsEveryRankNamingIt) {
  const auto caught = caughtOnRanks(3, [](int rank) {
    if (rank == 1) throw IoError("cannot write 'S-1.bovwdb': it is a directory");
  });
  for (const auto& message : caught) EXPECT_EQ(message, "rank 1: cannot write 'S-1.bovwdb': it is a directory");
}

TEST(RankAgreement, SeveralFailuresAreListedByRankAndAFailureOfAllAlikeIsSaidOnce) {
  const auto several = caughtOnRanks(4, [](int rank) {
    if (rank % 2 == 0) throw InvalidInput("problem on " + std::to_string(rank));
  });
  for (const auto& message : several) EXPECT_EQ(message, "rank 0: problem on 0; rank 2: problem on 2");
  const auto alike = caughtOnRanks(3, [](int) { throw InvalidInput("'V.bovw': not a vocabulary"); });
  for (const auto& message : alike) EXPECT_EQ(message, "'V.bovw': not a vocabulary");
}

TEST(RankAgreement, OneRankSeesItsOwnException) {
  EXPECT_THROW(everyRankOrNone(singleProcess(), [] { throw IoError("disk full"); }), IoError);
}

}  // namespace
}  // namespace bovw
