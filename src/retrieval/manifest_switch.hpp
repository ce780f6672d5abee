// Loading a sharded database while `bovw index --shards` may replace it (docs/FORMATS.md, "Replacing
// a sharded database"): a loader reads the manifest once and opens exactly the files it names; a
// writer that switches the manifest meanwhile and removes the old generation's shards makes that
// load fail on a missing shard, and the loader then tries again with the new manifest.
#pragma once

#include "io/file_bytes.hpp"

#include <string>
#include <vector>

namespace bovw::retrieval_detail {

// Loads of one manifest tried before its failure is reported: more than one switch during a load
// means writers faster than the reader, whose error then names what it met.
constexpr int kManifestAttempts = 3;

// Whether the manifest at `path` now holds other bytes than `text`, as read before: a writer
// switched it. False if it cannot be read now (the failure at hand is then the one to report).
inline bool manifestChanged(const std::string& path, const std::vector<char>& text) {
  try {
    return detail::readFileBytes(path) != text;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace bovw::retrieval_detail
