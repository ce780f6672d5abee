// SignaturePostings and the lists a search takes from KeypointStore: a taken list never changes, a
// later one shows every change (whether the writer prepared its copies beforehand or not), and a
// write made while a search holds lists neither waits for it nor alters what it holds. The reference
// is a plain map of (image, signatures) by word, kept beside. Erased images' features may stay in a
// list (they are taken out a list at a time): a list is compared with the reference without them,
// and holds at most half as many of them as of live features.
#include "retrieval/keypoint_store.hpp"
#include "retrieval/signature_postings.hpp"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>
#include <random>

namespace bovw::retrieval_detail {
namespace {

// word -> image -> its signatures under the word, in the order filed.
using Reference = std::map<std::uint32_t, std::map<ImageId, std::vector<std::uint64_t>>>;

// The list the reference holds for `word`, in the form SignaturePostings keeps it.
SignaturePostings::WordFeatures expectedList(const Reference& reference, std::uint32_t word) {
  SignaturePostings::WordFeatures list;
  const auto found = reference.find(word);
  if (found == reference.end()) return list;
  for (const auto& [image, signatures] : found->second)
    for (const std::uint64_t signature : signatures) {
      list.ids.push_back(image);
      list.signatures.push_back(signature);
    }
  return list;
}

// `list` without the features of images outside `live` (erased ones that it still holds) against
// `expected`; and the erased ones at most half the live ones.
void expectList(const SignaturePostings::Snapshot& list, const SignaturePostings::WordFeatures& expected,
                const std::set<ImageId>& live, const std::string& where) {
  SignaturePostings::WordFeatures kept;
  std::size_t erased = 0;
  if (list)
    for (std::size_t i = 0; i < list->ids.size(); ++i) {
      if (!live.count(list->ids[i])) {
        ++erased;
        continue;
      }
      kept.ids.push_back(list->ids[i]);
      kept.signatures.push_back(list->signatures[i]);
    }
  EXPECT_EQ(kept.ids, expected.ids) << where;
  EXPECT_EQ(kept.signatures, expected.signatures) << where;
  EXPECT_TRUE(erased == 0 || 2 * erased < kept.ids.size()) << where << ": " << erased << " erased features beside "
                                                            << kept.ids.size();
}

TEST(SignaturePostings, TakenListsKeepTheirStateAndNewOnesFollowEveryChange) {
  const int words = 37;  // odd, and small enough that images share words
  for (int trial = 0; trial < 20; ++trial) {
    std::mt19937_64 rng(1000 + trial);
    SignaturePostings postings(words);
    Reference reference;
    // Lists taken along the way, with the reference's list for them when taken.
    std::vector<std::tuple<std::uint32_t, SignaturePostings::Snapshot, SignaturePostings::WordFeatures, std::set<ImageId>>>
        taken;
    std::vector<ImageId> filed;  // images with features filed somewhere
    ImageId next_id = 0;
    // Half the time the writer copies held lists first, as KeypointStore does, for some of the words
    // it changes and some it does not.
    const auto maybePrepare = [&] {
      if (rng() % 2) return;
      std::vector<std::uint32_t> some;
      std::vector<std::size_t> gained, lost;
      for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(words); ++w)
        if (rng() % 3 == 0) {
          some.push_back(w);
          gained.push_back(rng() % 4);
          lost.push_back(rng() % 4);
        }
      postings.prepareCopies(some, gained, lost);
    };
    for (int step = 0; step < 300; ++step) {
      const int action = static_cast<int>(rng() % 10);
      if (action < 5 || filed.empty()) {
        // A new image, or an older id filed again after its removal (an insertion before newer ids).
        const ImageId id = (action == 4 && next_id > 3) ? static_cast<ImageId>(rng() % next_id) : next_id++;
        if (std::find(filed.begin(), filed.end(), id) != filed.end()) continue;
        std::vector<std::uint32_t> its_words;
        for (int w = 0; w < words; ++w)
          if (rng() % 4 == 0) its_words.push_back(static_cast<std::uint32_t>(w));
        maybePrepare();
        for (const std::uint32_t w : its_words) {
          std::vector<std::uint64_t> signatures(1 + rng() % 3);
          for (auto& s : signatures) s = rng();
          postings.insert(id, w, signatures.data(), signatures.size());
          reference[w][id] = signatures;
        }
        filed.push_back(id);
        postings.dropCopies();
      } else if (action < 8) {
        const std::size_t pick = rng() % filed.size();
        const ImageId id = filed[pick];
        maybePrepare();
        std::vector<std::uint32_t> all(static_cast<std::size_t>(words));
        for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(words); ++w) {
          all[w] = w;  // also words it has none in: nothing happens there
          if (reference.count(w)) reference[w].erase(id);
        }
        postings.erase(id, all);
        EXPECT_TRUE(postings.erased(id));
        filed.erase(filed.begin() + static_cast<std::ptrdiff_t>(pick));
        postings.dropCopies();
      } else {
        const auto w = static_cast<std::uint32_t>(rng() % words);
        taken.emplace_back(w, postings.snapshot(w), expectedList(reference, w),
                           std::set<ImageId>(filed.begin(), filed.end()));
      }
    }
    for (std::size_t i = 0; i < taken.size(); ++i)
      expectList(std::get<1>(taken[i]), std::get<2>(taken[i]), std::get<3>(taken[i]),
                 "trial " + std::to_string(trial) + ", list taken " + std::to_string(i));
    const std::set<ImageId> live(filed.begin(), filed.end());
    for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(words); ++w)
      expectList(postings.snapshot(w), expectedList(reference, w), live,
                 "trial " + std::to_string(trial) + ", word " + std::to_string(w) + " at the end");
  }
}

