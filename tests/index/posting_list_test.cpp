// The posting list's two forms (sparse and dense, src/index/posting_list.hpp) against a plain map of
// the same postings through appends, removals and switches of form, counts at every field's edge;
// and the dense query loop (vector and scalar) against its definition, bit for bit.
#include "index/dense_accumulate.hpp"
#include "index/posting_list.hpp"
#include "support/test_support.hpp"

#include <bovw/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <vector>

namespace bovw::test {
namespace {

using index_detail::PostingList;

// Every posting through forEach (ascending, as the map) and through look-ups, one by one and as an
// ascending run sharing a cursor, including ids the list does not hold.
void expectHolds(const PostingList& list, const std::map<ImageId, std::int32_t>& expected, ImageId ids) {
  std::map<ImageId, std::int32_t> seen;
  ImageId previous = 0;
  bool first = true;
  list.forEach([&](ImageId image, std::int32_t count) {
    EXPECT_TRUE(first || image > previous) << "ids not ascending at " << image;
    first = false;
    previous = image;
    seen[image] = count;
  });
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(list.size(), expected.size());
  std::size_t cursor = 0;
  for (ImageId id = 0; id < ids + 3; ++id) {
    const auto it = expected.find(id);
    const std::int32_t want = it == expected.end() ? 0 : it->second;
    ASSERT_EQ(list.countOf(id), want) << "id " << id << (list.dense() ? " (dense)" : " (sparse)");
    ASSERT_EQ(list.countOf(id, cursor), want) << "id " << id << " with a cursor";
  }
}

std::int32_t randomCount(std::mt19937_64& rng) {
  static const std::int32_t edges[] = {1, 2, 15, 16, 17, 254, 255, 256, 65534, 65535, 65536, 70000, 2147483647};
  if (std::uniform_int_distribution<int>(0, 5)(rng) == 0)
    return edges[std::uniform_int_distribution<std::size_t>(0, std::size(edges) - 1)(rng)];
  return 1 + std::geometric_distribution<int>(0.5)(rng);
}

// A word's list in an index that grows and shrinks: its share of the ids rises above a fifth (dense)
// and falls below a sixth (sparse) again, several times, and the postings stay the same throughout.
TEST(PostingList, BothFormsHoldTheSamePostings) {
  BOVW_SEEDED_RNG(rng);
  for (int trial = 0; trial < 10; ++trial) {
    PostingList list;
    std::map<ImageId, std::int32_t> expected;
    ImageId ids = 0;
    bool was_dense = false, was_sparse_again = false;
    for (int phase = 0; phase < 6; ++phase) {
      // Even phases: the ids double, the word in most new images; odd phases: six times the ids, the
      // word in few new images, and some of its images removed.
      const double share = phase % 2 == 0 ? 0.7 : 0.03;
      const int added = static_cast<int>(phase % 2 == 0 ? ids : 5 * ids) + std::uniform_int_distribution<int>(1, 300)(rng);
      for (int i = 0; i < added; ++i, ++ids) {
        if (std::bernoulli_distribution(share)(rng)) {
          const std::int32_t count = randomCount(rng);
          list.push_back(ids, count);
          expected[ids] = count;
        }
        list.adapt(ids + 1);
      }
      if (phase % 2 == 1)
        for (auto it = expected.begin(); it != expected.end();) {
          if (std::bernoulli_distribution(0.3)(rng)) {
            list.remove(it->first);
            it = expected.erase(it);
            list.adapt(ids);
          } else {
            ++it;
          }
        }
      was_sparse_again |= was_dense && !list.dense();
      was_dense |= list.dense();
      SCOPED_TRACE("trial " + std::to_string(trial) + ", phase " + std::to_string(phase));
      expectHolds(list, expected, ids);
    }
    EXPECT_TRUE(was_dense);
    EXPECT_TRUE(was_sparse_again);
    // Bulk removal and taking back the last posting, in whichever form the list ended.
    list.eraseIf([](ImageId image) { return image % 3 == 0; });
    for (auto it = expected.begin(); it != expected.end();) it = it->first % 3 == 0 ? expected.erase(it) : std::next(it);
    expectHolds(list, expected, ids);
    if (!expected.empty()) {
      list.pop_back();
      expected.erase(std::prev(expected.end()));
      expectHolds(list, expected, ids);
    }
  }
}

// A random list in either form, with large counts now and then, and the map of its postings.
PostingList randomList(std::mt19937_64& rng, ImageId ids, std::map<ImageId, std::int32_t>& expected) {
  PostingList list;
  const double share = std::uniform_real_distribution<double>(0.001, 0.9)(rng);
  for (ImageId id = 0; id < ids; ++id)
    if (std::bernoulli_distribution(share)(rng)) {
      const std::int32_t count = randomCount(rng);
      list.push_back(id, count);
      expected[id] = count;
    }
  list.adapt(ids);
  return list;
}

index_detail::LiveIds allLive(std::size_t ids) {
  index_detail::LiveIds live(ids);
  for (std::size_t id = 0; id < ids; ++id) live.set(id);
  return live;
}

std::vector<unsigned char> rawOf(const PostingList& list) {
  std::vector<unsigned char> raw(list.rawSize() + 1, 0xee);  // one guard byte past the end
  list.writeRaw(raw.data());
  EXPECT_EQ(raw.back(), 0xee) << "writeRaw wrote past rawSize()";
  raw.pop_back();
  return raw;
}

// The raw form (a live database's checkpoint) gives back the same postings in the same form, for
// lists of odd sizes, both forms, empty ones, and counts at every field's edge.
TEST(PostingList, TheRawFormGivesBackTheSameList) {
  BOVW_SEEDED_RNG(rng);
  bool dense = false, sparse = false;
  for (int trial = 0; trial < 60; ++trial) {
    const auto ids = static_cast<ImageId>(std::uniform_int_distribution<int>(0, 3000)(rng));
    std::map<ImageId, std::int32_t> expected;
    const PostingList list = randomList(rng, ids, expected);
    (list.dense() ? dense : sparse) = true;
    const std::vector<unsigned char> raw = rawOf(list);
    const PostingList back = PostingList::fromRaw(raw.data(), raw.size(), allLive(ids));
    EXPECT_EQ(back.dense(), list.dense());
    expectHolds(back, expected, ids);
    EXPECT_LE(back.heapBytes(), list.heapBytes());
  }
  EXPECT_TRUE(dense && sparse);
}

// One word's lists in an index's segments (disjoint id ranges, each list in either form, some empty,
// some with large counts, one with its last posting removed) written as one raw form: the bytes of
// the one list that holds their postings, put in its form by adapt() from the sparse one, and read
// back as those postings. Written at an odd address too (a value inside an LMDB leaf page).
TEST(PostingList, SegmentsListsWrittenAsOneAreThatListsRawForm) {
  BOVW_SEEDED_RNG(rng);
  bool dense = false, sparse = false;
  for (int trial = 0; trial < 80; ++trial) {
    const auto ids = static_cast<ImageId>(std::uniform_int_distribution<int>(1, 3000)(rng));
    std::vector<ImageId> cuts{0};  // each part's first id
    for (int c = std::uniform_int_distribution<int>(1, 3)(rng); c > 0; --c)
      cuts.push_back(static_cast<ImageId>(std::uniform_int_distribution<ImageId>(0, ids)(rng)));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(ids);
    const double share = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    std::vector<PostingList> parts(cuts.size() - 1);
    PostingList whole;
    std::map<ImageId, std::int32_t> expected;
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
      for (ImageId id = cuts[p]; id < cuts[p + 1]; ++id) {
        if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) >= share) continue;
        const std::int32_t count = randomCount(rng);
        parts[p].push_back(id, count);
        whole.push_back(id, count);
        expected[id] = count;
      }
      // Each part in its own form: adapted to the ids or to its own span, or left as pushed.
      const int form = std::uniform_int_distribution<int>(0, 2)(rng);
      if (form == 0) parts[p].adapt(ids);
      if (form == 1) parts[p].adapt(std::max<std::size_t>(1, cuts[p + 1] - cuts[p]));
      if (p + 2 == cuts.size() && !parts[p].empty() && trial % 5 == 0) {  // a removal at the end
        const ImageId last = std::prev(expected.end())->first;
        parts[p].remove(last);
        whole.remove(last);
        expected.erase(last);
      }
    }
    whole.adapt(ids);
    std::vector<const PostingList*> pointers;
    for (const PostingList& part : parts) pointers.push_back(&part);
    const std::size_t size = PostingList::mergedRawSize(pointers, ids);
    ASSERT_EQ(size, whole.rawSize());
    std::vector<unsigned char> bytes(size + 2, 0xee);  // an odd start, and a guard byte past the end
    PostingList::writeMergedRaw(pointers, ids, bytes.data() + 1);
    EXPECT_EQ(bytes.back(), 0xee) << "writeMergedRaw wrote past mergedRawSize()";
    const std::vector<unsigned char> merged(bytes.begin() + 1, bytes.end() - 1);
    EXPECT_TRUE(merged == rawOf(whole)) << "not the one list's raw form";
    const PostingList back = PostingList::fromRaw(merged.data(), merged.size(), allLive(ids));
    (back.dense() ? dense : sparse) = true;
    expectHolds(back, expected, ids);
  }
  EXPECT_TRUE(dense && sparse);
}

