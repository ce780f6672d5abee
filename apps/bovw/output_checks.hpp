// The outputs of a command, checked before its work: each can be written, none is one of the
// command's inputs, no two are the same file. A bad output then costs nothing, however long the
// work would have taken, and leaves nothing behind.
#pragma once

#include <string>
#include <vector>

namespace bovw::cli {

// A path and what the command line calls it ("--output", "the query image"). An empty path is an
// option not given: not checked.
struct NamedPath {
  std::string name;
  std::string path;
};

// Who writes the outputs in bovw-mpi: rank 0 (the results), or every rank (index --shards: each
// rank its shards, beside the manifest). In `bovw` the one process is both.
enum class Writers { Rank0, EveryRank };

// Throws, naming the output, its path and the problem: "cannot write --output '/new/v.yml': the folder
// '/new' does not exist" (IoError, from bovw::writeProblem: the write's own first step, tried),
// "--output 'q.png' is the query image 'q.png': it would be overwritten" (InvalidInput). Collective
// in bovw-mpi: every rank calls it, the writers check, and every rank fails or none does.
void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs = {},
                  Writers writers = Writers::Rank0);

}  // namespace bovw::cli
