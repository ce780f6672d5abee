// The stored keypoints' signatures filed by word, the images of each word in id order: Hamming-
// embedding scoring reads the lists of the query's words only, as a bag-of-words query reads its
// posting lists, instead of every image's keypoints (Jégou, Douze, Schmid, ECCV 2008, keep the
// signatures in the inverted file for the same reason). 12 bytes a keypoint, in memory only: it is
// rebuilt from the keypoints when a database is read.
#pragma once

#include <bovw/inverted_index.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bovw::retrieval_detail {

class SignaturePostings {
 public:
  explicit SignaturePostings(int words) : ids_(static_cast<std::size_t>(words)), signatures_(static_cast<std::size_t>(words)) {}

  // Files `count` features of image `id` under `word` (an image not yet filed under it), keeping the
  // list in id order: an append for the newest image, an insertion otherwise.
  void insert(ImageId id, std::uint32_t word, const std::uint64_t* signatures, std::size_t count);
  // Takes image `id`'s features out of `word`'s list (nothing if it has none there).
  void erase(ImageId id, std::uint32_t word);

  // Word `word`'s features: the image of each and its signature, in image id order, each image's
  // features side by side.
  const std::vector<ImageId>& ids(std::uint32_t word) const { return ids_[word]; }
  const std::vector<std::uint64_t>& signatures(std::uint32_t word) const { return signatures_[word]; }

 private:
  std::vector<std::vector<ImageId>> ids_;                // by word
  std::vector<std::vector<std::uint64_t>> signatures_;  // by word, parallel to ids_
};

}  // namespace bovw::retrieval_detail
