// The stored keypoints' signatures filed by word, the images of each word in id order: Hamming-
// embedding scoring reads the lists of the query's words only, as a bag-of-words query reads its
// posting lists, instead of every image's keypoints (Jégou, Douze, Schmid, ECCV 2008, keep the
// signatures in the inverted file for the same reason). 12 bytes a keypoint, in memory only: it is
// rebuilt from the keypoints when a database is read.
//
// A search takes the lists of its words (snapshot) and scores from them while images are added and
// removed: a change to a list that a search still holds goes to a copy of it (copy on write), so the
// search keeps the state it took and a writer never waits for a search to finish (issue 22: with the
// whole scoring under the store's read lock, a PUT waited for every search in flight, and the
// searches queued behind it, 7 searches/s beside adds against 152 alone). The copies are what a
// writer pays instead: the lists it changes that searches hold, which it would otherwise wait for.
// It makes them before it takes the lock that keeps searches out (prepareCopies), so that a search
// waits at most for the changes in place, not for the copying.
//
// An erased image's features stay in its words' lists until a third of a list is such features; then
// one pass takes them all out of it (compaction). Taking each image out where it lies moved half of
// every list it was in, and copied the whole of those that searches held: replacing images of 1,000
// keypoints ran at 117-201 PUTs/s against 600-660 for new names (H200, 2026-12-02). A search may so
// read an erased image's features: it drops the image, which the index has taken out before its
// keypoints (ImageDatabase, DatabaseEditor) and which then has no norm. Lists so hold at most 1.5x
// their live features.
#pragma once

#include <bovw/inverted_index.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace bovw::retrieval_detail {

class SignaturePostings {
 public:
  // One word's features: the image of each and its signature, in image id order, each image's
  // features side by side.
  struct WordFeatures {
    std::vector<ImageId> ids;
    std::vector<std::uint64_t> signatures;  // parallel to ids
    // A number that changes whenever features already in the list move or go (the list is made, a
    // feature is inserted before its end, it is compacted), and never when features are appended:
    // a copy of the list's first n features made elsewhere (a device's: ResidentSignatures) is still
    // its first n while the layout is the same. Unique in the process, so a list made anew never
    // takes the number of one it replaces.
    std::uint64_t layout = newLayout();
  };
  static std::uint64_t newLayout();
  // A word's features as they were when taken (null: none), unchanged for as long as it is held.
  using Snapshot = std::shared_ptr<const WordFeatures>;

  explicit SignaturePostings(int words)
      : lists_(static_cast<std::size_t>(words)), erased_features_(static_cast<std::size_t>(words), 0) {}

  // The changes, one writer at a time, never beside snapshot() (the caller's lock; KeypointStore).
  // Files `count` features of image `id` under `word` (an image not yet filed under it), keeping the
  // list in id order: an append for the newest image, an insertion otherwise.
  void insert(ImageId id, std::uint32_t word, const std::uint64_t* signatures, std::size_t count);
  // Files every feature of `later` under its image id plus `offset`, after those here (every id here
  // is below `offset`); `later` is left as it is.
  void append(const SignaturePostings& later, ImageId offset);
  // Takes image `id`'s features out of the lists of `words` (nothing from a word where it has none):
  // they stop counting as the list's, and go once a third of the list is erased features. An id
  // erased already is left as it is; one filed again later (insert) is taken out of every list first.
  void erase(ImageId id, const std::vector<std::uint32_t>& words);

  std::uint32_t words() const { return static_cast<std::uint32_t>(lists_.size()); }  // K
  // Word `word`'s features now, erased images' among them (erased()). Any number of threads at
  // once, never beside a change.
  Snapshot snapshot(std::uint32_t word) const { return lists_[word]; }

  // Whether image `id` was erased (and not filed again): its features may still lie in lists.
  bool erased(ImageId id) const { return id < erased_ids_.size() && erased_ids_[id]; }
  // Features in `word`'s list that belong to erased images.
  std::size_t erasedFeatures(std::uint32_t word) const { return erased_features_[word]; }

  // The one writer, beside snapshot() but before the changes it prepares for: copies of the lists of
  // `words` (ascending, each once) that searches hold now and that the change will alter: those
  // that gain `gained[i]` > 0 features (with room for them), and those that lose `lost[i]` where that
  // compacts the list. The next insert or erase of the word takes its copy instead of copying the
  // list then. (Only writers change lists, so a copy stays current until the writer uses it.)
  // dropCopies() forgets those not used.
  void prepareCopies(const std::vector<std::uint32_t>& words, const std::vector<std::size_t>& gained,
                     const std::vector<std::size_t>& lost);
  void dropCopies() { prepared_.clear(); }

 private:
  // The list of `word` to change in place: a new one, or a copy where a snapshot of it is held.
  WordFeatures& writable(std::uint32_t word);
  // Whether `word`'s list, with `more` features erased, is a third or more erased features.
  bool compacts(std::uint32_t word, std::size_t more) const;
  // Takes the erased images' features out of `word`'s list.
  void compact(std::uint32_t word);

  std::vector<std::shared_ptr<WordFeatures>> lists_;  // by word; null where no feature was ever filed
  std::vector<std::size_t> erased_features_;          // by word: features of erased images in its list
  std::vector<bool> erased_ids_;                      // by id: erased, maybe still in lists
  std::vector<std::pair<std::uint32_t, std::shared_ptr<WordFeatures>>> prepared_;  // copies by word, ascending
};

}  // namespace bovw::retrieval_detail
