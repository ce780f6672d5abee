// The MPI communicator. MPI counts are ints, so byte transfers go in chunks of at most 1 GiB and
// reductions in chunks of at most INT_MAX elements: a gathered index may be larger than 2 GiB.
// Posted messages are a length (one uint64) and the chunks, all nonblocking sends under one tag of
// their own: MPI keeps the messages of one sender, tag and communicator in order, so a receiver that
// has matched a length takes the chunks that follow it.
//
// Open MPI moves a large message only while both ranks are inside MPI calls (it has no progress
// thread of its own), and a rank calls MPI between its batches only: most of what the ranks of a
// distributed index streamed to rank 0 used to arrive after the work, and rank 0 then took it in
// while the others waited (docs/SCALING.md). Where MPI allows calls from several threads
// (MPI_THREAD_MULTIPLE), a thread of the communicator therefore moves the posted messages on, both
// ways, from the first post() or next() until the communicator ends.
#include <bovw/error.hpp>
#include <bovw/mpi_communicator.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <thread>

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
  explicit MpiCommunicator(bool threaded) : threaded_(threaded) {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "Comm_size");
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_), "Comm_split_type");
    check(MPI_Comm_rank(host_, &local_rank_), "Comm_rank (host)");
    check(MPI_Comm_size(host_, &local_size_), "Comm_size (host)");
  }
  ~MpiCommunicator() override {
    if (progress_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(streams_);
        stop_ = true;
      }
      progress_.join();
    }
    // A step that failed between post and completePosts: its sends may wait for a receiver that
    // is gone; they are dropped, not waited for (the job ends anyway).
    for (Posted& p : posted_)
      for (MPI_Request& request : p.requests)
        if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    for (auto& [source, messages] : incoming_)
      for (Incoming& in : messages)
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
    std::lock_guard<std::mutex> lock(streams_);
    startProgress();
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
    advance();
  }

  // Messages are taken as they come, from any source, in two steps: the length (small, so it has
  // arrived whole when probed), then receives of its chunks, posted and left to complete; a
  // source's messages are handed on in order. Without `wait` this never blocks, so a rank that looks
  // between its own batches is not held up by a sender busy elsewhere.
  std::optional<Bytes> next(int source, bool wait) override {
    std::unique_lock<std::mutex> lock(streams_);
    startProgress();
    for (;;) {
      advance();
      std::deque<Incoming>& messages = incoming_[source];
      if (!messages.empty() && messages.front().complete) {
        Bytes message = std::move(messages.front().bytes);
        messages.pop_front();
        return message;
      }
      if (!wait) return std::nullopt;
      pause(lock);
    }
  }

  void completePosts() override {
    std::unique_lock<std::mutex> lock(streams_);
    for (;;) {
      advance();
      if (posted_.empty()) return;
      pause(lock);
    }
  }

 private:
  // A message being received from one source: its bytes, unmoved, until its receives complete.
  struct Incoming {
    Bytes bytes;
    std::vector<MPI_Request> requests;
    bool complete = false;
  };
  // A posted message in flight: its bytes and length stay here, unmoved, until its sends complete.
  struct Posted {
    Bytes bytes;
    std::uint64_t length = 0;
    std::vector<MPI_Request> requests;
  };

  // One round of moving messages on, with `streams_` held: sends that have left are dropped, messages
  // whose length has arrived get their chunks' receives, and each source's first unfinished message
  // is checked. Returns whether anything moved.
  bool advance() {
    bool moved = false;
    for (auto it = posted_.begin(); it != posted_.end();) {
      int done = 0;
      check(MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done, MPI_STATUSES_IGNORE),
            "Testall");
      moved |= done != 0;
      it = done ? posted_.erase(it) : std::next(it);
    }
    for (;;) {
      int arrived = 0;
      MPI_Status status;
      check(MPI_Iprobe(MPI_ANY_SOURCE, kPostTag, MPI_COMM_WORLD, &arrived, &status), "Iprobe");
      if (!arrived) break;
      std::uint64_t length = 0;
      check(MPI_Recv(&length, 1, MPI_UINT64_T, status.MPI_SOURCE, kPostTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv");
      Incoming& in = incoming_[status.MPI_SOURCE].emplace_back();
      in.bytes.resize(length);
      inChunks(in.bytes.size(), [&](std::size_t offset, int count) {
        in.requests.emplace_back();
        check(MPI_Irecv(in.bytes.data() + offset, count, MPI_BYTE, status.MPI_SOURCE, kPostTag, MPI_COMM_WORLD,
                        &in.requests.back()),
              "Irecv");
      });
      moved = true;
    }
    for (auto& [source, messages] : incoming_)
      for (Incoming& in : messages) {
        if (in.complete) continue;
        int done = 0;
        check(MPI_Testall(static_cast<int>(in.requests.size()), in.requests.data(), &done, MPI_STATUSES_IGNORE),
              "Testall");
        if (!done) break;  // the source's later messages cannot be complete before this one
        in.complete = true;
        moved = true;
      }
    if (moved) moved_.notify_all();
    return moved;
  }

  // Waits a moment for the progress thread to move something on (without one: just tries again).
  void pause(std::unique_lock<std::mutex>& lock) {
    if (progress_.joinable()) moved_.wait_for(lock, std::chrono::microseconds(200));
  }

  void startProgress() {
    if (!threaded_ || progress_.joinable()) return;
    progress_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(streams_);
      while (!stop_) {
        bool moved = false;
        try {
          moved = advance();
        } catch (...) {
          return;  // the calling thread meets the same failure in its own next MPI call
        }
        // Let the calling thread in between rounds; a round that moved nothing waits a little.
        lock.unlock();
        if (moved) std::this_thread::yield();
        else std::this_thread::sleep_for(std::chrono::microseconds(100));
        lock.lock();
      }
    });
  }

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
  // The streams: post(), next(), completePosts() and the progress thread, under streams_.
  bool threaded_ = false;  // MPI_THREAD_MULTIPLE: the progress thread may run
  std::mutex streams_;
  std::condition_variable moved_;
  std::thread progress_;
  bool stop_ = false;
  std::list<Posted> posted_;  // a list: its elements never move while MPI holds their addresses
  std::map<int, std::deque<Incoming>> incoming_;  // by source, in order; a deque keeps its elements in place at both ends
};

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "Init_thread");
  world_ = std::make_unique<MpiCommunicator>(provided >= MPI_THREAD_MULTIPLE);
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
