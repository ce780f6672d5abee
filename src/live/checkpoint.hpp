// A live database's checkpoint: its in-memory index as of one write (the names by id and every
// posting list in its in-memory form, index/posting_list_raw.cpp) in the table `checkpoint`, so
// that open() copies lists instead of rebuilding them from every image's record (19 s at a million
// images, 28 ns a posting), then replays the writes after it from the change feed. It is derived
// data: one that is damaged, written on a host of the other byte order, or made for another
// vocabulary is refused and the records are read instead; nothing is lost. It is written in one
// LMDB write, so a kill -9 during it leaves the one before. Layout in docs/FORMATS.md.
#pragma once

#include "index/index_data.hpp"
#include "live/lmdb_store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bovw::live_detail {

struct Checkpoint {
  std::uint64_t generation = 0;  // the write whose state it holds
  std::uint64_t changes = 0;     // the store's count of images added and removed, at that write
  index_detail::IndexData index;
};

// Replaces the table's content with `index`, the state after write `generation`.
void writeCheckpoint(LmdbTransaction& txn, MDB_dbi table, const index_detail::IndexData& index, std::uint64_t generation,
                     std::uint64_t changes);

// The write whose state the checkpoint in `table` holds, none when there is none. Throws
// InvalidInput naming `source` and the problem when its state is damaged or of the other byte order.
std::optional<std::uint64_t> checkpointGeneration(const LmdbTransaction& txn, MDB_dbi table, const std::string& source);

// The checkpoint in `table`, none when there is none. Throws InvalidInput naming `source` and the
// problem for one that is damaged, of the other byte order, or of another vocabulary than
// `vocabulary`. The lists are copied and checked on every core, each with room for `room[word]`
// more postings (empty: none), those of the writes after it, so that replaying them copies no list.
std::optional<Checkpoint> readCheckpoint(const LmdbTransaction& txn, MDB_dbi table, const VocabularySignature& vocabulary,
                                         const std::string& source, const std::vector<std::uint64_t>& room = {});

}  // namespace bovw::live_detail
