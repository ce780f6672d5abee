// Writing and reading a live database's checkpoint (checkpoint.hpp). Four kinds of entry:
//   "state"          the counts that tie the rest together, closed by their checksum
//   "names"          the names by id ("" for a removed id), with their checksum in "state"
//   "norms"          the default scoring's norms (their integer moments), closed by their checksum
//   'w' + u32 word   (big-endian, so LMDB's key order is the words' order) a non-empty posting
//                    list's raw form, closed by the checksum of the word and those bytes
// The checksums are XXH3-64 (seeded with the word for a list, so that a list under another word's
// key is refused): the lists of a million images are 3 GB, checked at every open; perf of such an
// open gave the Checksum64 of bovw's files, whose steps depend on each other, 14% of it, XXH3 5-6%.
#include "live/checkpoint.hpp"

#include "io/byte_order.hpp"
#include "io/byte_reader.hpp"

#include <bovw/error.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <future>
#include <limits>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bovw::live_detail {

namespace {

constexpr char kMagic[8] = {'B', 'O', 'V', 'W', 'C', 'K', 'P', 'T'};
constexpr std::uint32_t kVersion = 2;  // 1: the sparse lists' counts were 16-bit
constexpr std::uint32_t kByteOrderMark = 0x01020304;  // in the host's order: the lists are
constexpr std::size_t kStateSize = 96;
constexpr char kListPrefix = 'w';

std::string listKey(std::uint32_t word) {
  std::string key(5, kListPrefix);
  for (int i = 0; i < 4; ++i) key[1 + i] = static_cast<char>((word >> (24 - 8 * i)) & 0xff);
  return key;
}

std::uint64_t listChecksum(std::uint32_t word, const unsigned char* raw, std::size_t size) {
  return XXH3_64bits_withSeed(raw, size, word);
}

std::uint64_t checksumOf(const char* bytes, std::size_t size) { return XXH3_64bits(bytes, size); }

// The fields of "state" after its magic, version and byte-order mark, in order.
struct State {
  std::uint64_t generation, changes, ids, live, postings, lists, words, fingerprint, names_checksum;
};

std::string encodeState(const State& s) {
  std::string bytes(kStateSize, '\0');
  auto* out = reinterpret_cast<unsigned char*>(bytes.data());
  std::memcpy(out, kMagic, 8);
  detail::encodeLittleEndian(kVersion, out + 8);
  std::memcpy(out + 12, &kByteOrderMark, 4);
  const std::uint64_t fields[] = {s.generation, s.changes, s.ids,   s.live,          s.postings,
                                  s.lists,      s.words,   s.fingerprint, s.names_checksum};
  for (std::size_t i = 0; i < 9; ++i) detail::encodeLittleEndian(fields[i], out + 16 + 8 * i);
  detail::encodeLittleEndian(checksumOf(bytes.data(), kStateSize - 8), out + kStateSize - 8);
  return bytes;
}

State decodeState(std::string_view bytes, const std::string& source) {
  detail::ByteReader d(bytes.data(), bytes.size(), source, "bovw live database checkpoint");
  if (bytes.size() != kStateSize) d.fail("its state is " + std::to_string(bytes.size()) + " bytes, not 96");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) d.fail("its state does not begin with BOVWCKPT");
  d.take(8, "the magic");
  if (checksumOf(bytes.data(), kStateSize - 8) !=
      detail::decodeLittleEndian<std::uint64_t>(reinterpret_cast<const unsigned char*>(bytes.data() + kStateSize - 8)))
    d.fail("its state does not match its checksum");
  if (const std::uint32_t version = d.u32("the version"); version != kVersion)
    d.fail("version " + std::to_string(version) + " (this bovw reads " + std::to_string(kVersion) + ")");
  std::uint32_t mark;
  std::memcpy(&mark, d.take(4, "the byte-order mark"), 4);
  if (mark != kByteOrderMark) d.fail("it was written on a host of the other byte order");
  State s{};
  for (std::uint64_t* field : {&s.generation, &s.changes, &s.ids, &s.live, &s.postings, &s.lists, &s.words,
                               &s.fingerprint, &s.names_checksum})
    *field = d.u64("a count");
  return s;
}

