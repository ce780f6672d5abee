// The processes of one job and the few collective operations that bovw's distributed steps need:
// exact integer sums, maxima, broadcasts and gathers of bytes. Written against this interface,
// training, indexing and sharded search run the same code in one process (singleProcess(), the
// `bovw` program) and in R MPI ranks (bovw/mpi_communicator.hpp, the `bovw-mpi` program), so a
// distributed result can be compared with, and made equal to, the single-process one.
//
// Every operation but post/next/completePosts is collective: all ranks call it, in the same order,
// with the same root and the same counts where counts are given; a rank that stops calling leaves the others waiting (a step
// that may fail on one rank ends with bovw/rank_agreement.hpp's agreement; otherwise the MPI program
// aborts the whole job when a rank fails, docs/SCALING.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace bovw {

using Bytes = std::vector<std::uint8_t>;

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;  // 0 .. size() - 1
  virtual int size() const = 0;
  // The rank's index among the ranks of its host and how many share that host: rank r of a host
  // with G GPUs uses GPU (localRank() mod G).
  virtual int localRank() const = 0;
  virtual int localSize() const = 0;

  // values[i] = the sum over ranks of values[i], in place. Integer sums are exact, so the result does
  // not depend on the number of ranks or the order of the reduction.
  virtual void sum(std::int64_t* values, std::size_t count) = 0;
  // values[i] = the maximum over ranks, in place.
  virtual void max(double* values, std::size_t count) = 0;
  // `bytes` of rank `root` on every rank (resized there).
  virtual void broadcast(Bytes& bytes, int root) = 0;
  // Every rank's `bytes`, indexed by rank, on `root`; an empty list on the other ranks.
  virtual std::vector<Bytes> gather(const Bytes& bytes, int root) = 0;
  // Every rank's `bytes`, indexed by rank, on every rank.
  virtual std::vector<Bytes> allGather(const Bytes& bytes) = 0;

  // Point to point, not collective: results streamed to one rank while the others still work
  // (src/pipeline/result_stream.hpp). The messages from one rank to another arrive in the order
  // they were posted, apart from the collectives' traffic.
  // Starts sending `bytes` to rank `destination` and returns at once (the bytes are kept until sent).
  virtual void post(Bytes bytes, int destination) = 0;
  // The next message that rank `source` posted to this rank: with `wait`, waits for it; without,
  // std::nullopt when none has arrived yet.
  virtual std::optional<Bytes> next(int source, bool wait) = 0;
  // Waits until the bytes of every message this rank posted have left it (the receivers may still
  // have to take them with next()).
  virtual void completePosts() = 0;
};

// The one-process group (rank 0 of 1): every collective returns its own input; what it posts to
// itself, next() returns.
Communicator& singleProcess();

// Collectives built on the ones above.
// The sum of one value over all ranks.
std::int64_t sumOverRanks(Communicator& ranks, std::int64_t value);
// Each rank's `value`, indexed by rank, on every rank.
std::vector<std::int64_t> valuesOfRanks(Communicator& ranks, std::int64_t value);
// Whether every rank passed `ok == true`; all ranks get the same answer (a commit point: write
// outputs only when every rank has succeeded so far).
bool allRanksAgree(Communicator& ranks, bool ok);

}  // namespace bovw