TEST(SignaturePostings, AWordNeverFiledHasNoList) {
  SignaturePostings postings(5);
  EXPECT_EQ(postings.snapshot(3), nullptr);
  postings.erase(7, {3});  // nothing to take out
  EXPECT_EQ(postings.snapshot(3), nullptr);
  EXPECT_FALSE(postings.erased(7));
  const std::uint64_t signature = 42;
  postings.insert(7, 3, &signature, 1);
  postings.erase(7, {3});  // the whole list erased: compacted at once
  ASSERT_NE(postings.snapshot(3), nullptr);
  EXPECT_TRUE(postings.snapshot(3)->ids.empty());
}

// One erased image among many stays where it lies (nothing moved, no copy of a held list) until a
// third of the list is erased features; then one pass takes them all out. An id filed again after
// its erasure is not confused with its old features.
TEST(SignaturePostings, ErasedFeaturesGoAListAtATime) {
  SignaturePostings postings(2);
  const std::uint64_t signatures[2] = {11, 12};
  for (ImageId id = 0; id < 9; ++id) postings.insert(id, 0, signatures, 2);  // 18 features
  const SignaturePostings::Snapshot held = postings.snapshot(0);
  postings.prepareCopies({0}, {0}, {2});  // an erase that compacts nothing: no copy needed
  postings.erase(4, {0, 1});
  postings.dropCopies();
  EXPECT_EQ(postings.snapshot(0), held) << "the list was changed (or copied) for one erased image";
  EXPECT_EQ(postings.erasedFeatures(0), 2u);
  postings.erase(4, {0});  // erased already: nothing more
  EXPECT_EQ(postings.erasedFeatures(0), 2u);
  postings.erase(1, {0});
  postings.erase(7, {0});  // 6 of 18 erased: a third, compacted
  const SignaturePostings::Snapshot now = postings.snapshot(0);
  EXPECT_NE(now, held);
  EXPECT_EQ(now->ids, (std::vector<ImageId>{0, 0, 2, 2, 3, 3, 5, 5, 6, 6, 8, 8}));
  EXPECT_EQ(postings.erasedFeatures(0), 0u);
  EXPECT_EQ(held->ids.size(), 18u) << "the search's list changed under it";

  postings.erase(2, {0});  // stays in the list, erased
  const std::uint64_t again[1] = {99};
  postings.insert(2, 1, again, 1);  // id 2 filed again (under another word): its old features go first
  EXPECT_FALSE(postings.erased(2));
  EXPECT_EQ(postings.snapshot(0)->ids, (std::vector<ImageId>{0, 0, 3, 3, 5, 5, 6, 6, 8, 8}));
  EXPECT_EQ(postings.snapshot(1)->ids, (std::vector<ImageId>{2}));
}

// An image of `points` keypoints over words 0..words-1 for KeypointStore.
ImageWords imageOf(std::mt19937_64& rng, int points, int words) {
  ImageWords image;
  image.image_size = cv::Size(101, 77);
  for (int i = 0; i < points; ++i) {
    image.points.emplace_back(static_cast<float>(rng() % 100), static_cast<float>(rng() % 76));
    image.words.push_back(static_cast<std::int32_t>(rng() % words));
    image.signatures.push_back(rng());
  }
  return image;
}

// The search's side: with the store's lock held for its whole scoring, this write waited for it (and
// in one thread, as here, for ever).
TEST(KeypointStoreSignatureLists, AWriteNeitherWaitsForNorChangesTheListsASearchHolds) {
  const int words = 11;
  std::mt19937_64 rng(7);
  KeypointStore store(words);
  for (ImageId id = 0; id < 6; ++id) store.put(id, store.prepare(imageOf(rng, 9, words), "image " + std::to_string(id)));
  std::vector<std::uint32_t> all(words);
  for (int w = 0; w < words; ++w) all[static_cast<std::size_t>(w)] = static_cast<std::uint32_t>(w);

  const auto held = store.signatureLists(all);
  std::vector<SignaturePostings::WordFeatures> before;
  for (const auto& list : held) before.push_back(list ? *list : SignaturePostings::WordFeatures{});

  auto write = std::async(std::launch::async, [&] {
    store.erase(2);
    store.put(6, store.prepare(imageOf(rng, 13, words), "image 6"));
  });
  ASSERT_EQ(write.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "the write waited for the search";
  write.get();

  const std::set<ImageId> before_live{0, 1, 2, 3, 4, 5}, after_live{0, 1, 3, 4, 5, 6};
  for (std::size_t w = 0; w < held.size(); ++w)
    expectList(held[w], before[w], before_live, "held list of word " + std::to_string(w));
  // The lists taken now: image 2 gone, image 6 in, each word's list the stored keypoints' signatures.
  const auto now = store.signatureLists(all);
  for (std::size_t w = 0; w < now.size(); ++w) {
    SignaturePostings::WordFeatures expected;
    for (ImageId id = 0; id <= 6; ++id) {
      const auto stored = store.stored(id);
      if (!stored) continue;
      for (const auto& key : stored->keypoints)
        if (key.word == w) {
          expected.ids.push_back(id);
          expected.signatures.push_back(key.signature);
        }
    }
    expectList(now[w], expected, after_live, "word " + std::to_string(w) + " after the write");
  }
  EXPECT_FALSE(store.stored(2).has_value());
}

}  // namespace
}  // namespace bovw::retrieval_detail