// Maps the pages of `entries`' values in one call (MADV_POPULATE_READ), rather than a page fault
// for each 4 KB page as the checks first touch it: on the 2-core VM the faults took about 0.5 s of
// an open of a million images, the call a few hundredths. The values of one checkpoint lie in one
// stretch of the file, mostly (one write transaction appends them); where the kernel has no such
// call, the faults happen as before.
void mapPages(const std::vector<std::pair<std::uint32_t, std::string_view>>& entries) {
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> spans;  // [begin, end) of each value
  for (const auto& entry : entries) {
    const auto begin = reinterpret_cast<std::uintptr_t>(entry.second.data());
    spans.emplace_back(begin, begin + entry.second.size());
  }
  std::sort(spans.begin(), spans.end());
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  // Runs of values with gaps of at most 16 pages, each one call (the pages of other tables between
  // them would otherwise be mapped too, and counted in the process's resident memory).
  for (std::size_t i = 0; i < spans.size();) {
    const std::uintptr_t begin = spans[i].first - spans[i].first % page;
    std::uintptr_t end = spans[i].second;
    for (++i; i < spans.size() && spans[i].first <= end + 16 * page; ++i) end = std::max(end, spans[i].second);
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);  // speed only: a failure changes nothing
  }
}

// "norms": u64 the checkpoint's generation, u64 its ids, u64 K, u32 similarity, u32 term weighting,
// f64 alpha (little-endian: which scoring the moments are of), then in the host's order (the state's
// byte-order mark covers them) K i64 l_w, ids i64 m0, ids i128 m1 and, for cosine, ids i128 m2
// (IncrementalNorms::Moments); last the XXH3-64 of all the bytes before it.
constexpr std::size_t kNormsHeaderSize = 40;

std::size_t normsSize(std::size_t words, std::size_t ids, bool squared) {
  return kNormsHeaderSize + 8 * words + ids * (8 + 16 + (squared ? 16 : 0)) + 8;
}

void writeNorms(LmdbTransaction& txn, MDB_dbi table, const index_detail::IncrementalNorms& norms, std::uint64_t generation) {
  const index_detail::IncrementalNorms::Moments m = norms.moments();
  const ScoringOptions& options = norms.options();
  const std::size_t ids = m.m0.size();
  const std::size_t size = normsSize(m.log_frequency.size(), ids, !m.m2.empty());
  unsigned char* out = txn.reserve(table, "norms", size, true);
  detail::encodeLittleEndian(generation, out);
  detail::encodeLittleEndian(std::uint64_t{ids}, out + 8);
  detail::encodeLittleEndian(std::uint64_t{m.log_frequency.size()}, out + 16);
  detail::encodeLittleEndian(static_cast<std::uint32_t>(options.similarity), out + 24);
  detail::encodeLittleEndian(static_cast<std::uint32_t>(options.term), out + 28);
  std::uint64_t power;
  std::memcpy(&power, &options.power, 8);
  detail::encodeLittleEndian(power, out + 32);
  unsigned char* at = out + kNormsHeaderSize;
  const auto put = [&](const auto& values) {
    std::memcpy(at, values.data(), values.size() * sizeof(values[0]));
    at += values.size() * sizeof(values[0]);
  };
  put(m.log_frequency);
  put(m.m0);
  put(m.m1);
  put(m.m2);
  detail::encodeLittleEndian(checksumOf(reinterpret_cast<const char*>(out), size - 8), out + size - 8);
}

// Whether `after` changes the checkpoint's list of `word`: a removed image has a posting in it (the
// added images' postings go into a segment of their own).
bool changedAfter(const WritesAfter* after, std::uint32_t word) { return after && after->removed_from[word]; }

