// serve::DynamicBatcher (bovw serve's batching of concurrent requests' features): every caller gets the
// result of its own input, batches form while one runs and keep to their limits, and a bad input
// fails only its own call.
#include "serve/dynamic_batcher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bovw::serve {
namespace {

// Squares each input after a pause (the device's time), recording the batches it was given.
struct SlowSquares {
  std::mutex mutex;
  std::vector<std::vector<int>> batches;

  std::vector<long> operator()(const std::vector<int>& inputs) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      batches.push_back(inputs);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::vector<long> squares;
    for (const int x : inputs) {
      if (x < 0) throw std::invalid_argument("negative input " + std::to_string(x));
      squares.push_back(long{x} * x);
    }
    return squares;
  }
};

TEST(DynamicBatcher, EveryCallerGetsItsOwnResultAndBatchesForm) {
  SlowSquares squares;
  std::atomic<std::size_t> observed{0};
  DynamicBatcher<int, long> batcher([&](const std::vector<int>& in) { return squares(in); }, 5,
                                    [](const int&) { return std::size_t{1}; }, 1000,
                                    [&](std::size_t calls) { observed += calls; });
  constexpr int kThreads = 8, kCalls = 40;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const int x = t * 1000 + i;
        if (batcher.call(x) != long{x} * x) ++wrong;
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(observed, std::size_t{kThreads * kCalls});
  std::size_t largest = 0, calls = 0;
  std::vector<int> seen;
  for (const std::vector<int>& batch : squares.batches) {
    EXPECT_LE(batch.size(), 5u);
    largest = std::max(largest, batch.size());
    calls += batch.size();
    seen.insert(seen.end(), batch.begin(), batch.end());
  }
  EXPECT_EQ(calls, std::size_t{kThreads * kCalls});  // each input in exactly one batch
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
  // Eight threads against a 2 ms batch: calls arrive while one runs.
  EXPECT_GT(largest, 1u);
  EXPECT_LT(squares.batches.size(), std::size_t{kThreads * kCalls});
}

TEST(DynamicBatcher, ALoneCallRunsAtOnceAsABatchOfOne) {
  SlowSquares squares;
  DynamicBatcher<int, long> batcher([&](const std::vector<int>& in) { return squares(in); }, 16, {}, 0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(batcher.call(i), long{i} * i);
  ASSERT_EQ(squares.batches.size(), 5u);
  for (const std::vector<int>& batch : squares.batches) EXPECT_EQ(batch.size(), 1u);
}

TEST(DynamicBatcher, ABatchKeepsWithinItsWeightButTakesOneHeavyCall) {
  SlowSquares squares;
  DynamicBatcher<int, long> batcher([&](const std::vector<int>& in) { return squares(in); }, 100,
                                    [](const int& x) { return static_cast<std::size_t>(x % 100); }, 150);
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 30; ++i) {
        const int x = t * 10000 + (i * 37 + t * 11) % 100;  // weights 0 to 99
        EXPECT_EQ(batcher.call(x), long{x} * x);
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (const std::vector<int>& batch : squares.batches) {
    std::size_t weight = 0;
    for (const int x : batch) weight += static_cast<std::size_t>(x % 100);
    if (batch.size() > 1) EXPECT_LE(weight, 150u);
  }
}

TEST(DynamicBatcher, ABadInputFailsOnlyItsOwnCall) {
  SlowSquares squares;
  DynamicBatcher<int, long> batcher([&](const std::vector<int>& in) { return squares(in); }, 8, {}, 0);
  std::atomic<int> failed{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const int x = (i % 5 == t % 5) ? -(t * 100 + i) - 1 : t * 100 + i;
        try {
          const long y = batcher.call(x);
          if (x < 0 || y != long{x} * x) ++wrong;
        } catch (const std::invalid_argument& e) {
          if (x >= 0 || std::string(e.what()) != "negative input " + std::to_string(x)) ++wrong;
          ++failed;
        }
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(failed, 6 * 5);  // each thread's every fifth call
}

}  // namespace
}  // namespace bovw::serve
