// An image-retrieval database in one file: how features are extracted, the vocabulary, and the
// inverted index of the images added so far. What `bovw index` writes and `bovw search` and
// `bovw evaluate` read; an application can load it and query by image or by histogram.
#pragma once

#include <bovw/feature_extractor.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/vocabulary.hpp>

#include <memory>
#include <string>
#include <vector>

namespace bovw {

struct FeatureSettings {
  FeatureKind kind = FeatureKind::Surf;
  SurfParams surf;  // used when kind is Surf (max_pixels is not stored: it is the reader's limit)
};

class ImageDatabase {
 public:
  // An empty index over `vocabulary`; throws InvalidInput if the features do not produce the
  // vocabulary's descriptor type and width.
  ImageDatabase(Vocabulary vocabulary, FeatureSettings features);

  const Vocabulary& vocabulary() const { return vocabulary_; }
  const FeatureSettings& features() const { return features_; }
  InvertedIndex& index() { return index_; }
  const InvertedIndex& index() const { return index_; }

  // An extractor that makes descriptors this database's vocabulary accepts.
  std::unique_ptr<FeatureExtractor> makeExtractor(SurfBackend backend = SurfBackend::Auto) const;

  // File layout (little-endian; docs/FORMATS.md): magic "BOVWDB\0\0", u32 version 2, u32 byte-order
  // mark 0x01020304, u32 feature kind (0 SURF, 1 SIFT), f64 hessian threshold, i32 octaves, i32
  // layers, u32 extended, u32 upright, u64 length + a .bovw vocabulary, u64 length + an inverted
  // index, u64 checksum of every byte before it. Saving is atomic; loading checks the checksum and
  // every length against the file, and still reads version 1 (no checksum). Throws IoError if the
  // file cannot be read or written, InvalidInput naming the file if it is damaged.
  void save(const std::string& path) const;
  static ImageDatabase load(const std::string& path);

 private:
  ImageDatabase(Vocabulary vocabulary, FeatureSettings features, InvertedIndex index);

  Vocabulary vocabulary_;
  FeatureSettings features_;
  InvertedIndex index_;
};

}  // namespace bovw
