// An image-retrieval database in one file: how features are extracted, the vocabulary, and the
// inverted index of the images added so far. What `bovw index` writes and `bovw search` and
// `bovw evaluate` read; an application can load it and query by image or by histogram.
#pragma once

#include <bovw/feature_extractor.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/feature_spec.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/vocabulary.hpp>

#include <memory>
#include <string>
#include <vector>

namespace bovw {

class ImageDatabase {
 public:
  // An empty index over `vocabulary`, for images whose features `features` describes (stored
  // normalised: every parameter present). Throws InvalidInput if the spec is invalid or its
  // descriptors do not fit the vocabulary (checkCompatible).
  ImageDatabase(Vocabulary vocabulary, FeatureSpec features);

  const Vocabulary& vocabulary() const { return vocabulary_; }
  const FeatureSpec& features() const { return features_; }
  InvertedIndex& index() { return index_; }
  const InvertedIndex& index() const { return index_; }

  // An extractor that makes descriptors this database's vocabulary accepts.
  std::unique_ptr<FeatureExtractor> makeExtractor(const ExtractorOptions& options = {}) const;

  // File layout (little-endian; docs/FORMATS.md): magic "BOVWDB\0\0", u32 version 3, u32 byte-order
  // mark 0x01020304, u32 length + the feature spec's canonical text, u64 length + a .bovw
  // vocabulary, u64 length + an inverted index, u64 checksum of every byte before it. Saving is
  // atomic; loading checks the checksum and every length against the file, and still reads
  // versions 1 and 2 (SURF or SIFT settings in fixed fields; version 1 without a checksum). Throws
  // IoError if the file cannot be read or written, InvalidInput naming the file if it is damaged.
  void save(const std::string& path) const;
  static ImageDatabase load(const std::string& path);

 private:
  ImageDatabase(Vocabulary vocabulary, FeatureSpec features, InvertedIndex index);

  Vocabulary vocabulary_;
  FeatureSpec features_;
  InvertedIndex index_;
};

}  // namespace bovw
