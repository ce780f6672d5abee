// A failure on one rank of a job becomes a failure on every rank. A rank that fails alone would
// leave the others waiting in their next collective operation; instead each rank hands over what it
// caught (or nothing), the ranks agree whether any failed, and if one did every rank throws the
// same RanksFailed, whose message names the ranks that failed and why. The job can then end
// cleanly (temporary files removed by their owners' destructors, one error line from rank 0)
// rather than through MPI_Abort. With one rank (singleProcess()) nothing changes: the failure
// itself is thrown, with its own type and message, as without a job.
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/error.hpp>

#include <cstdint>
#include <exception>
#include <functional>

namespace bovw {

// Thrown on every rank alike when some rank failed (throwIfAnyRankFailed, everyRankOrNone), only in
// a job of several ranks. All ranks know of the failure, none waits for another: a program may
// report it once (rank 0) and exit normally.
class RanksFailed : public Error {
 public:
  using Error::Error;
};

// Collective: all ranks call it, `failure` null where this rank succeeded. Returns on every rank
// if no rank failed; the success costs one sum of one int64, the failures travel only if there
// are any. With one rank, throws `failure` itself. With several, every rank throws RanksFailed:
// its message is the failure's what() where every rank failed with the same message
// ("cannot read 'V.bovw': ..."), else each failed rank's what() prefixed "rank r: ", joined by
// "; ", in the order of (`order`, rank): "rank 1: 'S-1.bovwdb': truncated; rank 0: ...". Pass
// e.g. the failing shard's index as `order` to name the first failed shard first.
void throwIfAnyRankFailed(Communicator& ranks, std::exception_ptr failure, std::int64_t order = 0);

// Collective: runs `step` on this rank, then throwIfAnyRankFailed with what it threw (if anything)
// and `order`. So a step succeeds on every rank or fails on every rank.
void everyRankOrNone(Communicator& ranks, const std::function<void()>& step, std::int64_t order = 0);

}  // namespace bovw
