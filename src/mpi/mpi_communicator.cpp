// The MPI communicator. MPI counts are ints, so byte transfers go in chunks of at most 1 GiB and
// reductions in chunks of at most INT_MAX elements: a gathered index may be larger than 2 GiB.
#include <bovw/error.hpp>
#include <bovw/mpi_communicator.hpp>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

namespace bovw {

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 30;
constexpr int kGatherTag = 7301;

void check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string("MPI ") + what + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// Calls send(offset, count) for consecutive chunks of `bytes` bytes.
template <typename Transfer>
void inChunks(std::size_t bytes, Transfer transfer) {
  for (std::size_t offset = 0; offset < bytes; offset += kChunkBytes)
    transfer(offset, static_cast<int>(std::min(kChunkBytes, bytes - offset)));
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "Comm_size");
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_), "Comm_split_type");
    check(MPI_Comm_rank(host_, &local_rank_), "Comm_rank (host)");
    check(MPI_Comm_size(host_, &local_size_), "Comm_size (host)");
  }
  ~MpiCommunicator() override { MPI_Comm_free(&host_); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int localRank() const override { return local_rank_; }
  int localSize() const override { return local_size_; }

  void sum(std::int64_t* values, std::size_t count) override { reduce(values, count, MPI_INT64_T, MPI_SUM); }
  void max(double* values, std::size_t count) override { reduce(values, count, MPI_DOUBLE, MPI_MAX); }

  void broadcast(Bytes& bytes, int root) override {
    std::uint64_t length = bytes.size();
    check(MPI_Bcast(&length, 1, MPI_UINT64_T, root, MPI_COMM_WORLD), "Bcast");
    bytes.resize(length);
    inChunks(length, [&](std::size_t offset, int count) {
      check(MPI_Bcast(bytes.data() + offset, count, MPI_BYTE, root, MPI_COMM_WORLD), "Bcast");
    });
  }

  std::vector<Bytes> gather(const Bytes& bytes, int root) override {
    std::uint64_t length = bytes.size();
    std::vector<std::uint64_t> lengths(rank_ == root ? static_cast<std::size_t>(size_) : 0);
    check(MPI_Gather(&length, 1, MPI_UINT64_T, lengths.data(), 1, MPI_UINT64_T, root, MPI_COMM_WORLD), "Gather");
    if (rank_ != root) {
      inChunks(bytes.size(), [&](std::size_t offset, int count) {
        check(MPI_Send(bytes.data() + offset, count, MPI_BYTE, root, kGatherTag, MPI_COMM_WORLD), "Send");
      });
      return {};
    }
    std::vector<Bytes> all(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      Bytes& part = all[static_cast<std::size_t>(r)];
      if (r == root) {
        part = bytes;
        continue;
      }
      part.resize(lengths[static_cast<std::size_t>(r)]);
      inChunks(part.size(), [&](std::size_t offset, int count) {
        check(MPI_Recv(part.data() + offset, count, MPI_BYTE, r, kGatherTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv");
      });
    }
    return all;
  }

  std::vector<Bytes> allGather(const Bytes& bytes) override {
    std::vector<Bytes> all(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      Bytes& part = all[static_cast<std::size_t>(r)];
      if (r == rank_) part = bytes;
      broadcast(part, r);
    }
    return all;
  }

 private:
  template <typename T>
  void reduce(T* values, std::size_t count, MPI_Datatype type, MPI_Op op) {
    for (std::size_t offset = 0; offset < count; offset += INT_MAX) {
      const int n = static_cast<int>(std::min<std::size_t>(INT_MAX, count - offset));
      check(MPI_Allreduce(MPI_IN_PLACE, values + offset, n, type, op, MPI_COMM_WORLD), "Allreduce");
    }
  }

  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  MPI_Comm host_ = MPI_COMM_NULL;
};

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "Init_thread");
  world_ = std::make_unique<MpiCommunicator>();
}

MpiSession::~MpiSession() {
  world_.reset();
  MPI_Finalize();
}

void MpiSession::abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest if it did
}

}  // namespace bovw
