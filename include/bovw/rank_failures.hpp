// A failure that one rank of a job meets (a shard it cannot read, a bad query) raised on every rank
// alike, so that no rank waits in a collective operation for one that has given up, and every rank
// reports the same error. The price is one exact sum over the ranks per checked step.
#pragma once

#include <bovw/communicator.hpp>

#include <cstdint>
#include <exception>

namespace bovw {

// Collective. Returns if no rank passes a failure. Otherwise every rank throws the failure with
// the least `order` (ties: the least rank), e.g. the first shard that failed when `order` is the
// shard's index: the rank that met it rethrows `failure` itself; the others throw the same kind of
// bovw exception (InvalidInput with its files and problem, IoError, CapacityError, else Error) with
// the same message.
void throwIfAnyRankFailed(Communicator& ranks, std::exception_ptr failure, std::int64_t order = 0);

}  // namespace bovw
