// A step of a distributed job that succeeds on every rank or fails on every rank. A rank that fails
// alone would leave the others waiting in their next collective operation; instead each rank runs
// the step, catches what it throws, and all ranks agree (one collective call) whether every rank
// succeeded. If one did not, every rank throws the same RanksFailed, whose message names the ranks
// that failed and why, so that the job can end cleanly (temporary files removed by their owners'
// destructors, one error line from rank 0) rather than through MPI_Abort.
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/error.hpp>

#include <functional>
#include <string>

namespace bovw {

// Thrown on every rank alike when a step failed on some rank (everyRankOrNone). All ranks know of
// the failure, none waits for another: a program may report it once (rank 0) and exit normally.
class RanksFailed : public Error {
 public:
  using Error::Error;
};

// Runs `step` on this rank; then, collectively, throws RanksFailed on every rank if `step` threw on
// any. Its message is the error itself where every rank failed alike ("cannot read 'V.bovw': ..."),
// else each failed rank's error: "rank 1: cannot write 'S-1.bovwdb': Permission denied". With one
// rank (singleProcess()) the step's own exception propagates unchanged, as without a job.
void everyRankOrNone(Communicator& ranks, const std::function<void()>& step);

}  // namespace bovw