// Read in place (a live database's mapped checkpoint), the raw form gives the same postings without
// copying its arrays, until the first change copies them: from then on the bytes it was read from
// are not read again (here overwritten). Where the bytes are not 4-byte aligned, a sparse list's
// arrays are copied (its ids need the alignment); a dense list's count bytes need none.
TEST(PostingList, TheRawFormIsReadInPlaceUntilTheFirstChange) {
  BOVW_SEEDED_RNG(rng);
  bool dense = false, sparse = false;
  for (int trial = 0; trial < 60; ++trial) {
    const auto ids = static_cast<ImageId>(std::uniform_int_distribution<int>(1, 3000)(rng));
    std::map<ImageId, std::int32_t> expected;
    const PostingList list = randomList(rng, ids, expected);
    if (list.empty()) continue;
    (list.dense() ? dense : sparse) = true;
    const std::vector<unsigned char> raw = rawOf(list);
    const bool aligned = std::bernoulli_distribution(0.7)(rng);
    std::vector<std::uint32_t> storage(raw.size() / 4 + 2);  // 4-byte aligned; one byte on where not
    unsigned char* bytes = reinterpret_cast<unsigned char*>(storage.data()) + (aligned ? 0 : 1);
    std::memcpy(bytes, raw.data(), raw.size());
    SCOPED_TRACE(std::string(list.dense() ? "dense" : "sparse") + (aligned ? ", aligned" : ", one byte off"));
    PostingList back = PostingList::readInPlace(bytes, raw.size(), allLive(ids));
    EXPECT_EQ(back.dense(), list.dense());
    EXPECT_EQ(back.readsInPlace(), aligned || list.dense());
    // In place, the heap holds only the side list of large counts (8 bytes each) and the heads of it
    // and of the dense part (80 bytes).
    const auto large = std::count_if(expected.begin(), expected.end(), [](const auto& p) { return p.second >= 255; });
    if (back.readsInPlace()) {
      EXPECT_LE(back.heapBytes(), 80 + 8 * static_cast<std::size_t>(large));
      // What it takes in memory counts the arrays it reads: 5 bytes a posting sparse, dense one an
      // id up to its last.
      const std::size_t last = expected.rbegin()->first;
      EXPECT_EQ(back.bytes(), back.heapBytes() + (list.dense() ? last + 1 : 5 * list.size()));
    }
    expectHolds(back, expected, ids);
    // A change: a new last posting, or one removed.
    if (std::bernoulli_distribution(0.5)(rng)) {
      back.push_back(ids, 3);
      expected[ids] = 3;
    } else {
      const ImageId gone = std::next(expected.begin(), std::uniform_int_distribution<std::size_t>(0, expected.size() - 1)(rng))->first;
      back.remove(gone);
      expected.erase(gone);
    }
    EXPECT_FALSE(back.readsInPlace());
    std::memset(bytes, 0xee, raw.size());
    expectHolds(back, expected, ids + 1);
  }
  EXPECT_TRUE(dense && sparse);
}

