// The single-process group and the collectives composed from a Communicator's operations.
#include <bovw/communicator.hpp>

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