// Applies `after` to the checkpoint's list of `word`: its removed images out, then the list in its
// form for `ids` ids.
void applyAfter(index_detail::PostingList& list, const index_detail::LiveIds& removed, std::size_t ids) {
  list.eraseIf([&](ImageId image) { return image < removed.size() && removed[image]; });
  list.adapt(ids);
}

// The lists of the images `after` added, words [begin, end) of `lists`, in their form for `ids` ids.
void makeAddedLists(const WritesAfter& after, std::size_t begin, std::size_t end, std::size_t ids,
                    std::vector<index_detail::PostingList>& lists) {
  for (std::size_t w = begin; w < end; ++w) {
    index_detail::PostingList& list = lists[w];
    list.reserve(after.starts[w + 1] - after.starts[w]);
    for (std::uint64_t p = after.starts[w]; p < after.starts[w + 1]; ++p)
      list.push_back(after.postings[p].image, after.postings[p].count);
    list.adapt(ids);
  }
}

// The lists' entries [begin, end) into the first segment of `index`, each checked, then `after`'s
// removals applied to them, until `abandon` is set; returns the checkpoint's postings among them. The
// lists `after` changes are made in the region of `made`, and so, with ListReading::Copy, are the
// others copied (the copy's bytes are the ones checked): read in place there.
std::uint64_t readLists(const std::vector<std::pair<std::uint32_t, std::string_view>>& entries, std::size_t begin,
                        std::size_t end, const index_detail::LiveIds& live, const WritesAfter* after,
                        const index_detail::LiveIds& removed, ListReading reading, RegionLists& made,
                        index_detail::IndexData& index, const detail::ByteReader& d, const std::atomic<bool>* abandon) {
  const std::size_t ids = index.names.size();
  std::size_t capacity = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const auto [word, value] = entries[i];
    if (changedAfter(after, word))
      capacity += ListRegion::roomFor(index_detail::PostingList::rawSizeBound(
          reinterpret_cast<const unsigned char*>(value.data()), value.size() - std::min<std::size_t>(8, value.size()), 0, 0,
          ids));
    else if (reading == ListReading::Copy)
      capacity += ListRegion::roomFor(value.size());
  }
  if (capacity > 0) made.region = std::make_unique<ListRegion>(capacity);

  std::uint64_t postings = 0;
  for (std::size_t i = begin; i < end && !(abandon && *abandon); ++i) {
    const auto [word, value] = entries[i];
    const auto* bytes = reinterpret_cast<const unsigned char*>(value.data());
    if (value.size() < 8) d.fail("word " + std::to_string(word) + "'s list is " + std::to_string(value.size()) + " bytes");
    const bool changed = changedAfter(after, word);
    if (!changed && reading == ListReading::Copy) {
      const std::size_t slot = made.region->place(value.size());
      bytes = static_cast<const unsigned char*>(std::memcpy(made.region->at(slot), bytes, value.size()));
      made.words.push_back(word);
    }
    const std::size_t raw = value.size() - 8;
    if (listChecksum(word, bytes, raw) != detail::decodeLittleEndian<std::uint64_t>(bytes + raw))
      d.fail("word " + std::to_string(word) + "'s list does not match its checksum");
    index_detail::PostingList& list = index.segments.front().lists[word];
    try {
      list = changed ? index_detail::PostingList::fromRaw(bytes, raw, live)
                     : index_detail::PostingList::readInPlace(bytes, raw, live);
    } catch (const InvalidInput& e) {
      d.fail("word " + std::to_string(word) + "'s " + e.problem());
    }
    if (list.empty()) d.fail("word " + std::to_string(word) + "'s list is empty");
    postings += list.size();
    if (changed) applyAfter(list, removed, ids);
    // Made in memory of its own, where it is one list among many in 4 KiB pages; moved to the region
    // (huge pages) before the next is made, so that the next reuses that memory.
    if (changed && !list.empty()) {
      list.moveToRaw(made.region->at(made.region->place(list.rawSize())));
      made.words.push_back(word);
    }
  }
  return postings;
}

}  // namespace

