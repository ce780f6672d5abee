// The single-process group and the collectives composed from a Communicator's operations.
#include <bovw/communicator.hpp>
#include <bovw/error.hpp>

#include <deque>
#include <mutex>

namespace bovw {

namespace {

class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int localRank() const override { return 0; }
  int localSize() const override { return 1; }
  void sum(std::int64_t*, std::size_t) override {}
  void max(double*, std::size_t) override {}
  void broadcast(Bytes&, int) override {}
  std::vector<Bytes> gather(const Bytes& bytes, int) override { return {bytes}; }
  std::vector<Bytes> allGather(const Bytes& bytes) override { return {bytes}; }
  void post(Bytes bytes, int destination) override {
    checkRank(destination);
    std::lock_guard<std::mutex> lock(mutex_);
    posted_.push_back(std::move(bytes));
  }
  std::optional<Bytes> next(int source, bool wait) override {
    checkRank(source);
    std::lock_guard<std::mutex> lock(mutex_);
    if (posted_.empty()) {
      if (wait) throw Error("waiting for a message that no rank posted: the one process would wait forever");
      return std::nullopt;
    }
    Bytes message = std::move(posted_.front());
    posted_.pop_front();
    return message;
  }
  void completePosts() override {}

 private:
  static void checkRank(int rank) {
    if (rank != 0) throw Error("rank " + std::to_string(rank) + " in a group of one process");
  }
  // One group for the whole process: its threads' messages to "rank 0" share one queue (the
  // distributed steps post nothing when there is one rank).
  std::mutex mutex_;
  std::deque<Bytes> posted_;
};

}  // namespace

Communicator& singleProcess() {
  static SingleProcess group;
  return group;
}

std::int64_t sumOverRanks(Communicator& ranks, std::int64_t value) {
  ranks.sum(&value, 1);
  return value;
}

std::vector<std::int64_t> valuesOfRanks(Communicator& ranks, std::int64_t value) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(ranks.size()), 0);
  values[static_cast<std::size_t>(ranks.rank())] = value;
  ranks.sum(values.data(), values.size());
  return values;
}

bool allRanksAgree(Communicator& ranks, bool ok) { return sumOverRanks(ranks, ok ? 0 : 1) == 0; }

}  // namespace bovw
