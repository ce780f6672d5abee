// The body of both programs, `bovw` (one process) and `bovw-mpi` (every MPI rank runs it): parses
// the command line, runs the subcommand and turns its errors into one line on stderr and an exit
// status: 0 success, 1 failure, 2 usage error.
#pragma once

#include <bovw/communicator.hpp>

namespace bovw::cli {

enum class Program {
  Single,       // bovw: every subcommand
  Distributed,  // bovw-mpi: the subcommands that split their work over ranks (train, index, search)
};

constexpr int kFailure = 1;
constexpr int kUsageError = 2;

int runProgram(int argc, char** argv, Program program, Communicator& ranks);

// The ranks of this run (singleProcess() in `bovw`), for the subcommands.
Communicator& ranks();
// Whether this is bovw-mpi (whatever its number of ranks): there --device (or the rank's share of the
// host's devices, rank_device.hpp) is the device of SURF as well as of the histograms.
bool distributedProgram();
// Whether this rank prints the results and reports (rank 0): the others stay quiet but for errors.
bool printsResults();
// Whether every rank knows that the command failed (it threw bovw::RanksFailed, bovw/rank_agreement.hpp,
// or some rank returned a failure status, which the ranks then share): no rank waits for another,
// so bovw-mpi ends normally with status 1 instead of aborting the job.
bool failedOnEveryRank();

}  // namespace bovw::cli
