// One image as a live database stores it (the value of its `images` entry): its name, its sparse
// histogram and, when the database stores them, its keypoints, closed by a checksum so that a
// damaged record is refused by name (LMDB keeps no checksums of its own). The layout is in
// docs/FORMATS.md ("Live databases").
#pragma once

#include "index/index_editor.hpp"
#include "retrieval/keypoint_store.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bovw::live_detail {

struct ImageRecord {
  std::string name;
  std::vector<index_detail::WordCount> words;  // ascending, counts >= 1
  std::optional<retrieval_detail::KeypointStore::StoredImage> keypoints;
};

std::string encodeRecord(const ImageRecord& record);
// Throws InvalidInput naming `source` (the database and the image's id) if the bytes are not a
// record of a `words`-word vocabulary: truncated, checksum mismatch, words out of order or range.
ImageRecord decodeRecord(std::string_view bytes, int words, const std::string& source);

// Fixed-width big-endian keys, so that LMDB's byte order is the numbers' order.
std::string idKey(std::uint32_t id);
std::string generationKey(std::uint64_t generation);
std::uint64_t decodeKey(std::string_view key, const std::string& source);

}  // namespace bovw::live_detail
