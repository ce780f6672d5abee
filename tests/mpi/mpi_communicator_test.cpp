// The MPI communicator's collectives and posted messages, run under `mpirun -np 2` (tests/distributed/CMakeLists.txt):
// what the thread ranks' test checks, across real processes. Every rank runs every test; a failure
// on any rank fails the run (mpirun's exit status).
#include <bovw/mpi_communicator.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <thread>

namespace bovw {
namespace {

MpiSession* session = nullptr;

Bytes bytesOf(int rank, std::size_t length) {
  Bytes bytes(length);
  for (std::size_t i = 0; i < length; ++i) bytes[i] = static_cast<std::uint8_t>(rank * 31 + i);
  return bytes;
}

TEST(MpiCommunicator, RanksAndHosts) {
  Communicator& world = session->world();
  EXPECT_GE(world.size(), 2);
  EXPECT_LT(world.rank(), world.size());
  EXPECT_LT(world.localRank(), world.localSize());
  EXPECT_LE(world.localSize(), world.size());
  EXPECT_EQ(sumOverRanks(world, 1), world.size());
}

TEST(MpiCommunicator, ExactSumsAndMaxima) {
  Communicator& world = session->world();
  std::vector<std::int64_t> values = {(std::int64_t{1} << 60) + world.rank(), -world.rank()};
  world.sum(values.data(), values.size());
  std::int64_t first = 0, second = 0;
  for (int r = 0; r < world.size(); ++r) first += (std::int64_t{1} << 60) + r, second -= r;
  EXPECT_EQ(values[0], first);
  EXPECT_EQ(values[1], second);
  double maximum = world.rank() * 1.5;
  world.max(&maximum, 1);
  EXPECT_EQ(maximum, (world.size() - 1) * 1.5);
  EXPECT_FALSE(allRanksAgree(world, world.rank() != 1));
  EXPECT_TRUE(allRanksAgree(world, true));
}

TEST(MpiCommunicator, BroadcastAndGathersOfUnequalLengths) {
  Communicator& world = session->world();
  const int root = world.size() - 1;
  Bytes bytes = world.rank() == root ? bytesOf(root, 100000) : Bytes{};
  world.broadcast(bytes, root);
  EXPECT_EQ(bytes, bytesOf(root, 100000));
  const Bytes mine = bytesOf(world.rank(), static_cast<std::size_t>(world.rank()) * 70001);
  const auto at_root = world.gather(mine, 0);
  const auto everywhere = world.allGather(mine);
  if (world.rank() == 0) {
    ASSERT_EQ(at_root.size(), static_cast<std::size_t>(world.size()));
    for (int r = 0; r < world.size(); ++r) EXPECT_EQ(at_root[static_cast<std::size_t>(r)], bytesOf(r, r * 70001u));
  } else {
    EXPECT_TRUE(at_root.empty());
  }
  ASSERT_EQ(everywhere.size(), static_cast<std::size_t>(world.size()));
  for (int r = 0; r < world.size(); ++r) EXPECT_EQ(everywhere[static_cast<std::size_t>(r)], bytesOf(r, r * 70001u));
}

// Posted messages arrive in order and whole: many small ones, an empty one, and large ones (past
// the eager limits, so that their sends need the receiver) posted before the receiver looks, while
// it is busy with a collective.
TEST(MpiCommunicator, PostedMessagesArriveInOrderWhileTheReceiverWorks) {
  Communicator& world = session->world();
  const std::vector<std::size_t> lengths = {1, 0, 5, 3000000, 17, 2500000, 0, 64};
  if (world.rank() != 0)
    for (std::size_t i = 0; i < lengths.size(); ++i) world.post(bytesOf(world.rank() + static_cast<int>(i), lengths[i]), 0);
  EXPECT_EQ(sumOverRanks(world, 1), world.size());  // a collective while the sends are in flight
  if (world.rank() == 0) {
    for (int r = 1; r < world.size(); ++r) {
      std::size_t taken = 0;
      while (taken < lengths.size()) {  // some without waiting, the rest waited for
        std::optional<Bytes> message = world.next(r, taken % 2 == 1);
        if (!message) continue;
        EXPECT_EQ(*message, bytesOf(r + static_cast<int>(taken), lengths[taken])) << "rank " << r << ", message " << taken;
        ++taken;
      }
      EXPECT_FALSE(world.next(r, false).has_value());  // nothing more
    }
  }
  world.completePosts();
  EXPECT_EQ(sumOverRanks(world, 1), world.size());
}

// Where MPI allows calls from several threads, posted messages move while neither rank is inside an
// MPI call (the communicator's thread): the other ranks' large sends complete while rank 0 sleeps,
// and rank 0 then finds them whole without waiting. Without that thread (Open MPI moves a large
// message only inside calls of both sides) the senders would wait until rank 0 looked.
TEST(MpiCommunicator, PostedMessagesMoveWhileTheRanksAreOutsideMpi) {
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI gives no MPI_THREAD_MULTIPLE here";
  Communicator& world = session->world();
  constexpr std::size_t kLength = 24u << 20;  // far past any eager limit
  using Clock = std::chrono::steady_clock;
  EXPECT_EQ(sumOverRanks(world, 1), world.size());
  if (world.rank() == 0) {
    (void)world.next(1, false);  // nothing yet; starts this rank's side
    std::this_thread::sleep_for(std::chrono::seconds(4));  // busy elsewhere: no MPI call
    for (int r = 1; r < world.size(); ++r) {
      std::optional<Bytes> message = world.next(r, false);
      ASSERT_TRUE(message.has_value()) << "rank " << r << "'s message had not arrived after 4 s";
      EXPECT_EQ(*message, bytesOf(r, kLength));
    }
  } else {
    world.post(bytesOf(world.rank(), kLength), 0);
    const auto start = Clock::now();
    world.completePosts();
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    EXPECT_LT(waited, 3.0) << "the send waited for rank 0's next MPI call";
  }
  EXPECT_EQ(sumOverRanks(world, 1), world.size());
}

}  // namespace
}  // namespace bovw

int main(int argc, char** argv) {
  bovw::MpiSession mpi(argc, argv);
  bovw::session = &mpi;
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  // Every rank exits with the job's verdict, so a failure on rank 1 fails mpirun too.
  return bovw::sumOverRanks(mpi.world(), failed) != 0 ? 1 : 0;
}
