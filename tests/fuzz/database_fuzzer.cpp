// libFuzzer harness: the .bovwdb reader (ImageDatabase::load, src/retrieval/image_database.cpp) on
// arbitrary files: its own fields, then the .bovw vocabulary and the index inside it, then the
// checks that they fit each other and the feature settings. Version 2 files and the blocks inside
// end in checksums, so each input is also tried with all three rewritten to match where its
// declared lengths allow (version 1 files, in the seeds too, have no outer checksum).
#include "core/resealing.hpp"
#include "fuzz/fuzz_support.hpp"

#include <bovw/image_database.hpp>

#include <optional>
#include <vector>

using namespace bovw;

namespace {

constexpr std::size_t kVocabularyLengthAt = 44;  // after the header and the feature settings

std::uint64_t u64At(const std::vector<char>& bytes, std::size_t at) {
  return detail::decodeLittleEndian<std::uint64_t>(reinterpret_cast<const unsigned char*>(bytes.data()) + at);
}

// `bytes` with the checksums of the embedded vocabulary, the embedded index and the file rewritten.
std::vector<char> resealed(std::vector<char> bytes) {
  std::size_t at = kVocabularyLengthAt;
  for (int block = 0; block < 2 && at + 8 <= bytes.size(); ++block) {
    const std::uint64_t length = u64At(bytes, at);
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
  const auto extractor = database->makeExtractor(SurfBackend::Builtin);
  fuzz::require(extractor->descriptorSize() == database->vocabulary().dimension() &&
                    database->index().vocabulary().words == database->vocabulary().size(),
                "an accepted database's features, vocabulary and index fit");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<char> bytes(data, data + size);
  check(bytes);
  if (bytes.size() >= 8) check(resealed(bytes));
  return 0;
}
