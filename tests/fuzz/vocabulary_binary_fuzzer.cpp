// libFuzzer harness: the .bovw vocabulary reader (src/io/vocabulary_binary.cpp), both of its
// paths: from a file (loadVocabulary, read piece by piece) and from memory (decodeVocabularyBinary,
// the vocabulary inside a .bovwdb). They must agree on every input. Each input is also tried with
// its trailing checksum rewritten to match, so that mutations reach the checks behind it.
#include "fuzz/fuzz_support.hpp"
#include "io/vocabulary_formats.hpp"
#include "support/resealing.hpp"

#include <bovw/vocabulary_io.hpp>

#include <sstream>
#include <vector>

using namespace bovw;

namespace {

void check(const std::vector<char>& bytes) {
  static fuzz::ScratchFile file(".bovw");
  const std::string& path = file.write(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());

  Vocabulary from_file(Descriptors::Zero(1, 1)), from_memory(Descriptors::Zero(1, 1));
  const bool file_read = fuzz::acceptsOrRefuses([&] { from_file = loadVocabulary(path); });
  const bool memory_read = fuzz::acceptsOrRefuses(
      [&] { from_memory = detail::decodeVocabularyBinary(bytes.data(), bytes.size(), "memory"); });
  fuzz::require(file_read == memory_read, "the file and memory readers agree");
  if (!file_read) return;
  fuzz::require(from_file.centroids() == from_memory.centroids() &&
                    from_file.descriptorType() == from_memory.descriptorType(),
                "the file and memory readers read the same vocabulary");
  // Version 2 is canonical: writing what was read gives the same bytes back.
  if (detail::decodeLittleEndian<std::uint32_t>(reinterpret_cast<const unsigned char*>(bytes.data()) + 8) == 2) {
    std::ostringstream out;
    detail::writeVocabularyBinary(out, from_file);
    fuzz::require(out.str() == std::string(bytes.begin(), bytes.end()), "a version 2 file round-trips");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::checkAsIsAndResealed(data, size, check, [](const std::vector<char>& bytes) { return test::resealed(bytes); });
}
