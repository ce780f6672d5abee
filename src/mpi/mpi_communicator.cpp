// The MPI communicator. MPI counts are ints, so byte transfers go in chunks of at most 1 GiB and
// reductions in chunks of at most INT_MAX elements: a gathered index may be larger than 2 GiB.
// Posted messages are a length (one uint64) and the chunks, all nonblocking sends under one tag of
// their own: MPI keeps the messages of one sender, tag and communicator in order, so a receiver that
// has matched a length takes the chunks that follow it.
#include <bovw/error.hpp>
#include <bovw/mpi_communicator.hpp>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <list>
#include <map>
#include <string>

namespace bovw {

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 30;
constexpr int kGatherTag = 7301;
constexpr int kPostTag = 7302;

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
  ~MpiCommunicator() override {
    // A step that failed between post and completePosts: its sends may wait for a receiver that
    // is gone; they are dropped, not waited for (the job ends anyway).
    for (Posted& p : posted_)
      for (MPI_Request& request : p.requests)
        if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    for (auto& [source, in] : incoming_)
      for (MPI_Request& request : in.requests)
        if (request != MPI_REQUEST_NULL) MPI_Cancel(&request), MPI_Request_free(&request);
    MPI_Comm_free(&host_);
  }

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

  void post(Bytes bytes, int destination) override {
    Posted& p = posted_.emplace_back();
    p.bytes = std::move(bytes);
    p.length = p.bytes.size();
    p.requests.emplace_back();
    check(MPI_Isend(&p.length, 1, MPI_UINT64_T, destination, kPostTag, MPI_COMM_WORLD, &p.requests.back()), "Isend");
    inChunks(p.bytes.size(), [&](std::size_t offset, int count) {
      p.requests.emplace_back();
      check(MPI_Isend(p.bytes.data() + offset, count, MPI_BYTE, destination, kPostTag, MPI_COMM_WORLD,
                      &p.requests.back()),
            "Isend");
    });
    // Drop the messages that have left, and let MPI move the others on.
    for (auto it = posted_.begin(); it != posted_.end();) {
      int done = 0;
      check(MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done, MPI_STATUSES_IGNORE),
            "Testall");
      it = done ? posted_.erase(it) : std::next(it);
    }
  }

  // A message is taken in two steps: its length (small, so it has arrived whole when probed), then
  // receives of its chunks, posted and left to complete; without `wait` this never blocks, so a rank
  // that looks between its own batches is not held up by a sender busy elsewhere.
  std::optional<Bytes> next(int source, bool wait) override {
    Incoming& in = incoming_[source];
    if (!in.started) {
      if (!wait) {
        int arrived = 0;
        check(MPI_Iprobe(source, kPostTag, MPI_COMM_WORLD, &arrived, MPI_STATUS_IGNORE), "Iprobe");
        if (!arrived) return std::nullopt;
      }
      std::uint64_t length = 0;
      check(MPI_Recv(&length, 1, MPI_UINT64_T, source, kPostTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv");
      in.started = true;
      in.bytes.resize(length);
      inChunks(in.bytes.size(), [&](std::size_t offset, int count) {
        in.requests.emplace_back();
        check(MPI_Irecv(in.bytes.data() + offset, count, MPI_BYTE, source, kPostTag, MPI_COMM_WORLD,
                        &in.requests.back()),
              "Irecv");
      });
    }
    const int count = static_cast<int>(in.requests.size());
    if (wait) {
      check(MPI_Waitall(count, in.requests.data(), MPI_STATUSES_IGNORE), "Waitall");
    } else {
      int done = 0;
      check(MPI_Testall(count, in.requests.data(), &done, MPI_STATUSES_IGNORE), "Testall");
      if (!done) return std::nullopt;
    }
    Bytes message = std::move(in.bytes);
    incoming_.erase(source);
    return message;
  }

  void completePosts() override {
    for (Posted& p : posted_)
      check(MPI_Waitall(static_cast<int>(p.requests.size()), p.requests.data(), MPI_STATUSES_IGNORE), "Waitall");
    posted_.clear();
  }

 private:
  // A message being received from one source: its bytes, unmoved, until its receives complete.
  struct Incoming {
    bool started = false;
    Bytes bytes;
    std::vector<MPI_Request> requests;
  };
  // A posted message in flight: its bytes and length stay here, unmoved, until its sends complete.
  struct Posted {
    Bytes bytes;
    std::uint64_t length = 0;
    std::vector<MPI_Request> requests;
  };

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
  std::list<Posted> posted_;  // a list: its elements never move while MPI holds their addresses
  std::map<int, Incoming> incoming_;  // by source; a map's elements do not move either
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
