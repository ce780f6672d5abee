// What an inverted index holds and persists, shared by the index (inverted_index.cpp) and its file
// format (index_file.cpp). Everything derived from it (idf, norms) is recomputed, never stored in
// the file (a live database's checkpoint keeps the default scoring's norms beside it: checkpoint.hpp).
#pragma once

#include "index/posting_list.hpp"

#include <bovw/inverted_index.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace bovw::index_detail {

// Largest vocabulary: the posting lists cost 48 bytes per word even when empty, so this also
// bounds what a (crafted) index file can make the loader allocate before its lists are read.
constexpr std::uint32_t kMaxWords = 1u << 24;
// Ids are 32-bit and never reused; the last value is kept free as "no id".
constexpr std::uint64_t kMaxIds = 0xffffffffull;
constexpr std::size_t kMaxDescriptorTypeLength = 255;


struct IndexData {
  VocabularySignature vocabulary;
  std::vector<std::string> names;                   // by id; "" marks a removed id
  std::unordered_map<std::string, ImageId> ids;     // live names
  std::vector<PostingList> postings;                // by word: images with count > 0, ascending id

  std::size_t live() const { return ids.size(); }
};

// Throws InvalidInput (naming no file) for the first difference between the vocabulary an index
// was built with and `given`: K, D, the descriptor type, or the fingerprint where both recorded one.
void checkSameVocabulary(const VocabularySignature& index, const VocabularySignature& given);

}  // namespace bovw::index_detail