void writeCheckpoint(LmdbTransaction& txn, MDB_dbi table, const index_detail::IndexData& index, std::uint64_t generation,
                     std::uint64_t changes, const index_detail::IncrementalNorms* norms) {
  txn.clear(table);
  std::string names;
  for (const std::string& name : index.names) {
    unsigned char length[4];
    detail::encodeLittleEndian(static_cast<std::uint32_t>(name.size()), length);
    names.append(reinterpret_cast<const char*>(length), 4);
    names += name;
  }
  State state{generation, changes, index.names.size(), index.live(), 0, 0,
              index.words(), index.vocabulary.fingerprint, checksumOf(names.data(), names.size())};
  for (std::size_t w = 0; w < index.words(); ++w) {
    const std::uint64_t n = index.frequency(w);
    state.postings += n;
    state.lists += n == 0 ? 0 : 1;
  }
  // Keys ascending ("names" < "norms" < "state" < 'w'...), each above the last: appended.
  txn.append(table, "names", names);
  if (norms && norms->exact() && norms->options() == ScoringOptions{}) writeNorms(txn, table, *norms, generation);
  txn.append(table, "state", encodeState(state));
  // One list a word: a word's lists in the segments written as one, straight into the store's pages.
  std::vector<const index_detail::PostingList*> parts;
  for (std::size_t w = 0; w < index.words(); ++w) {
    parts.clear();
    for (const index_detail::Segment& segment : index.segments)
      if (!segment.lists[w].empty()) parts.push_back(&segment.lists[w]);
    if (parts.empty()) continue;
    const std::size_t raw = parts.size() == 1 ? parts.front()->rawSize()
                                              : index_detail::PostingList::mergedRawSize(parts, index.names.size());
    unsigned char* out = txn.reserve(table, listKey(static_cast<std::uint32_t>(w)), raw + 8, true);
    if (parts.size() == 1)
      parts.front()->writeRaw(out);
    else
      index_detail::PostingList::writeMergedRaw(parts, index.names.size(), out);
    detail::encodeLittleEndian(listChecksum(static_cast<std::uint32_t>(w), out, raw), out + raw);
  }
}

std::optional<std::uint64_t> checkpointGeneration(const LmdbTransaction& txn, MDB_dbi table, const std::string& source) {
  const auto state_bytes = txn.get(table, "state");
  if (!state_bytes) return std::nullopt;
  return decodeState(*state_bytes, source).generation;
}

const void* checkpointAddress(const LmdbTransaction& txn, MDB_dbi table) {
  const auto state_bytes = txn.get(table, "state");
  return state_bytes ? state_bytes->data() : nullptr;
}

