// A writer gets the lock while readers keep overlapping: the turnstile queues new readers behind it.
// (libstdc++'s plain shared_mutex starves it for as long as the readers go on.)
#include "core/writer_fair_mutex.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace bovw::test {
namespace {

using Clock = std::chrono::steady_clock;

TEST(WriterFairMutex, AWriterIsNotStarvedByOverlappingReaders) {
  detail::WriterFairMutex mutex;
  std::atomic<bool> stop{false};
  std::atomic<int> inside{0};
  std::vector<std::thread> readers;
  // Four readers, each holding the read lock 2 ms and taking it again at once: the lock is never free
  // of readers while they run (for 5 s at most).
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  for (int r = 0; r < 4; ++r)
    readers.emplace_back([&, r] {
      std::this_thread::sleep_for(std::chrono::microseconds(500 * r));  // staggered: always one inside
      while (!stop && Clock::now() < deadline) {
        const auto lock = mutex.read();
        ++inside;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        --inside;
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto asked = Clock::now();
  {
    const auto lock = mutex.write();
    EXPECT_EQ(inside.load(), 0);  // exclusive: no reader inside
  }
  const double waited = std::chrono::duration<double>(Clock::now() - asked).count();
  stop = true;
  for (auto& reader : readers) reader.join();
  // A round of readers is 2 ms; the bound leaves room for a loaded CI machine.
  EXPECT_LT(waited, 2.0);
}

}  // namespace
}  // namespace bovw::test