// What a live database's open makes room for before it applies the writes after its checkpoint to a
// list (rawSizeBound) is never less than what the list then takes: through removals, appends of ids
// above the list's (large counts among them), and each change of form as the ids grow; exact for a
// sparse list that nothing changes; 0 for bytes whose header does not match their size. (Mutations
// that count the dense form's old span instead of the ids, half the added postings or none of the
// added large counts each fail it.)
TEST(PostingList, TheRawSizeBoundHoldsThroughRemovalsAppendsAndChangesOfForm) {
  BOVW_SEEDED_RNG(rng);
  bool to_dense = false, to_sparse = false;
  for (int trial = 0; trial < 300; ++trial) {
    const auto ids = static_cast<ImageId>(std::uniform_int_distribution<int>(1, 2000)(rng));
    std::map<ImageId, std::int32_t> expected;
    const PostingList list = randomList(rng, ids, expected);
    if (list.empty()) continue;
    const std::vector<unsigned char> raw = rawOf(list);
    if (!list.dense()) {
      EXPECT_EQ(PostingList::rawSizeBound(raw.data(), raw.size(), 0, 0, ids), raw.size());
    }
    EXPECT_EQ(PostingList::rawSizeBound(raw.data(), raw.size() - 4, 0, 0, ids), 0u);

    const auto more = static_cast<ImageId>(std::uniform_int_distribution<int>(0, 5 * static_cast<int>(ids))(rng));
    const double removed = std::uniform_real_distribution<double>(0.0, 1.0)(rng) < 0.5 ? 0.0 : 0.9;
    const double added = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    PostingList changed = PostingList::fromRaw(raw.data(), raw.size(), allLive(ids));
    changed.eraseIf([&](ImageId) { return std::bernoulli_distribution(removed)(rng); });
    std::size_t appended = 0, appended_large = 0;
    for (ImageId id = ids; id < ids + more; ++id)
      if (std::bernoulli_distribution(added)(rng)) {
        const std::int32_t count = randomCount(rng);
        changed.push_back(id, count);
        ++appended;
        appended_large += count >= PostingList::kLargeMark;
      }
    changed.adapt(ids + more);
    to_dense |= !list.dense() && changed.dense();
    to_sparse |= list.dense() && !changed.dense();
    EXPECT_LE(changed.rawSize(), PostingList::rawSizeBound(raw.data(), raw.size(), appended, appended_large, ids + more))
        << (list.dense() ? "dense" : "sparse") << " to " << (changed.dense() ? "dense" : "sparse") << ", "
        << list.size() << " postings of " << ids << " ids, " << appended << " added of " << more;
  }
  EXPECT_TRUE(to_dense && to_sparse) << "the test should change lists' forms both ways";
}

