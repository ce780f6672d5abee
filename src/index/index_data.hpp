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


// The posting lists of the images of ids [first, the next segment's first), by word: images with
// count > 0, ascending id. Every image's postings lie in one segment, so a query or a pass over the
// lists that takes the segments one after the other adds each image's terms in the same order as one
// list per word would: the same bits.
struct Segment {
  ImageId first = 0;
  std::vector<PostingList> lists;  // by word
  // Read from a live database's checkpoint (in place, or copied whole into a region): images added
  // later go into a segment of their own, so that an open with writes after the checkpoint, and the
  // first write after an open, copy none of these lists to append to them (issue 21: 2.5 GB of lists
  // copied into fresh memory at a million images, most of such an open's time).
  bool sealed = false;
};

struct IndexData {
  VocabularySignature vocabulary;
  std::vector<std::string> names;                   // by id; "" marks a removed id
  std::unordered_map<std::string, ImageId> ids;     // live names
  // At least one, the first from id 0, firsts ascending: one, unless a live database opened a
  // checkpoint with images added after it or added images to one (the checkpoint's lists sealed, the
  // added images' beside them), until its next checkpoint.
  std::vector<Segment> segments{1};

  std::size_t live() const { return ids.size(); }
  std::size_t words() const { return segments.front().lists.size(); }
  // The ids after segment `s`'s.
  ImageId end(std::size_t s) const {
    return s + 1 < segments.size() ? segments[s + 1].first : static_cast<ImageId>(names.size());
  }
  // The images holding word `w`: its postings in every segment.
  std::uint64_t frequency(std::size_t w) const {
    std::uint64_t n = 0;
    for (const Segment& s : segments) n += s.lists[w].size();
    return n;
  }
  std::uint64_t postingCount() const;
  // The segment that holds image `id`'s postings.
  const Segment& segmentOf(ImageId id) const;
  Segment& segmentOf(ImageId id) { return const_cast<Segment&>(static_cast<const IndexData*>(this)->segmentOf(id)); }
  // The lists that images from `first` on (above every id held) are appended to: the last segment's,
  // or a new segment's from `first` where the last is sealed.
  std::vector<PostingList>& growing(ImageId first);
  // Word `w`'s postings of every segment in one list (a copy), in its form for the ids in use.
  PostingList merged(std::size_t w) const;
  // Every segment's lists by word: one pass over every posting in each.
  template <typename F>
  void forEachList(F&& f) const {
    for (const Segment& s : segments)
      for (std::size_t w = 0; w < s.lists.size(); ++w) f(w, s.lists[w]);
  }
};

// forEachPostingByImageBlock (posting_list.hpp) over every segment, one after the other.
template <typename F>
void forEachPostingByImageBlock(const IndexData& data, F&& f) {
  for (std::size_t s = 0; s < data.segments.size(); ++s)
    forEachPostingByImageBlock(data.segments[s].lists, data.segments[s].first, data.end(s), f);
}

// Throws InvalidInput (naming no file) for the first difference between the vocabulary an index
// was built with and `given`: K, D, the descriptor type, or the fingerprint where both recorded one.
void checkSameVocabulary(const VocabularySignature& index, const VocabularySignature& given);

}  // namespace bovw::index_detail
