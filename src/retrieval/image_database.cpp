// ImageDatabase: the container file around a vocabulary and an inverted index.
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/vocabulary_io.hpp>

#include "io/file_bytes.hpp"
#include "io/vocabulary_formats.hpp"

#include <cstring>
#include <sstream>

namespace bovw {

namespace {

constexpr char kMagic[8] = {'B', 'O', 'V', 'W', 'D', 'B', '\0', '\0'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrderMark = 0x01020304;

template <typename T>
void put(std::ostream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Reads fixed-size fields and length-prefixed blocks from a file held in memory, failing with the
// file's name instead of reading past its end.
class Reader {
 public:
  Reader(const std::vector<char>& bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }
  std::vector<char> block(const char* what) {
    const auto length = get<std::uint64_t>(what);
    need(length, what);
    std::vector<char> out(bytes_.begin() + static_cast<std::ptrdiff_t>(position_),
                          bytes_.begin() + static_cast<std::ptrdiff_t>(position_ + length));
    position_ += length;
    return out;
  }
  bool atEnd() const { return position_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidInput("'" + path_ + "' is not a valid bovw database: " + what);
  }

 private:
  void need(std::uint64_t count, const char* what) const {
    if (count > bytes_.size() - position_) fail(std::string("truncated in ") + what);
  }
  const std::vector<char>& bytes_;
  std::string path_;
  std::size_t position_ = 0;
};


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
    out.write(kMagic, sizeof(kMagic));
    put(out, kVersion);
    put(out, kByteOrderMark);
    put(out, static_cast<std::uint32_t>(features_.kind == FeatureKind::Sift ? 1 : 0));
    put(out, features_.surf.hessian_threshold);
    put(out, static_cast<std::int32_t>(features_.surf.octaves));
    put(out, static_cast<std::int32_t>(features_.surf.octave_layers));
    put(out, static_cast<std::uint32_t>(features_.surf.extended));
    put(out, static_cast<std::uint32_t>(features_.surf.upright));
    for (const std::string& block : {vocabulary.str(), index.str()}) {
      put(out, static_cast<std::uint64_t>(block.size()));
      out.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
  });
}

ImageDatabase ImageDatabase::load(const std::string& path) {
  const std::vector<char> bytes = detail::readFileBytes(path);
  Reader r(bytes, path);
  char magic[sizeof(kMagic)];
  for (char& c : magic) c = r.get<char>("the magic");
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) r.fail("wrong magic (expected BOVWDB)");
  if (const auto version = r.get<std::uint32_t>("the version"); version != kVersion)
    r.fail("format version " + std::to_string(version) + ", this build reads version 1");
  if (r.get<std::uint32_t>("the byte-order mark") != kByteOrderMark) r.fail("bad byte-order mark");
  FeatureSettings features;
  const auto kind = r.get<std::uint32_t>("the feature kind");
  if (kind > 1) r.fail("unknown feature kind " + std::to_string(kind));
  features.kind = kind == 1 ? FeatureKind::Sift : FeatureKind::Surf;
  features.surf.hessian_threshold = r.get<double>("the SURF parameters");
  features.surf.octaves = r.get<std::int32_t>("the SURF parameters");
  features.surf.octave_layers = r.get<std::int32_t>("the SURF parameters");
  features.surf.extended = r.get<std::uint32_t>("the SURF parameters") != 0;
  features.surf.upright = r.get<std::uint32_t>("the SURF parameters") != 0;
  const auto vocabulary_bytes = r.block("the vocabulary");
  const auto index_bytes = r.block("the index");
  if (!r.atEnd()) r.fail("unexpected bytes after the index");
  Vocabulary vocabulary = detail::decodeVocabularyBinary(vocabulary_bytes.data(), vocabulary_bytes.size(),
                                                         path + " (vocabulary)");
  InvertedIndex index = InvertedIndex::read(index_bytes, path + " (index)");
  try {
    return ImageDatabase(std::move(vocabulary), features, std::move(index));
  } catch (const InvalidInput& e) {
    r.fail(e.what());
  }
}

}  // namespace bovw
