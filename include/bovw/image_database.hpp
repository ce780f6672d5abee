// An image-retrieval database in one file: how features are extracted, the vocabulary, the
// inverted index of the images added so far and, when asked for, their keypoints for geometric
// verification. What `bovw index` writes and `bovw search` and `bovw evaluate` read; an
// application can load it and query by image or by histogram.
#pragma once

#include <bovw/feature_extractor.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/feature_spec.hpp>
#include <bovw/geometric_verification.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_words.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/vocabulary.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bovw {

namespace retrieval_detail {
class KeypointStore;
struct DatabaseEditor;
}

struct DatabaseOptions {
  // Keep every image's keypoints, words, word signatures and the keypoints' scale and angle (18 bytes
  // per keypoint in the file) so that results can be verified geometrically (verify()) and scored by
  // Hamming embedding; without them the database holds only the index.
  bool store_keypoints = false;
};

// add/remove may run beside queries and verify() in other threads (the index and the keypoints
// each take their own locks); an image being added may be ranked before its keypoints are in, and
// is then not verified.
class ImageDatabase {
 public:
  // An empty index over `vocabulary`, for images whose features `features` describes (stored
  // normalised: every parameter present). Throws InvalidInput if the spec is invalid or its
  // descriptors do not fit the vocabulary (checkCompatible).
  ImageDatabase(Vocabulary vocabulary, FeatureSpec features, DatabaseOptions options = {});
  ~ImageDatabase();
  ImageDatabase(ImageDatabase&&) noexcept;
  ImageDatabase& operator=(ImageDatabase&&) noexcept;

  const Vocabulary& vocabulary() const { return vocabulary_; }
  const FeatureSpec& features() const { return features_; }
  // Queries, names and ids; images are added and removed through the database (below), so that
  // their keypoints stay with them.
  const InvertedIndex& index() const { return index_; }
  bool storesKeypoints() const { return keypoints_ != nullptr; }
  // Whether it stores keypoints and every image's have their scale and angle, which weak geometric
  // consistency needs (ScoringOptions::weak_geometry): not for a database written before format
  // version 5, nor for images added with ImageWords that lack sizes and angles.
  bool storesScaleAndAngle() const;

  // Indexes an image by its histogram. Throws InvalidInput if the database stores keypoints (it
  // needs the image's words: the overload below), and as InvertedIndex::add.
  ImageId add(std::string name, HistogramRef histogram);
  // Indexes an image by its words (its histogram is their count per word), keeping its keypoints
  // when the database stores them (histogramImages with PipelineOptions::keep_words makes these).
  // Throws InvalidInput naming the image for words outside the vocabulary and, when keypoints are
  // stored, for points, words and signatures of different counts or points outside the image.
  ImageId add(std::string name, const ImageWords& words);
  void remove(const std::string& name);  // throws InvalidInput if no image has this name
  // Adds every image of `later` after this database's, keypoints included (InvertedIndex::append):
  // the database that adding them one by one in id order would make. `later` is left empty.
  // Throws InvalidInput, before anything changes, for another vocabulary, other features, a
  // different choice of storing keypoints, or a name both hold.
  void append(ImageDatabase&& later);

  // The top `top_k` images for a query image's words under `options`, best first (equal scores by
  // id). The bag-of-words similarities rank the words' histogram (index().query); Scoring::Hamming
  // scores every image that shares a word with the query by its features and their signatures
  // (scoring.hpp), which costs a merge of the query's features with each such image's keypoints.
  // Throws InvalidInput as index().query, naming a word outside the vocabulary, and for Hamming
  // embedding when the database stores no keypoints or the query has no signatures, and for weak
  // geometric consistency when the query or a stored image lacks keypoint sizes and angles.
  std::vector<SearchResult> query(const ImageWords& query, std::size_t top_k, const ScoringOptions& options) const;
  // The same with the idf of `global` (the model of several shards, InvertedIndex::query).
  std::vector<SearchResult> query(const ImageWords& query, std::size_t top_k, const ScoringOptions& options,
                                  const TfIdfModel& global) const;

  // The stored keypoints of an indexed image (in word order); nullopt if the database stores none
  // or the id is unknown.
  std::optional<ImageWords> keypoints(ImageId id) const;
  // Geometric re-ranking of `ranking` (from index().query) for a query image's words
  // (bovw/geometric_verification.hpp). Throws InvalidInput naming the database's lack of keypoints
  // when it stores none.
  std::vector<VerifiedResult> verify(const ImageWords& query, const std::vector<SearchResult>& ranking,
                                     const VerificationOptions& options, VerificationReport* report = nullptr) const;

  // Where Hamming-embedding searches (the default scoring of a database with keypoints) scan the
  // stored signatures: on the OpenCL device that `device` picks (a spec as HistogrammerConfig::device),
  // where they are copied now (12 bytes a stored keypoint, and room to grow) and every later add and
  // remove follows them. The rankings are the host's, bit for bit. For a process that serves many
  // searches on a GPU (bovw serve): at 100,000 images a search reads some 60 MB of signatures. Does
  // not change the database, and is safe beside searches and changes. Throws InvalidInput if the
  // database stores no keypoints, no device matches or it lacks double precision; CapacityError if
  // the lists do not fit its memory; OpenCLError.
  void scanSignaturesOn(const std::string& device) const;
  struct SignatureScan {
    std::string device;  // the device's name; "": on the host
    // Why the copy on a device was dropped (a change it could not follow: its memory full); "" if not.
    std::string dropped_because;
  };
  SignatureScan signatureScan() const;

  // An extractor that makes descriptors this database's vocabulary accepts.
  std::unique_ptr<FeatureExtractor> makeExtractor(const ExtractorOptions& options = {}) const;

  // File layout (little-endian; docs/FORMATS.md): magic "BOVWDB\0\0", u32 version 5, u32 byte-order
  // mark 0x01020304, u32 length + the feature spec's canonical text, u64 length + a .bovw
  // vocabulary, u64 length + an inverted index, u64 length + the keypoints (0: none stored), u64
  // checksum of every byte before it. Saving is atomic; loading checks the checksum and every
  // length against the file, and still reads versions 1 to 4 (4: keypoints without scale and
  // angle; 1 to 3 no keypoints; 1 and 2 with SURF or SIFT settings in fixed fields; 1 without a
  // checksum). Throws IoError if the file cannot be read
  // (or is not a regular file: a FIFO, a device) or written, InvalidInput naming the file if it is
  // damaged, from its header and block lengths before it is read whole, and if its index does not
  // fit its vocabulary or its keypoints its index.
  void save(const std::string& path) const;
  // The same bytes to a stream, for a caller that writes several files as one job
  // (writeFilesAtomically: the shards of a ShardedDatabase).
  void write(std::ostream& out) const;
  static ImageDatabase load(const std::string& path);

 private:
  friend struct retrieval_detail::DatabaseEditor;  // changes of many images at once (live databases)
  ImageDatabase(Vocabulary vocabulary, FeatureSpec features, InvertedIndex index,
                std::unique_ptr<retrieval_detail::KeypointStore> keypoints);

  // `global`: null for the index's own model.
  std::vector<SearchResult> queryWith(const ImageWords& query, std::size_t top_k, const ScoringOptions& options,
                                      const TfIdfModel* global) const;

  Vocabulary vocabulary_;
  FeatureSpec features_;
  InvertedIndex index_;
  std::unique_ptr<retrieval_detail::KeypointStore> keypoints_;  // null: keypoints not stored
};

}  // namespace bovw
