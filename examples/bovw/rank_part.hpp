// Which images of a list a rank works on: contiguous parts of about equal bytes, one per rank, so the
// ranks' results in rank order are in the list's order (what makes a distributed result equal to the
// single-process one). Rank 0 reads the file sizes (one stat per file, not one per file and rank)
// and shares the cuts.
#pragma once

#include <bovw/communicator.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace bovw::cli {

struct ImageRange {
  std::size_t first = 0;  // the rank's images are [first, last) of the list
  std::size_t last = 0;
};

// This rank's part of `images` (the same list on every rank). Collective.
ImageRange rankPart(const std::vector<std::string>& images, Communicator& ranks);

}  // namespace bovw::cli
