// The OpenCL device of each rank of a job: one host's GPUs shared out among the ranks it runs, for
// the histogrammer and the OpenCL SURF alike. Used by every subcommand of bovw-mpi that computes on
// a device (index, train).
#pragma once

#include <bovw/communicator.hpp>

#include <string>

namespace bovw::cli {

// The device spec this rank should use. `chosen` (--device) wins, and so does $BOVW_DEVICE, as
// does a job of one rank (all return `chosen`: the usual default choice). Otherwise, with G GPUs on
// the host, rank r uses GPU (localRank mod G) as "P:D"; with no GPU, `chosen` (the default choice:
// the first CPU device). A collective call: rank 0 logs at info level which device each rank uses.
std::string deviceOfRank(Communicator& ranks, const std::string& chosen);

}  // namespace bovw::cli
