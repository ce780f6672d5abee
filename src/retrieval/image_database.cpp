// ImageDatabase: the container file around a vocabulary and an inverted index (format in
// docs/FORMATS.md; fields below).
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/vocabulary_io.hpp>

#include "io/file_bytes.hpp"
#include "io/file_header.hpp"
#include "io/vocabulary_formats.hpp"

#include <sstream>

namespace bovw {

namespace {

// Version 1 had no checksum (its feature settings were checked by nothing) and was written in the
// host's byte order: little-endian on every machine that wrote one, so version 2's reader reads it.
constexpr detail::BinaryFormat kFormat{"bovw database", {'B', 'O', 'V', 'W', 'D', 'B', '\0', '\0'}, 2, 1, 2};

//   16  4  feature kind (0 SURF, 1 SIFT)
//   20  8  f64 Hessian threshold
//   28  4  i32 octaves
//   32  4  i32 layers per octave
//   36  4  u32 extended (0 or 1)
//   40  4  u32 upright (0 or 1)
void writeFeatures(detail::ByteWriter& out, const FeatureSettings& features) {
  out.u32(features.kind == FeatureKind::Sift ? 1 : 0);
  out.f64(features.surf.hessian_threshold);
  out.i32(features.surf.octaves);
  out.i32(features.surf.octave_layers);
  out.u32(features.surf.extended ? 1 : 0);
  out.u32(features.surf.upright ? 1 : 0);
}

FeatureSettings readFeatures(detail::ByteReader& in) {
  FeatureSettings features;
  const auto kind = in.u32("the feature kind");
  if (kind > 1) in.fail("unknown feature kind " + std::to_string(kind));
  features.kind = kind == 1 ? FeatureKind::Sift : FeatureKind::Surf;
  features.surf.hessian_threshold = in.f64("the SURF parameters");
  features.surf.octaves = in.i32("the SURF parameters");
  features.surf.octave_layers = in.i32("the SURF parameters");
  auto flag = [&](const char* name) {
    const auto value = in.u32("the SURF parameters");
    if (value > 1) in.fail(std::string("SURF flag '") + name + "' is " + std::to_string(value) + ", not 0 or 1");
    return value == 1;
  };
  features.surf.extended = flag("extended");
  features.surf.upright = flag("upright");
  return features;
}

}  // namespace

ImageDatabase::ImageDatabase(Vocabulary vocabulary, FeatureSettings features)
    : ImageDatabase(vocabulary, features, InvertedIndex(vocabulary)) {}

ImageDatabase::ImageDatabase(Vocabulary vocabulary, FeatureSettings features, InvertedIndex index)
    : vocabulary_(std::move(vocabulary)), features_(features), index_(std::move(index)) {
  const auto extractor = makeExtractor(SurfBackend::Builtin);
  checkCompatible(vocabulary_, extractor->descriptorType(), extractor->descriptorSize(), "");
  index_.checkVocabulary(vocabulary_);
}

std::unique_ptr<FeatureExtractor> ImageDatabase::makeExtractor(SurfBackend backend) const {
  return FeatureExtractor::create(features_.kind, features_.surf, backend);
}

void ImageDatabase::save(const std::string& path) const {
  std::ostringstream vocabulary, index;
  detail::writeVocabularyBinary(vocabulary, vocabulary_);
  index_.write(index);
  writeFileAtomically(path, [&](std::ostream& out) {
    detail::ByteWriter w(out);
    detail::writeFileHeader(w, kFormat);
    writeFeatures(w, features_);
    for (const std::string& block : {vocabulary.str(), index.str()}) {
      w.u64(block.size());
      w.text(block);
    }
    w.checksum();
  });
}

ImageDatabase ImageDatabase::load(const std::string& path) {
  const std::vector<char> bytes = detail::readFileBytes(path);
  detail::ByteReader r(bytes.data(), bytes.size(), path, kFormat.name);
  if (detail::readFileHeader(r, kFormat) >= kFormat.first_summed) detail::readTrailingChecksum(r);
  const FeatureSettings features = readFeatures(r);
  const std::uint64_t vocabulary_length = r.u64("the vocabulary's length");
  const char* vocabulary_bytes = r.take(vocabulary_length, "the vocabulary");
  const std::uint64_t index_length = r.u64("the index's length");
  const char* index_bytes = r.take(index_length, "the index");
  if (r.remaining() != 0) r.fail("unexpected bytes after the index");
  Vocabulary vocabulary =
      detail::decodeVocabularyBinary(vocabulary_bytes, vocabulary_length, path + " (vocabulary)");
  InvertedIndex index = InvertedIndex::read(std::vector<char>(index_bytes, index_bytes + index_length), path + " (index)");
  try {
    return ImageDatabase(std::move(vocabulary), features, std::move(index));
  } catch (const InvalidInput& e) {
    r.fail(e.problem());
  }
}

}  // namespace bovw
