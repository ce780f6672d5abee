// An in-process stand-in for MPI ranks: R threads, each with its own ThreadCommunicator, exchange
// their contributions through shared slots. Distributed code can then be tested for any R in one
// test process, without mpirun (the MPI communicator itself has its own test under mpirun).
#pragma once

#include <bovw/communicator.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace bovw::test {

// The shared state of one group of R thread ranks.
class ThreadGroup {
 public:
  explicit ThreadGroup(int size) : size_(size), slots_(static_cast<std::size_t>(size)) {}
  int size() const { return size_; }

  // Point to point: one queue per (sender, receiver), in the order posted.
  void post(int source, int destination, Bytes bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    mail_[{source, destination}].push_back(std::move(bytes));
    changed_.notify_all();
  }
  std::optional<Bytes> next(int source, int destination, bool wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::deque<Bytes>& queue = mail_[{source, destination}];
    if (wait) changed_.wait(lock, [&] { return !queue.empty(); });
    if (queue.empty()) return std::nullopt;
    Bytes message = std::move(queue.front());
    queue.pop_front();
    return message;
  }

  // Every rank's `mine`, indexed by rank: each rank puts its bytes in its slot, all wait for all,
  // copy every slot, and wait again before a slot may be reused.
  std::vector<Bytes> exchange(int rank, Bytes mine) {
    slots_[static_cast<std::size_t>(rank)] = std::move(mine);
    wait();
    std::vector<Bytes> all = slots_;
    wait();
    return all;
  }

 private:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const unsigned long generation = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return generation_ != generation; });
  }

  int size_;
  std::vector<Bytes> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrived_ = 0;
  unsigned long generation_ = 0;
  std::map<std::pair<int, int>, std::deque<Bytes>> mail_;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(ThreadGroup& group, int rank, int ranks_per_host = 1 << 30)
      : group_(group), rank_(rank), per_host_(std::min(ranks_per_host, group.size())) {}

  int rank() const override { return rank_; }
  int size() const override { return group_.size(); }
  int localRank() const override { return rank_ % per_host_; }
  int localSize() const override { return std::min(per_host_, group_.size() - rank_ / per_host_ * per_host_); }

  void sum(std::int64_t* values, std::size_t count) override { combine(values, count, std::plus<std::int64_t>()); }
  void max(double* values, std::size_t count) override {
    combine(values, count, [](double a, double b) { return std::max(a, b); });
  }
  void broadcast(Bytes& bytes, int root) override {
    bytes = group_.exchange(rank_, bytes)[static_cast<std::size_t>(root)];
  }
  std::vector<Bytes> gather(const Bytes& bytes, int root) override {
    auto all = group_.exchange(rank_, bytes);
    return rank_ == root ? all : std::vector<Bytes>{};
  }
  std::vector<Bytes> allGather(const Bytes& bytes) override { return group_.exchange(rank_, bytes); }
  void post(Bytes bytes, int destination) override { group_.post(rank_, destination, std::move(bytes)); }
  std::optional<Bytes> next(int source, bool wait) override { return group_.next(source, rank_, wait); }
  void completePosts() override {}  // a post is delivered at once

 private:
  template <typename T, typename Op>
  void combine(T* values, std::size_t count, Op op) {
    Bytes mine(count * sizeof(T));
    if (count) std::memcpy(mine.data(), values, mine.size());
    const auto all = group_.exchange(rank_, std::move(mine));
    for (std::size_t i = 0; i < count; ++i) {
      T result;
      std::memcpy(&result, all[0].data() + i * sizeof(T), sizeof(T));
      for (std::size_t r = 1; r < all.size(); ++r) {
        T other;
        std::memcpy(&other, all[r].data() + i * sizeof(T), sizeof(T));
        result = op(result, other);
      }
      values[i] = result;
    }
  }

  ThreadGroup& group_;
  int rank_;
  int per_host_;
};

// Runs body(communicator) on `ranks` threads, one rank each, and returns when all are done. An
// exception on any rank is rethrown (the first by rank) after every thread has ended; a body must
// then fail on every rank alike, or the others wait for it forever (as MPI ranks would).
inline void runOnRanks(int ranks, const std::function<void(Communicator&)>& body, int ranks_per_host = 1 << 30) {
  ThreadGroup group(ranks);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      ThreadCommunicator communicator(group, r, ranks_per_host);
      try {
        body(communicator);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace bovw::test
