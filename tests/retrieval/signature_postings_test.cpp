// SignaturePostings and the lists a search takes from KeypointStore: a taken list never changes, a
// later one shows every change (whether the writer prepared its copies beforehand or not), and a
// write made while a search holds lists neither waits for it nor alters what it holds. The reference
// is a plain map of (image, signatures) by word, kept beside.
#include "retrieval/keypoint_store.hpp"
#include "retrieval/signature_postings.hpp"

#include <gtest/gtest.h>

#include <future>
#include <map>
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

void expectList(const SignaturePostings::Snapshot& list, const SignaturePostings::WordFeatures& expected,
                const std::string& where) {
  const std::vector<ImageId> no_ids;
  const std::vector<std::uint64_t> no_signatures;
  EXPECT_EQ(list ? list->ids : no_ids, expected.ids) << where;
  EXPECT_EQ(list ? list->signatures : no_signatures, expected.signatures) << where;
}

TEST(SignaturePostings, TakenListsKeepTheirStateAndNewOnesFollowEveryChange) {
  const int words = 37;  // odd, and small enough that images share words
  for (int trial = 0; trial < 20; ++trial) {
    std::mt19937_64 rng(1000 + trial);
    SignaturePostings postings(words);
    Reference reference;
    // Lists taken along the way, with the reference's list for them when taken.
    std::vector<std::tuple<std::uint32_t, SignaturePostings::Snapshot, SignaturePostings::WordFeatures>> taken;
    std::vector<ImageId> filed;  // images with features filed somewhere
    ImageId next_id = 0;
    // Half the time the writer copies held lists first, as KeypointStore does, for some of the words
    // it changes and some it does not.
    const auto maybePrepare = [&] {
      if (rng() % 2) return;
      std::vector<std::uint32_t> some;
      std::vector<std::size_t> room;
      for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(words); ++w)
        if (rng() % 3 == 0) {
          some.push_back(w);
          room.push_back(rng() % 4);
        }
      postings.prepareCopies(some, room);
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
        for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(words); ++w) {
          postings.erase(id, w);  // also words it has none in: nothing happens
          if (reference.count(w)) reference[w].erase(id);
        }
        filed.erase(filed.begin() + static_cast<std::ptrdiff_t>(pick));
        postings.dropCopies();
      } else {
        const auto w = static_cast<std::uint32_t>(rng() % words);
        taken.emplace_back(w, postings.snapshot(w), expectedList(reference, w));
      }
    }
    for (std::size_t i = 0; i < taken.size(); ++i)
      expectList(std::get<1>(taken[i]), std::get<2>(taken[i]),
                 "trial " + std::to_string(trial) + ", list taken " + std::to_string(i));
    for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(words); ++w)
      expectList(postings.snapshot(w), expectedList(reference, w), "trial " + std::to_string(trial) + ", word " +
                                                                       std::to_string(w) + " at the end");
  }
}

TEST(SignaturePostings, AWordNeverFiledHasNoList) {
  SignaturePostings postings(5);
  EXPECT_EQ(postings.snapshot(3), nullptr);
  postings.erase(7, 3);  // nothing to take out
  EXPECT_EQ(postings.snapshot(3), nullptr);
  const std::uint64_t signature = 42;
  postings.insert(7, 3, &signature, 1);
  postings.erase(7, 3);
  ASSERT_NE(postings.snapshot(3), nullptr);
  EXPECT_TRUE(postings.snapshot(3)->ids.empty());
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

  for (std::size_t w = 0; w < held.size(); ++w) expectList(held[w], before[w], "held list of word " + std::to_string(w));
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
    expectList(now[w], expected, "word " + std::to_string(w) + " after the write");
  }
  EXPECT_FALSE(store.stored(2).has_value());
}

}  // namespace
}  // namespace bovw::retrieval_detail