std::optional<Checkpoint> readCheckpoint(const LmdbTransaction& txn, MDB_dbi table, const VocabularySignature& vocabulary,
                                         const std::string& source, const WritesAfter* after, ListReading reading,
                                         const std::atomic<bool>* abandon) {
  const auto state_bytes = txn.get(table, "state");
  if (!state_bytes) return std::nullopt;
  const State state = decodeState(*state_bytes, source);
  detail::ByteReader d(nullptr, 0, source, "bovw live database checkpoint");  // for messages
  if (state.words != static_cast<std::uint64_t>(vocabulary.words) ||
      (state.fingerprint != 0 && vocabulary.fingerprint != 0 && state.fingerprint != vocabulary.fingerprint))
    d.fail("it was made for another vocabulary (K = " + std::to_string(state.words) + ", fingerprint " +
           std::to_string(state.fingerprint) + ")");
  if (state.ids >= index_detail::kMaxIds || state.live > state.ids || state.lists > state.words)
    d.fail("its counts are out of range");
  if (after && (after->starts.size() != state.words + 1 || after->removed_from.size() != state.words))
    throw InvalidInput("live database checkpoint: the writes after it are given for another K than its " +
                       std::to_string(state.words));  // the caller's mistake, not the checkpoint's
  if (after && !after->added.empty() && after->added.front() < state.ids)
    d.fail("images added after it have ids it holds (" + std::to_string(after->added.front()) + " of its " +
           std::to_string(state.ids) + ")");

  Checkpoint checkpoint;
  checkpoint.generation = state.generation;
  index_detail::IndexData& index = checkpoint.index;
  index.vocabulary = vocabulary;

  // Names first: the lists are checked against the ids they make live.
  const auto names_bytes = txn.get(table, "names");
  if (!names_bytes) d.fail("it has no names");
  if (checksumOf(names_bytes->data(), names_bytes->size()) != state.names_checksum) d.fail("its names do not match their checksum");
  detail::ByteReader names(names_bytes->data(), names_bytes->size(), source, "bovw live database checkpoint");
  if (state.ids > names.remaining() / 4) d.fail("its names are fewer than its " + std::to_string(state.ids) + " ids");
  index.names.reserve(state.ids);
  index_detail::LiveIds live(state.ids);
  for (std::uint64_t id = 0; id < state.ids; ++id) {
    const std::uint32_t length = names.u32("a name's length");
    index.names.push_back(names.text(length, "a name"));
    if (length > 0) live.set(id);
  }
  if (names.remaining() != 0) d.fail("its names have " + std::to_string(names.remaining()) + " bytes too many");
  if (live.count() != state.live)
    d.fail("its names are not its " + std::to_string(state.live) + " images");
  // The writes after it: the lists are checked against the checkpoint's own ids (`live`), and then
  // lose the `removed` ones and gain the added ones.
  index_detail::LiveIds removed(after ? state.ids : 0);
  if (after) {
    for (ImageId id : after->removed) {
      if (id >= state.ids || !live[id]) d.fail("a write after it removed image id " + std::to_string(id) + ", which it does not hold");
      removed.set(id);
      index.names[id].clear();
    }
    index.names.resize(std::max<std::uint64_t>(after->next_id, state.ids));
    for (std::size_t i = 0; i < after->added.size(); ++i) index.names[after->added[i]] = after->names[i];
  }

  std::vector<std::pair<std::uint32_t, std::string_view>> entries;
  std::size_t bytes = 0;
  txn.forEach(table, std::string(1, kListPrefix), [&](std::string_view key, std::string_view value) {
    if (key.size() != 5 || key[0] != kListPrefix) d.fail("it holds an entry of unknown kind");
    std::uint32_t word = 0;
    for (int i = 1; i < 5; ++i) word = word << 8 | static_cast<unsigned char>(key[i]);
    if (word >= state.words) d.fail("it lists word " + std::to_string(word) + " of K = " + std::to_string(state.words));
    entries.emplace_back(word, value);
    bytes += value.size();
  });
  if (entries.size() != state.lists)
    d.fail("it holds " + std::to_string(entries.size()) + " lists where its state counts " + std::to_string(state.lists));

  mapPages(entries);
  // The lists on every core, in parts of about equal bytes, while this thread maps the names to ids.
  index.segments.front().lists.resize(state.words);
  index.segments.front().sealed = true;
  const std::size_t parts = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
  std::vector<std::future<std::uint64_t>> lists;
  checkpoint.regions.resize(parts);
  for (std::size_t part = 0, begin = 0, seen = 0; part < parts; ++part) {
    std::size_t end = begin;
    const std::size_t until = bytes / parts * (part + 1);
    while (end < entries.size() && (seen < until || part + 1 == parts)) seen += entries[end++].second.size();
    lists.push_back(std::async(std::launch::async, readLists, std::cref(entries), begin, end, std::cref(live),
                               after, std::cref(removed), reading, std::ref(checkpoint.regions[part]), std::ref(index),
                               std::cref(d), abandon));
    begin = end;
  }
  index.ids.reserve(state.live + (after ? after->added.size() : 0));
  std::optional<std::string> twice;
  for (std::size_t id = 0; id < index.names.size() && !twice; ++id)
    if (!index.names[id].empty() && !index.ids.emplace(index.names[id], static_cast<ImageId>(id)).second) twice = index.names[id];
  std::uint64_t postings = 0;
  for (auto& part : lists) postings += part.get();  // rethrows a part's refusal
  if (abandon && *abandon) return std::nullopt;
  if (twice) d.fail("it names two images '" + *twice + "'");
  if (postings != state.postings)
    d.fail("its lists hold " + std::to_string(postings) + " postings where its state counts " + std::to_string(state.postings));
  // The images added after it, in a segment of their own (IndexData::segments), its lists made on
  // every core.
  if (after && !after->added.empty()) {
    index_detail::Segment added;
    added.first = after->added.front();
    added.lists.resize(state.words);
    std::vector<std::future<void>> made;
    for (std::size_t part = 0; part < parts; ++part)
      made.push_back(std::async(std::launch::async, makeAddedLists, std::cref(*after), state.words * part / parts,
                                state.words * (part + 1) / parts, index.names.size(), std::ref(added.lists)));
    for (auto& part : made) part.get();
    index.segments.push_back(std::move(added));
  }
  return checkpoint;
}

