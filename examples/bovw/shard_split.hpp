// How `bovw index --shards` splits a folder's images: contiguous runs (so that shard order, then id,
// is the unsharded id order) of about equal bytes (a proxy for extraction and posting work).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bovw::cli {

// The shard (0 .. parts-1) of each image, non-decreasing. An image goes to the part its bytes'
// midpoint falls in when the total is cut into `parts` equal lengths; with no bytes at all (sizes
// unknown), every image counts as one. Parts may be empty when there are fewer images than parts.
std::vector<std::size_t> splitBySize(const std::vector<std::uintmax_t>& sizes, std::size_t parts);

}  // namespace bovw::cli
