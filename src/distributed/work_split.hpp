// Which rank of a job handles which files. Rank 0 lists the inputs and every rank receives that one
// list (broadcastFileList), so all ranks split the same list the same way: into contiguous parts of
// about equal bytes (splitBySize: bytes are a proxy for decoding and extraction work), part p going
// to rank p mod R (rankOfPart). Because parts are contiguous and dealt in order, the results of the
// ranks put back in list order are what one process computes over the whole list.
#pragma once

#include <bovw/communicator.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bovw {

struct FileList {
  std::vector<std::string> paths;
  std::vector<std::uintmax_t> sizes;  // bytes of each file; 0 where unknown
};

// The files' sizes, 0 for a file whose size cannot be read (it fails later, where it is read).
FileList withFileSizes(std::vector<std::string> paths);

// `list` of rank `root` on every rank (a collective call; the other ranks' `list` is ignored).
FileList broadcastFileList(Communicator& ranks, const FileList& list, int root = 0);

// The part (0 .. parts-1) of each file, non-decreasing: a file goes to the part its bytes' midpoint
// falls in when the total is cut into `parts` equal lengths; with no bytes at all (sizes unknown),
// every file counts as one. Parts may be empty when there are fewer files than parts.
std::vector<std::size_t> splitBySize(const std::vector<std::uintmax_t>& sizes, std::size_t parts);

// The rank that handles part `part` of a job of `ranks` ranks: parts dealt round robin.
int rankOfPart(std::size_t part, int ranks);

// The files of `list` (their paths, in list order) whose part (from splitBySize) `rank` handles.
std::vector<std::string> filesOfRank(const FileList& list, const std::vector<std::size_t>& part_of, int ranks,
                                     int rank);

}  // namespace bovw
