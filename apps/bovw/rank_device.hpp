// The OpenCL device of each rank of a job: one host's devices shared out among the ranks it runs, for
// the histogrammer and the OpenCL SURF alike. Used by every subcommand of bovw-mpi that computes on
// a device (index, train).
#pragma once

#include <bovw/communicator.hpp>

#include <string>

namespace bovw::cli {

// The device spec this rank should use, for its histograms and its SURF alike. The spec (`chosen`,
// --device, else $BOVW_DEVICE, else the default: every GPU) may match several devices of the host:
// rank r takes matching device (localRank mod their number), as "P:D" (bovw::deviceOfLocalRank).
// A spec that matches none is returned as it is (its error comes where it is used), and so is
// `chosen` in a job of one rank. A collective call: rank 0 logs at info level which device each
// rank uses and, in one warning line, which ranks of one host share a device that a spec pinned
// (or a host with fewer GPUs than ranks).
std::string deviceOfRank(Communicator& ranks, const std::string& chosen);

}  // namespace bovw::cli