// Moved to its raw form in other memory (where a live database's open makes the lists the writes
// after its checkpoint change), a list reads its arrays there, holds the same postings, and copies
// them out at its first change, after which those bytes are not read again (here overwritten).
TEST(PostingList, MovedToItsRawFormItReadsItThereUntilTheFirstChange) {
  BOVW_SEEDED_RNG(rng);
  for (int trial = 0; trial < 60; ++trial) {
    const auto ids = static_cast<ImageId>(std::uniform_int_distribution<int>(1, 3000)(rng));
    std::map<ImageId, std::int32_t> expected;
    PostingList list = randomList(rng, ids, expected);
    if (list.empty()) continue;
    SCOPED_TRACE(list.dense() ? "dense" : "sparse");
    const std::vector<unsigned char> raw = rawOf(list);
    std::vector<std::uint64_t> storage(raw.size() / 8 + 2);  // 16-byte aligned by the allocator
    auto* bytes = reinterpret_cast<unsigned char*>(storage.data());
    list.moveToRaw(bytes);
    EXPECT_EQ(std::memcmp(bytes, raw.data(), raw.size()), 0) << "it should write its raw form";
    EXPECT_TRUE(list.readsInPlace());
    expectHolds(list, expected, ids);
    list.push_back(ids, 2);
    expected[ids] = 2;
    EXPECT_FALSE(list.readsInPlace());
    std::memset(bytes, 0xee, raw.size());
    expectHolds(list, expected, ids + 1);
  }
}

