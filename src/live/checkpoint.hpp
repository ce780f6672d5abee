// A live database's checkpoint: its in-memory index as of one write (the names by id and every
// posting list in its in-memory form, index/posting_list_raw.cpp) in the table `checkpoint`, so
// that open() takes lists instead of rebuilding them from every image's record (19 s at a million
// images, 28 ns a posting), or reads them in place where LMDB maps them (no copy into fresh memory),
// then replays the writes after it from the change feed. It is derived
// data: one that is damaged, written on a host of the other byte order, or made for another
// vocabulary is refused and the records are read instead; nothing is lost. It is written in one
// LMDB write, so a kill -9 during it leaves the one before. Layout in docs/FORMATS.md.
#pragma once

#include "index/incremental_norms.hpp"
#include "index/index_data.hpp"
#include "live/huge_pages.hpp"
#include "live/list_region.hpp"
#include "live/lmdb_store.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bovw::live_detail {

// Lists read in place from a region of the process's memory, and the word of each of its lists.
struct RegionLists {
  std::unique_ptr<ListRegion> region;
  std::vector<std::uint32_t> words;
};

struct Checkpoint {
  std::uint64_t generation = 0;  // the write whose state it holds
  // The memory that the lists the writes after it change (by removals) were made in and, with
  // ListReading::Copy, those they leave as they are were copied into: the lists read them in place. A
  // region for each part of the lists that a core read. Declared before `index`, whose lists read
  // them. `index` holds the checkpoint's lists in its first segment (sealed) and those of the images
  // added after it in a second.
  std::vector<RegionLists> regions;
  index_detail::IndexData index;
};

// Where the checkpoint's state lies in LMDB's map in `txn`'s snapshot, null when there is none. A
// checkpoint is only ever replaced whole (writeCheckpoint), on pages of its own: the same address in
// a later snapshot means the same checkpoint on the same pages, which lists read in place may go on
// reading in that snapshot.
const void* checkpointAddress(const LmdbTransaction& txn, MDB_dbi table);

// Replaces the table's content with `index`, the state after write `generation`, and `norms`, the
// default scoring's norms of it (null: none kept; an open then computes them from every posting).
void writeCheckpoint(LmdbTransaction& txn, MDB_dbi table, const index_detail::IndexData& index, std::uint64_t generation,
                     std::uint64_t changes, const index_detail::IncrementalNorms* norms);

// The write whose state the checkpoint in `table` holds, none when there is none. Throws
// InvalidInput naming `source` and the problem when its state is damaged or of the other byte order.
std::optional<std::uint64_t> checkpointGeneration(const LmdbTransaction& txn, MDB_dbi table, const std::string& source);

// What the writes after the checkpoint's changed, for readCheckpoint to apply as it reads the
// lists: the images they added, with their postings by word (a counting sort of their records), each
// word's made into its list in a segment of their own (IndexData::segments) with its end in the cache
// (applied image by image, every list's end missed the cache: 28 ns a posting, 2.2 s for an eighth of
// a million images); and the checkpoint's images they removed, taken out of the lists they are in.
struct WritesAfter {
  struct Posting {
    ImageId image;
    std::int32_t count;  // >= 1
  };
  std::vector<ImageId> added;          // ascending, above every id of the checkpoint
  std::vector<std::string> names;      // parallel to added
  std::vector<std::uint64_t> starts;   // K + 1: word w's postings are [starts[w], starts[w + 1])
  // By word, ids ascending within each word, in `memory`. Not a vector, which would zero 60 million
  // postings first (an eighth of a million images written after the checkpoint); in huge pages,
  // since the kernel's faults on these 480 MB in small pages were 4-5% of such an open's time. One
  // array, not ids and counts apart, so that the sort's scattered writes touch one line a posting.
  HugePages memory;
  Posting* postings = nullptr;
  std::vector<ImageId> removed;        // of the checkpoint's images
  std::vector<std::uint8_t> removed_from;  // by word: 1 where a removed image has a posting
  std::uint64_t next_id = 0;           // the id after them all
};

// How readCheckpoint takes the lists that `after` leaves as they are: copied into the checkpoint's
// regions (which must outlive the lists), or read in place where LMDB maps them, which needs `txn`
// kept open while any of them is read. The lists `after` changes are made in the regions either way.
enum class ListReading { Copy, InPlace };

// The checkpoint in `table` with `after` applied (null: nothing), none when there is no checkpoint
// or once `abandon` (null: never) is set, which the lists' readers look at between lists. Throws
// InvalidInput naming `source` and the problem for one that is damaged, of the other byte order, of
// another vocabulary than `vocabulary`, or that `after` does not fit (ids it holds added, ids it does
// not hold removed). The lists are checked on every core.
std::optional<Checkpoint> readCheckpoint(const LmdbTransaction& txn, MDB_dbi table, const VocabularySignature& vocabulary,
                                         const std::string& source, const WritesAfter* after = nullptr,
                                         ListReading reading = ListReading::Copy,
                                         const std::atomic<bool>* abandon = nullptr);

// The default scoring's norms of `now`, the checkpoint in `table` (read by readCheckpoint) with the
// writes after it applied: those the checkpoint keeps, brought up to `now` in the time of the words
// and images those writes changed (IncrementalNorms' resuming constructor), so that the first query
// after an open need not compute them from every posting (1.4-2.1 s at a million images on the 2-core
// VM). Null when the checkpoint keeps none (one written before they were kept) or keeps them for
// other options than today's default. Throws InvalidInput naming `source` and the problem for kept
// norms that are damaged or not of this checkpoint.
std::shared_ptr<const index_detail::IncrementalNorms> readCheckpointNorms(const LmdbTransaction& txn, MDB_dbi table,
                                                                         const index_detail::IndexData& now,
                                                                         const std::string& source);

}  // namespace bovw::live_detail
