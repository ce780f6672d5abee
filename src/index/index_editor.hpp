// Changing many images of an inverted index as one step: what a live database applies when it
// opens (every stored image) and when it catches up with a write of another process (the images
// that write added and removed). Queries see the index before the change or after it, never half
// of it. Ids are given, not assigned: they are the store's, which may have gaps (images added and
// removed while this process was not looking).
#pragma once

#include "index/index_data.hpp"
#include "io/byte_writer.hpp"

#include <bovw/inverted_index.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bovw::index_detail {

class IncrementalNorms;

struct WordCount {
  std::uint32_t word;
  std::int32_t count;  // > 0
};

// An image as a live database stores it: its id, name and sparse histogram (words ascending).
struct SparseImage {
  ImageId id = 0;
  std::string name;
  std::vector<WordCount> words;
};

struct IndexChange {
  std::vector<ImageId> removed;    // live ids; removed first
  // Parallel to removed, or empty: each removed image's words (ascending), so that only their posting
  // lists are searched; an empty list, or none, searches every list.
  std::vector<std::vector<std::uint32_t>> removed_words;
  std::vector<SparseImage> added;  // ids ascending, each at least the index's idCount() before the change
  // The id the next image will get once the change is applied (>= every added id + 1): the ids in
  // between were assigned and removed elsewhere and stay unused here too.
  std::uint64_t next_id = 0;
};

struct IndexEditor {
  // Throws InvalidInput naming the problem (an id out of order or not live, a name already
  // indexed, a word outside the vocabulary, a count below 1) before anything changes.
  static void apply(InvertedIndex& index, const IndexChange& change);
  // Makes room for `postings[w]` more postings in each word w's list: a database that adds many
  // images at once (a live database opening) then fills each list once instead of growing it by
  // copies. Throws InvalidInput unless there is one count per word.
  static void reserve(InvertedIndex& index, const std::vector<std::uint64_t>& postings);
  // Puts every list in its form for the ids in use and gives back what it holds beyond its postings:
  // after many images were added at once (a live database opening), where the lists' forms were
  // chosen piece by piece and dense lists grew by half at a time.
  static void trim(InvertedIndex& index);
  // Puts `segments` in place of the index's, which hold the same postings, maybe in other segments (a
  // live database moving its lists onto a newer checkpoint's bytes in LMDB's map, so that it can let
  // go of the snapshot the old ones were read from); where the count of postings of some word differs
  // it throws std::logic_error and changes nothing. Returns the segments replaced, for the caller to
  // free after the lock.
  static std::vector<Segment> replaceLists(InvertedIndex& index, std::vector<Segment> segments);
  // What the index holds, for writing it out whole (a live database's checkpoint): the caller keeps
  // every writer out while it reads (queries may go on).
  static const IndexData& data(const InvertedIndex& index);
  // An index holding `data`, whose lists and names the caller has checked against each other (a
  // live database's checkpoint, read back).
  static InvertedIndex make(IndexData data);
  // The default scoring's (ScoringOptions{}) incremental norms of the index as it stands: those its
  // queries and writers keep, or computed now from every posting where it keeps none. For a live
  // database's checkpoint: the caller keeps every writer out while it reads (queries may go on).
  static std::shared_ptr<const IncrementalNorms> defaultNorms(const InvertedIndex& index);
  // Makes `norms`, of the index's lists as they are, the incremental norms of their options, in place
  // of any held: what the first query with those options would compute (a live database resuming its
  // checkpoint's instead, O(changes) against O(postings)).
  static void adoptNorms(InvertedIndex& index, std::shared_ptr<const IncrementalNorms> norms);
  // Every live image with its sparse histogram, by id: one pass over the posting lists.
  static std::vector<SparseImage> images(const InvertedIndex& index);
  // The index file as a block of an enclosing file (ImageDatabase's), under the index's read lock:
  // u64 its length, then its bytes, streamed (index_file.hpp's writeIndexBlock).
  static void writeBlock(const InvertedIndex& index, detail::ByteWriter& out);
};

}  // namespace bovw::index_detail
