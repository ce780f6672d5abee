// throwIfAnyRankFailed and everyRankOrNone: a failure on some ranks fails every rank with one
// message naming them, in the order given; success returns everywhere at the price of one sum; one
// rank sees its own exception unchanged.
#include "support/thread_communicator.hpp"

#include <bovw/rank_agreement.hpp>

#include <gtest/gtest.h>

#include <ostream>

#include <atomic>
#include <optional>

namespace bovw {
namespace {

// How each rank ends a step run under one of the two functions.
enum class Via { Primitive, Wrapper };

// For gtest's test listing (else it prints the enum's bytes).
void PrintTo(Via via, std::ostream* out) { *out << (via == Via::Primitive ? "throwIfAnyRankFailed" : "everyRankOrNone"); }

// Runs `step` of each rank through everyRankOrNone, or through throwIfAnyRankFailed with what it
// threw, with that rank's `order`.
void agree(Via via, Communicator& group, const std::function<void()>& step, std::int64_t order) {
  if (via == Via::Wrapper) return everyRankOrNone(group, step, order);
  std::exception_ptr failure;
  try {
    step();
  } catch (...) {
    failure = std::current_exception();
  }
  throwIfAnyRankFailed(group, failure, order);
}

// What each rank caught as RanksFailed: "" when nothing.
std::vector<std::string> caughtOnRanks(int ranks, Via via, const std::function<void(int rank)>& step,
                                       const std::function<std::int64_t(int rank)>& order = [](int) { return 0; }) {
  std::vector<std::string> caught(static_cast<std::size_t>(ranks));
  test::runOnRanks(ranks, [&](Communicator& group) {
    try {
      agree(via, group, [&] { step(group.rank()); }, order(group.rank()));
      sumOverRanks(group, 1);  // every rank goes on to the next collective: nobody waits forever
    } catch (const RanksFailed& e) {
      caught[static_cast<std::size_t>(group.rank())] = e.what();
    }
  });
  return caught;
}

// Counts the collective calls that pass through it.
class CountingCommunicator final : public Communicator {
 public:
  explicit CountingCommunicator(Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  int localRank() const override { return inner_.localRank(); }
  int localSize() const override { return inner_.localSize(); }
  void sum(std::int64_t* values, std::size_t count) override {
    ++sums;
    inner_.sum(values, count);
  }
  void max(double* values, std::size_t count) override {
    ++others;
    inner_.max(values, count);
  }
  void broadcast(Bytes& bytes, int root) override {
    ++others;
    inner_.broadcast(bytes, root);
  }
  std::vector<Bytes> gather(const Bytes& bytes, int root) override {
    ++others;
    return inner_.gather(bytes, root);
  }
  std::vector<Bytes> allGather(const Bytes& bytes) override {
    ++gathers;
    return inner_.allGather(bytes);
  }
  void post(Bytes bytes, int destination) override {
    ++others;
    inner_.post(std::move(bytes), destination);
  }
  std::optional<Bytes> next(int source, bool wait) override {
    ++others;
    return inner_.next(source, wait);
  }
  void completePosts() override {
    ++others;
    inner_.completePosts();
  }

  int sums = 0, gathers = 0, others = 0;

 private:
  Communicator& inner_;
};

class RankAgreement : public ::testing::TestWithParam<Via> {};

TEST_P(RankAgreement, SuccessEverywhereReturnsEverywhereForOneSum) {
  for (int ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    std::atomic<int> ran{0};
    EXPECT_EQ(caughtOnRanks(ranks, GetParam(), [&](int) { ++ran; }), std::vector<std::string>(static_cast<std::size_t>(ranks)));
    EXPECT_EQ(ran, ranks);
    test::runOnRanks(ranks, [&](Communicator& group) {
      CountingCommunicator counted(group);
      agree(GetParam(), counted, [] {}, 0);
      EXPECT_EQ(counted.sums, ranks > 1 ? 1 : 0);  // one rank: nothing to agree on
      EXPECT_EQ(counted.gathers, 0);
      EXPECT_EQ(counted.others, 0);
    });
  }
}

TEST_P(RankAgreement, OneRanksFailureFailsEveryRankNamingIt) {
  for (int ranks = 2; ranks <= 4; ++ranks) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const auto caught = caughtOnRanks(ranks, GetParam(), [](int rank) {
      if (rank == 1) throw IoError("cannot write 'S-1.bovwdb': it is a directory");
    });
    for (const auto& message : caught) EXPECT_EQ(message, "rank 1: cannot write 'S-1.bovwdb': it is a directory");
  }
}

TEST_P(RankAgreement, SeveralFailuresAreListedByOrderThenRank) {
  const auto by_rank = caughtOnRanks(4, GetParam(), [](int rank) {
    if (rank % 2 == 0) throw InvalidInput("problem on " + std::to_string(rank));
  });
  for (const auto& message : by_rank) EXPECT_EQ(message, "rank 0: problem on 0; rank 2: problem on 2");
  // The order of a rank's failure (say the shard that failed) before its rank; ties by rank.
  const std::vector<std::int64_t> orders = {5, 2, -1, 2};
  const auto by_order = caughtOnRanks(
      4, GetParam(), [](int rank) { throw IoError("cannot read " + std::to_string(rank)); },
      [&](int rank) { return orders[static_cast<std::size_t>(rank)]; });
  for (const auto& message : by_order)
    EXPECT_EQ(message, "rank 2: cannot read 2; rank 1: cannot read 1; rank 3: cannot read 3; rank 0: cannot read 0");
  // The same message, but not on every rank: the ranks are still named.
  const auto some_alike = caughtOnRanks(3, GetParam(), [](int rank) {
    if (rank > 0) throw InvalidInput("'V.bovw': not a vocabulary");
  });
  for (const auto& message : some_alike)
    EXPECT_EQ(message, "rank 1: 'V.bovw': not a vocabulary; rank 2: 'V.bovw': not a vocabulary");
}

TEST_P(RankAgreement, AFailureOfEveryRankAlikeIsSaidOnce) {
  for (int ranks = 2; ranks <= 4; ++ranks) {
    const auto alike = caughtOnRanks(
        ranks, GetParam(), [](int) { throw InvalidInput("V.bovw", "not a vocabulary"); },
        [](int rank) { return -rank; });
    for (const auto& message : alike) EXPECT_EQ(message, "'V.bovw': not a vocabulary");
  }
  // A failure that is no std::exception, or says nothing, still says that the rank failed.
  const auto odd = caughtOnRanks(3, GetParam(), [](int rank) {
    if (rank == 1) throw 7;
    if (rank == 2) throw Error("");
  });
  for (const auto& message : odd) EXPECT_EQ(message, "rank 1: failed with an unknown exception; rank 2: failed");
}

TEST_P(RankAgreement, OneRankSeesItsOwnException) {
  const InvalidInput thrown(std::vector<std::string>{"a.npy", "b.npy"}, "widths differ");
  try {
    agree(GetParam(), singleProcess(), [&] { throw thrown; }, 3);
    ADD_FAILURE() << "no exception";
  } catch (const RanksFailed&) {
    ADD_FAILURE() << "RanksFailed with one rank";
  } catch (const InvalidInput& e) {
    EXPECT_EQ(std::string(e.what()), thrown.what());
    EXPECT_EQ(e.files(), thrown.files());
  }
  test::runOnRanks(1, [&](Communicator& group) {
    EXPECT_THROW(agree(GetParam(), group, [] { throw IoError("disk full"); }, 0), IoError);
    EXPECT_NO_THROW(agree(GetParam(), group, [] {}, 0));
  });
}

INSTANTIATE_TEST_SUITE_P(BothWays, RankAgreement, ::testing::Values(Via::Primitive, Via::Wrapper),
                         [](const ::testing::TestParamInfo<Via>& info) {
                           return info.param == Via::Primitive ? "ThrowIfAnyRankFailed" : "EveryRankOrNone";
                         });

}  // namespace
}  // namespace bovw
