// `bovw-mpi index --profile`: where each rank's time went, from the start of its process to the end
// of the command, printed by rank 0 as one table on stderr (a line per rank, then the sums over the
// ranks and the slowest rank's figure of each column).
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/image_search.hpp>

namespace bovw::cli {

// The table's clock: seconds since this process started (process_age.hpp: loading the libraries and
// MPI's start-up count too), or where /proc is not there, since the program's static initialisation.
double rankClock();

// Collective: every rank's `indexed` (indexFolder's profile) with the seconds from its process start
// to the call (`before`: MPI, the vocabulary, the device choice) and from then to now, gathered and
// printed on rank 0's stderr.
void printRankProfiles(Communicator& ranks, double before, const IndexProfile& indexed, double total);

}  // namespace bovw::cli
