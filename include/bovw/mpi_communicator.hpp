// MPI for bovw's distributed steps (library bovw::bovw_mpi, built when CMake finds MPI): the job's
// ranks as a Communicator (bovw/communicator.hpp). The thread that made the session calls MPI, and,
// where MPI allows calls from several threads (MPI_THREAD_MULTIPLE, asked for), a thread of the
// communicator that moves streamed messages on (post/next); OpenMP threads and device queues inside
// a rank never do.
#pragma once

#include <bovw/communicator.hpp>

#include <memory>

namespace bovw {

// MPI for the lifetime of this object: MPI_Init_thread on construction, MPI_Finalize on
// destruction. One per process.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  // MPI_COMM_WORLD; localRank() and localSize() count the ranks of this host (MPI_COMM_TYPE_SHARED).
  Communicator& world() { return *world_; }
  // Ends every rank of the job with `status` (MPI_Abort): for a rank that fails while the others may
  // be waiting for it in a collective operation.
  [[noreturn]] void abort(int status);

 private:
  std::unique_ptr<Communicator> world_;
};

}  // namespace bovw