// Bytes that are not a list writeRaw() wrote for these ids are refused, whichever field is wrong,
// copied or read in place.
TEST(PostingList, TheRawFormRefusesWhatCannotBeAList) {
  for (const bool dense : {false, true}) {
    PostingList list;
    const ImageId ids = 400;
    for (ImageId id = 3; id < ids; id += dense ? 2 : 37) list.push_back(id, id == 41 || id == 43 ? 70000 : 1 + id % 5);
    list.adapt(ids);
    ASSERT_EQ(list.dense(), dense);
    const std::vector<unsigned char> raw = rawOf(list);
    const index_detail::LiveIds live = allLive(ids);
    auto refused = [&](std::vector<unsigned char> bytes, const index_detail::LiveIds& held, const std::string& problem) {
      SCOPED_TRACE(std::string(dense ? "dense: " : "sparse: ") + problem);
      for (const bool in_place : {false, true}) {
        try {
          in_place ? PostingList::readInPlace(bytes.data(), bytes.size(), held)
                   : PostingList::fromRaw(bytes.data(), bytes.size(), held);
          ADD_FAILURE() << "accepted" << (in_place ? " in place" : "");
        } catch (const InvalidInput& e) {
          EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
        }
      }
    };
    refused({raw.begin(), raw.begin() + 9}, live, "fewer than its header");
    refused({raw.begin(), raw.end() - 4}, live, "bytes where its header declares");
    std::vector<unsigned char> bytes = raw;
    bytes[0] = 7;
    refused(bytes, live, "unknown form");
    index_detail::LiveIds some(ids);  // the first posting's image removed
    for (ImageId id = 0; id < ids; ++id)
      if (id != 3) some.set(id);
    refused(raw, some, "not a live image");
    refused(raw, allLive(dense ? 100 : 200), dense ? "dense counts for" : "not a live image");
    // The first posting's count set to 0, to the large mark without a side entry, and (sparse) ids out of order.
    const std::size_t first_count = dense ? 16 + 3 : 16 + 4 * list.size();
    bytes = raw;
    bytes[first_count] = 0;
    if (!dense) bytes[first_count + 1] = 0;
    refused(bytes, live, dense ? "postings declared" : "has count 0");
    bytes = raw;
    bytes[first_count] = 0xff;
    if (!dense) bytes[first_count + 1] = 0xff;
    refused(bytes, live, "mark a large count");
    if (!dense) {
      bytes = raw;
      std::swap_ranges(bytes.begin() + 16, bytes.begin() + 20, bytes.begin() + 20);
      refused(bytes, live, "not strictly increasing");
    }
  }
}