std::shared_ptr<const index_detail::IncrementalNorms> readCheckpointNorms(const LmdbTransaction& txn, MDB_dbi table,
                                                                         const index_detail::IndexData& now,
                                                                         const std::string& source) {
  const auto state_bytes = txn.get(table, "state");
  const auto bytes = txn.get(table, "norms");
  if (!state_bytes || !bytes) return nullptr;
  const State state = decodeState(*state_bytes, source);
  detail::ByteReader d(bytes->data(), bytes->size(), source, "bovw live database checkpoint");
  if (bytes->size() < kNormsHeaderSize + 8) d.fail("its norms are " + std::to_string(bytes->size()) + " bytes");
  if (checksumOf(bytes->data(), bytes->size() - 8) !=
      detail::decodeLittleEndian<std::uint64_t>(reinterpret_cast<const unsigned char*>(bytes->data() + bytes->size() - 8)))
    d.fail("its norms do not match their checksum");
  const std::uint64_t generation = d.u64("the norms' generation"), ids = d.u64("the norms' ids"),
                      words = d.u64("the norms' words");
  ScoringOptions options;
  options.similarity = static_cast<Scoring>(d.u32("the norms' similarity"));
  options.term = static_cast<TermWeighting>(d.u32("the norms' term weighting"));
  const std::uint64_t power = d.u64("the norms' alpha");
  std::memcpy(&options.power, &power, 8);
  if (ids >= index_detail::kMaxIds || words > index_detail::kMaxWords) d.fail("its norms' counts are out of range");
  if (generation != state.generation || ids != state.ids || words != state.words)
    d.fail("its norms are of another state (write " + std::to_string(generation) + ", " + std::to_string(ids) + " ids, K = " +
           std::to_string(words) + ")");
  const bool squared = options.similarity == Scoring::Cosine;
  if (bytes->size() != normsSize(words, ids, squared)) d.fail("its norms are " + std::to_string(bytes->size()) + " bytes, not " +
                                                               std::to_string(normsSize(words, ids, squared)));
  // Kept for another scoring than today's default (a bovw whose default differs): not used.
  if (options != ScoringOptions{}) return nullptr;
  index_detail::IncrementalNorms::Moments m;
  const char* at = bytes->data() + kNormsHeaderSize;
  const auto take = [&](auto& values, std::size_t n) {
    values.resize(n);
    std::memcpy(values.data(), at, n * sizeof(values[0]));
    at += n * sizeof(values[0]);
  };
  take(m.log_frequency, words);
  take(m.m0, ids);
  take(m.m1, ids);
  take(m.m2, squared ? ids : 0);
  if (std::any_of(m.m0.begin(), m.m0.end(), [](std::int64_t m0) { return m0 < 0; })) d.fail("its norms are out of range");
  if (now.words() != words || now.names.size() < ids)
    throw InvalidInput("live database checkpoint: its norms are resumed for another index than its own");  // the caller's mistake
  return std::make_shared<const index_detail::IncrementalNorms>(now, options, std::move(m));
}

}  // namespace bovw::live_detail
