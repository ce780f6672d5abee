// The `bovw-mpi` program: train, index and search with their work split over MPI ranks
// (mpirun -np R bovw-mpi SUBCOMMAND ...; docs/SCALING.md). A rank that fails may leave the others
// waiting in a collective operation, so a failure in a job of several ranks ends the whole job:
// the failing rank has printed its one error line, and no output was renamed into place (outputs
// are committed only after every rank has succeeded). A failure that every rank knows of (a step
// that the ranks agreed had failed, bovw/rank_agreement.hpp) ends every rank normally instead.
#include "program.hpp"

#include <bovw/mpi_communicator.hpp>

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  bovw::MpiSession mpi(argc, argv);
  bovw::Communicator& world = mpi.world();
  const int status = bovw::cli::runProgram(argc, argv, bovw::cli::Program::Distributed, world);
  if (status == bovw::cli::kFailure && world.size() > 1 && !bovw::cli::failedOnEveryRank()) {
    std::cout.flush();
    std::fflush(stderr);
    mpi.abort(status);
  }
  return status;
}
