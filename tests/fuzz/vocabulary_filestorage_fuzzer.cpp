// libFuzzer harness: vocabularies in OpenCV FileStorage (src/io/vocabulary_filestorage.cpp) on
// arbitrary files. bovw's FileStorage reader (src/io/filestorage_reader.hpp) picks YAML, XML or JSON
// and gzip by the content, so one harness reaches all three parsers (libyaml, pugixml,
// nlohmann::json: not instrumented, Debian's builds) and bovw's code around them (instrumented):
// the directive handling, the tree builder, OpenCV's number rules, the matrix checks, inflating.
// The file is named .yml.gz when the bytes start with gzip's magic and .yml otherwise, as a user
// would name it; the reader does not look at the name.
#include "fuzz/fuzz_support.hpp"

#include <bovw/vocabulary_io.hpp>

using namespace bovw;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile plain(".yml"), gzip(".yml.gz");
  const bool gzipped = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const std::string& path = (gzipped ? gzip : plain).write(data, size);
  Vocabulary vocabulary(Descriptors::Zero(1, 1));
  if (fuzz::acceptsOrRefuses([&] { vocabulary = loadVocabulary(path); }))
    fuzz::require(vocabulary.size() > 0 && vocabulary.dimension() > 0 && vocabulary.centroids().allFinite() &&
                      (vocabulary.descriptorType().width() == 0 ||
                       vocabulary.descriptorType().width() == vocabulary.dimension()),
                  "an accepted vocabulary has words, a width, finite values and a descriptor type of its width");
  return 0;
}
