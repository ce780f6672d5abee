// The keypoints a database keeps per indexed image for geometric verification, compactly: 16 bytes
// per keypoint (a 32-bit word id, the position quantised to 16 bits per axis in 1/65535ths of the
// image's width and height: better than 0.1 px for images up to 6,500 px, and the 64-bit word
// signature), sorted by word so that two images' shared words are found by one merge. Its place in
// the .bovwdb file is in docs/FORMATS.md.
#pragma once

#include <bovw/image_words.hpp>
#include <bovw/inverted_index.hpp>

#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"
#include "retrieval/signature_postings.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <vector>

namespace bovw::retrieval_detail {

class KeypointStore {
 public:
  explicit KeypointStore(int words) : words_(words), postings_(words) {}
  KeypointStore(KeypointStore&& other) noexcept;
  KeypointStore& operator=(KeypointStore&& other) noexcept;

  // One image's keypoints, checked and quantised, in word order.
  struct Keypoint {
    std::uint32_t word;
    std::uint16_t x, y;
    std::uint64_t signature;
  };
  struct StoredImage {
    std::uint32_t width = 0, height = 0;
    std::vector<Keypoint> keypoints;
  };

  // Checks and quantises `image` (first, so that a database refuses a bad image before its index
  // changes). Throws InvalidInput naming `name` if the points, words and signatures differ in
  // count, a word is outside [0, K), a point lies outside the image, or the image size is not
  // positive while there are points.
  StoredImage prepare(const ImageWords& image, const std::string& name) const;
  // Keeps a prepared image's keypoints under `id`, replacing what it held.
  void put(ImageId id, StoredImage image);
  void erase(ImageId id);
  // The keypoints stored for `id`, in word order; nullopt if none were stored.
  std::optional<ImageWords> get(ImageId id) const;
  // The same as stored (quantised), for copying it elsewhere.
  std::optional<StoredImage> stored(ImageId id) const;
  // Calls visit(const StoredImage&) with the keypoints stored for `id`, in place under the store's
  // read lock (scoring many images without a copy of each); false if none are stored.
  template <class Visit>
  bool visit(ImageId id, Visit&& visit) const {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    if (id >= images_.size() || !images_[id]) return false;
    visit(*images_[id]);
    return true;
  }

  // Calls visit(const SignaturePostings&) with every stored keypoint's signature filed by word, under
  // the store's read lock.
  template <class Visit>
  void visitPostings(Visit&& visit) const {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    visit(postings_);
  }

  // Block layout: u32 S, image slots; then per slot u32 n (0xffffffff: nothing stored), and when
  // stored u32 width, u32 height and n x (u32 word, u16 x, u16 y, u64 signature).
  void write(detail::ByteWriter& out) const;
  // One stored image in that layout (its count first), for a store that keeps images apart (a live
  // database's image records); readImage reads the rest after the count, with read()'s checks, and
  // fails through `in` naming the image as `image`.
  static void writeImage(detail::ByteWriter& out, const StoredImage& image);
  static StoredImage readImage(detail::ByteReader& in, std::uint32_t count, int words, const std::string& image);
  // Reads what write() wrote for `index` (the database's): one slot per id the index ever assigned,
  // keypoints stored exactly for its live images (else verification would silently skip an image),
  // every count checked against the bytes left before it is allocated, every word against K.
  // Fails through `in`.
  static KeypointStore read(detail::ByteReader& in, const InvertedIndex& index);

 private:
  // Files image `id`'s keypoints into postings_, or takes them out; under the write lock.
  void file(ImageId id, const StoredImage& image);
  void unfile(ImageId id, const StoredImage& image);

  int words_;
  mutable std::shared_mutex mutex_;  // put/erase beside get from verifying threads
  std::vector<std::optional<StoredImage>> images_;  // by id
  SignaturePostings postings_;                      // the same signatures by word, for scoring
};

}  // namespace bovw::retrieval_detail