// The dense form at its bounds: chosen from a fifth of the ids (at most 5 bytes a posting), left
// below a sixth, and never more than 6 bytes a posting while it lasts.
TEST(PostingList, DenseFromAFifthOfTheIdsSparseBelowASixth) {
  PostingList list;
  for (ImageId id = 0; id < 100; id += 5) list.push_back(id, 1);  // 20 postings, ids up to 95
  EXPECT_FALSE(list.adapt(101));  // 20 of 101: below a fifth
  EXPECT_FALSE(list.dense());
  EXPECT_TRUE(list.adapt(100));   // 20 of 100: a fifth
  EXPECT_TRUE(list.dense());
  EXPECT_LE(list.denseSpan(), 5 * list.size());  // count bytes
  EXPECT_FALSE(list.adapt(120));  // 20 of 120: a sixth
  EXPECT_TRUE(list.dense());
  EXPECT_TRUE(list.adapt(121));   // below a sixth
  EXPECT_FALSE(list.dense());
  EXPECT_EQ(list.heapBytes(), 5 * list.size());
}

// A list with another appended holds both lists' postings, the other's under its ids plus the
// offset: all four pairs of forms, counts at every field's edge (large ones in both), offsets right
// after the first list's last id and far beyond it, an empty list on either side.
TEST(PostingList, AppendingShiftsTheOtherListsIds) {
  BOVW_SEEDED_RNG(rng);
  const auto make = [&](std::size_t ids, int every, bool dense) {
    PostingList list;
    std::map<ImageId, std::int32_t> held;
    for (ImageId id = 0; id < ids; ++id)
      if (every > 0 && rng() % static_cast<unsigned>(every) == 0) {
        held[id] = randomCount(rng);
        list.push_back(id, held[id]);
      }
    list.adapt(dense ? list.size() : 100 * ids + 7);  // dense where it is at least a fifth of `ids`
    return std::make_pair(std::move(list), held);
  };
  for (bool first_dense : {false, true})
    for (bool later_dense : {false, true})
      for (int every : {0, 2, 7})
        for (ImageId gap : {0u, 1u, 300u}) {
          auto [list, expected] = make(57, every, first_dense);
          const auto [later, added] = make(91, 3, later_dense);
          const ImageId offset = static_cast<ImageId>(57 + gap);
          list.append(later, offset);
          for (const auto& [id, count] : added) expected[offset + id] = count;
          expectHolds(list, expected, offset + 91);
          list.adapt(offset + 91);  // either form afterwards holds the same
          expectHolds(list, expected, offset + 91);
        }
}

