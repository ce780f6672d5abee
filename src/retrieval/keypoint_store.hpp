// The keypoints a database keeps per indexed image for geometric verification and Hamming-embedding
// scoring, compactly: 18 bytes per keypoint on disk (a 32-bit word id, the position quantised to 16
// bits per axis in 1/65535ths of the image's width and height: better than 0.1 px for images up to
// 6,500 px, the 64-bit word signature, and the scale and angle in a byte each, for weak geometric
// consistency), sorted by word so that two images' shared words are found by one merge. Its place in
// the .bovwdb file is in docs/FORMATS.md.
#pragma once

#include <bovw/image_words.hpp>
#include <bovw/inverted_index.hpp>

#include "core/writer_fair_mutex.hpp"
#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"
#include "retrieval/resident_signatures.hpp"
#include "retrieval/signature_postings.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <optional>
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
  // A keypoint's scale and orientation, a byte each: log_scale = round(16 log2(size)) clamped to
  // [0, 255] (1/16 octave, sizes 1 to 61,000 px), angle = round(angle * 256 / 360) mod 256 (1.4
  // degrees; a detector's -1, no orientation, is 0). Kept apart from Keypoint, which stays 16 bytes
  // in memory (two more bytes in it would pad it to 24).
  struct ScaleAngle {
    std::uint8_t log_scale, angle;
  };
  static constexpr double kLogScaleSteps = 16.0;  // per octave
  static std::uint8_t quantiseLogScale(float size);
  static std::uint8_t quantiseAngle(float degrees);
  struct StoredImage {
    std::uint32_t width = 0, height = 0;
    std::vector<Keypoint> keypoints;
    // scale_angles[i] belongs to keypoints[i]; empty when not known (an image from a database written
    // before format version 5, or given without sizes and angles).
    std::vector<ScaleAngle> scale_angles;
    // Whether weak geometric consistency can score it: every keypoint has its scale and angle.
    bool hasScaleAngles() const { return scale_angles.size() == keypoints.size(); }
  };

  // Checks and quantises `image` (first, so that a database refuses a bad image before its index
  // changes). Throws InvalidInput naming `name` if the points, words and signatures differ in
  // count, the sizes and angles are not both absent or one per point, a word is outside [0, K), a
  // point lies outside the image, or the image size is not positive while there are points.
  StoredImage prepare(const ImageWords& image, const std::string& name) const;
  // Keeps a prepared image's keypoints under `id`, replacing what it held.
  void put(ImageId id, StoredImage image);
  void erase(ImageId id);
  // Keeps every image of `later` under its id plus `offset` (above every id here), as put() one by
  // one would; `later` is left empty. Both stores must be of the same K.
  void append(KeypointStore&& later, ImageId offset);
  // The keypoints stored for `id`, in word order; nullopt if none were stored.
  std::optional<ImageWords> get(ImageId id) const;
  // The same as stored (quantised), for copying it elsewhere.
  std::optional<StoredImage> stored(ImageId id) const;
  // Calls visit(const StoredImage&) with the keypoints stored for `id`, in place under the store's
  // read lock (scoring many images without a copy of each); false if none are stored.
  template <class Visit>
  bool visit(ImageId id, Visit&& visit) const {
    const auto lock = mutex_.read();
    if (id >= images_.size() || !images_[id]) return false;
    visit(*images_[id]);
    return true;
  }

  // Whether every stored image has its keypoints' scales and angles (hasScaleAngles).
  bool storesScaleAngles() const;

  // The stored keypoints' signatures filed under each of `words` (signature_postings.hpp), parallel to
  // them: taken under the store's read lock, then read without it, so that a search scoring from
  // them never holds up put and erase. Erased images' may be among them (until their lists are
  // compacted); the caller drops those images.
  std::vector<SignaturePostings::Snapshot> signatureLists(const std::vector<std::uint32_t>& words) const;

  // The signature lists copied to a device (resident_signatures.hpp) by `make`, which gets them
  // whole; every later put, erase and append is followed there. Where following fails (the device's
  // memory is full), the copy is dropped, searches score on the host again, and residentFailure()
  // says why. Not beside searches' use of resident() (open, before serving).
  using MakeResident = std::function<std::unique_ptr<ResidentSignatures>(const SignaturePostings&)>;
  void keepResident(const MakeResident& make);
  // The copy searches score with, null for none; held by the caller for as long as it uses it.
  std::shared_ptr<ResidentSignatures> resident() const;
  std::string residentFailure() const;

  // Block layout: u32 S, image slots; then per slot u32 n (0xffffffff: nothing stored), and when
  // stored u32 width, u32 height and n' x (u32 word, u16 x, u16 y, u64 signature[, u8 log_scale,
  // u8 angle]): where bit 31 of n is set (kWithScaleAngle) the image has n' = n - 2^31 keypoints
  // of 18 bytes with their scale and angle, else n of 16 bytes without (the only form before
  // database format version 5, and in a live database's records before it).
  static constexpr std::uint32_t kWithScaleAngle = 0x80000000u;
  void write(detail::ByteWriter& out) const;
  // The same as a block of an enclosing file (the database's), under one read lock: u64 its length,
  // then its bytes.
  void writeBlock(detail::ByteWriter& out) const;
  // One stored image in that layout (its count first), for a store that keeps images apart (a live
  // database's image records); readImage reads the rest after the count, with read()'s checks, and
  // fails through `in` naming the image as `image`; `scale_angles_allowed` false (a version-4 file)
  // refuses bit 31.
  static void writeImage(detail::ByteWriter& out, const StoredImage& image);
  static StoredImage readImage(detail::ByteReader& in, std::uint32_t count, int words, const std::string& image,
                               bool scale_angles_allowed = true);
  // Reads what write() wrote for `index` (the database's): one slot per id the index ever assigned,
  // keypoints stored exactly for its live images (else verification would silently skip an image),
  // every count checked against the bytes left before it is allocated, every word against K.
  // Fails through `in`.
  static KeypointStore read(detail::ByteReader& in, const InvertedIndex& index, bool scale_angles_allowed);

 private:
  // The keypoints' indices in word order, those of one word in their given order.
  std::vector<std::uint32_t> wordOrder(const std::vector<Keypoint>& keypoints) const;
  void writeSlots(detail::ByteWriter& out) const;  // write()'s bytes; the caller holds the read lock
  static bool writesScaleAngles(const StoredImage& image);
  static std::uint64_t imageBytes(const StoredImage& image);  // what writeImage writes
  // Files image `id`'s keypoints into postings_, or takes them out; under the write lock.
  void file(ImageId id, const StoredImage& image);
  void unfile(ImageId id, const StoredImage& image);
  // Before the write lock: copies of the lists that `adding` and `removing` change and searches
  // hold (SignaturePostings::prepareCopies).
  // Returns the words that either image has, ascending, each once.
  std::vector<std::uint32_t> prepareCopies(const StoredImage* adding, const StoredImage* removing);
  // After a change of `words` (all where empty), under writing_: the resident copy follows it.
  void followResident(const std::vector<std::uint32_t>& words);

  int words_;
  std::mutex writing_;             // one put or erase at a time, from its copies to its change
  detail::WriterFairMutex mutex_;  // put/erase beside get and scoring from searching threads
  std::vector<std::optional<StoredImage>> images_;  // by id
  std::size_t without_scale_angles_ = 0;            // stored images that lack them
  SignaturePostings postings_;                      // the same signatures by word, for scoring
  std::shared_ptr<ResidentSignatures> resident_;    // changed under writing_ and mutex_'s write lock
  std::string resident_failure_;                    // why resident_ was dropped; as resident_
};

}  // namespace bovw::retrieval_detail
