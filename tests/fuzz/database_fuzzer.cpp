// libFuzzer harness: the .bovwdb reader (ImageDatabase::load, src/retrieval/image_database.cpp) on
// arbitrary files: its own fields, then the .bovw vocabulary and the index inside it, then the
// checks that they fit each other and the feature spec, and the stored keypoints. Version 2-4 files and the blocks inside
// end in checksums, so each input is also tried with all three rewritten to match where its
// declared lengths allow (version 1 files, in the seeds too, have no outer checksum).
#include "fuzz/fuzz_support.hpp"
#include "support/resealing.hpp"

#include <bovw/image_database.hpp>

#include <algorithm>
#include <optional>
#include <vector>

using namespace bovw;

namespace {

template <typename T>
T valueAt(const std::vector<char>& bytes, std::size_t at) {
  return detail::decodeLittleEndian<T>(reinterpret_cast<const unsigned char*>(bytes.data()) + at);
}

// Where the vocabulary's length field is (docs/FORMATS.md): after the 16-byte header, version 3 has
// the feature spec (u32 length S, then S bytes), version 2 the 28 bytes of SURF settings.
std::size_t vocabularyLengthAt(const std::vector<char>& bytes) {
  if (bytes.size() < 20) return bytes.size();
  if (valueAt<std::uint32_t>(bytes, 8) >= 3) return 20 + std::size_t{valueAt<std::uint32_t>(bytes, 16)};
  return 44;
}

// `bytes` with the checksums of the embedded vocabulary, the embedded index and the file rewritten.
std::vector<char> resealed(std::vector<char> bytes) {
  std::size_t at = vocabularyLengthAt(bytes);
  for (int block = 0; block < 2 && at + 8 <= bytes.size(); ++block) {
    const std::uint64_t length = valueAt<std::uint64_t>(bytes, at);
    if (length < 8 || length > bytes.size() - at - 8) break;
    test::reseal(bytes, at + 8, at + 8 + length);
    at += 8 + length;
  }
  test::reseal(bytes, 0, bytes.size());
  return bytes;
}

void check(const std::vector<char>& bytes) {
  static fuzz::ScratchFile file(".bovwdb");
  const std::string& path = file.write(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  std::optional<ImageDatabase> database;
  if (!fuzz::acceptsOrRefuses([&] { database.emplace(ImageDatabase::load(path)); })) return;
  // The constructor's promise: the features make descriptors the vocabulary and the index accept.
  ExtractorOptions builtin;
  builtin.surf_backend = SurfBackend::Builtin;
  const auto extractor = database->makeExtractor(builtin);
  fuzz::require(extractor->descriptorSize() == database->vocabulary().dimension() &&
                    database->index().vocabulary().words == database->vocabulary().size(),
                "an accepted database's features, vocabulary and index fit");
  // Stored keypoints: for every live image when any are (verification skips none), words within
  // the vocabulary, in word order, points inside their image.
  for (ImageId id : database->index().ids()) {
    const std::optional<ImageWords> keypoints = database->keypoints(id);
    fuzz::require(keypoints.has_value() == database->storesKeypoints(),
                  "a database that stores keypoints has them for every live image");
    if (!keypoints) continue;
    fuzz::require(std::is_sorted(keypoints->words.begin(), keypoints->words.end()) &&
                      std::all_of(keypoints->words.begin(), keypoints->words.end(),
                                  [&](std::int32_t w) { return w >= 0 && w < database->vocabulary().size(); }),
                  "stored keypoints' words are within the vocabulary, in order");
    for (const cv::Point2f& p : keypoints->points)
      fuzz::require(p.x >= 0 && p.y >= 0 && p.x <= keypoints->image_size.width && p.y <= keypoints->image_size.height,
                    "stored keypoints lie inside their image");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::checkAsIsAndResealed(data, size, check, [](const std::vector<char>& bytes) { return resealed(bytes); });
}