// The pass by image blocks visits every posting once, each image's words ascending, whatever the block
// size and the lists' forms.
TEST(PostingList, ThePassByImageBlocksVisitsEveryPostingOnceInWordOrder) {
  BOVW_SEEDED_RNG(rng);
  const std::size_t words = 23, ids = 500;
  std::vector<PostingList> lists(words);
  std::map<std::pair<ImageId, std::size_t>, std::int32_t> expected;  // (image, word) -> count
  for (std::size_t w = 0; w < words; ++w) {
    const double share = std::uniform_real_distribution<double>(0.0, 0.9)(rng);
    for (ImageId id = 0; id < ids; ++id)
      if (std::bernoulli_distribution(share)(rng)) {
        const std::int32_t count = randomCount(rng);
        lists[w].push_back(id, count);
        expected[{id, w}] = count;
      }
    lists[w].adapt(ids);
  }
  for (std::size_t block : {std::size_t{1}, std::size_t{7}, std::size_t{64}, ids, ids + 5}) {
    SCOPED_TRACE("blocks of " + std::to_string(block));
    std::map<std::pair<ImageId, std::size_t>, std::int32_t> seen;
    std::map<ImageId, std::size_t> last_word;
    index_detail::forEachPostingByImageBlock(
        lists, 0, ids,
        [&](std::size_t w, ImageId image, std::int32_t count) {
          const auto last = last_word.find(image);
          EXPECT_TRUE(last == last_word.end() || last->second < w) << "image " << image << ": word " << w;
          last_word[image] = w;
          EXPECT_TRUE(seen.emplace(std::make_pair(image, w), count).second) << "visited twice";
        },
        block);
    EXPECT_EQ(seen, expected);
  }
}

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// addDenseWords (AVX-512 where the CPU has it) and the scalar loop against the definition: groups of
// kDenseGroup images from `begin`, each image's sum grown word by word in the run's order, up to the
// first group that ends after `end`, holds a count beyond the table or crosses a word's span, which
// both return and leave as it was. Runs of 0-6 words, spans short and long, ranges of every alignment
// and odd lengths, counts from 0 to 255.
TEST(DenseAccumulate, VectorAndScalarLoopsEqualTheDefinitionBitForBit) {
  BOVW_SEEDED_RNG(rng);
  std::uniform_real_distribution<double> positive(0.001, 3.0);
  const std::size_t group = index_detail::kDenseGroup;
  int stopped_early = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 700)(rng);
    const std::size_t word_count = std::uniform_int_distribution<std::size_t>(0, 6)(rng);
    const bool with_large = trial % 3 == 0;
    std::vector<std::vector<std::uint8_t>> counts(word_count);
    std::vector<index_detail::DenseWord> words(word_count);
    for (std::size_t j = 0; j < word_count; ++j) {
      const bool whole = std::bernoulli_distribution(0.7)(rng);
      const std::size_t span = whole ? n : std::uniform_int_distribution<std::size_t>(0, n)(rng);
      counts[j].resize(span);
      for (auto& c : counts[j])
        c = std::bernoulli_distribution(0.4)(rng) ? 0
            : with_large && std::bernoulli_distribution(0.002)(rng)
                ? static_cast<std::uint8_t>(std::uniform_int_distribution<int>(16, 255)(rng))
                : static_cast<std::uint8_t>(std::uniform_int_distribution<int>(1, 15)(rng));
      words[j] = {counts[j].data(), span, positive(rng), {}};
      for (int c = 1; c < index_detail::kDenseTabledCounts; ++c) words[j].term_idf[c] = positive(rng);
    }
    std::vector<double> scale(n), start(n);
    for (std::size_t i = 0; i < n; ++i) {
      scale[i] = positive(rng);
      start[i] = std::bernoulli_distribution(0.2)(rng) ? 0.0 : positive(rng);
    }
    const std::size_t begin = std::uniform_int_distribution<std::size_t>(0, n)(rng);
    const std::size_t end = std::uniform_int_distribution<std::size_t>(begin, n)(rng);
    for (bool cosine : {false, true}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + (cosine ? ", cosine" : ", intersection"));
      std::vector<double> expected = start;
      std::size_t stop = begin;
      for (; end - stop >= group; stop += group) {
        bool addable = true;
        for (const auto& w : words) {
          if (stop < w.span && w.span < stop + group) addable = false;
          for (std::size_t i = stop; i < std::min(stop + group, w.span); ++i)
            if (w.counts[i] >= index_detail::kDenseTabledCounts) addable = false;
        }
        if (!addable) break;
        for (std::size_t i = stop; i < stop + group; ++i)
          for (const auto& w : words) {
            const double d = (i < w.span ? w.term_idf[w.counts[i]] : 0.0) * scale[i];
            expected[i] = expected[i] + (cosine ? w.q * d : std::min(w.q, d));
          }
      }
      if (end - stop >= group) ++stopped_early;
      std::vector<double> vector = start, scalar = start;
      EXPECT_EQ(index_detail::addDenseWords(words.data(), word_count, cosine, scale.data(), vector.data(), begin, end),
                stop);
      EXPECT_EQ(
          index_detail::addDenseWordsScalar(words.data(), word_count, cosine, scale.data(), scalar.data(), begin, end),
          stop);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(bits(vector[i]), bits(expected[i])) << "image " << i;
        ASSERT_EQ(bits(scalar[i]), bits(expected[i])) << "image " << i;
      }
    }
  }
  EXPECT_GT(stopped_early, 20);  // groups the loops must leave (large counts, spans) came up
}

}  // namespace
}  // namespace bovw::test
