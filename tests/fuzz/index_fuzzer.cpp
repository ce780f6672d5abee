// libFuzzer harness: the inverted index reader (src/index/index_file.cpp) from memory
// (InvertedIndex::read, what load() and the .bovwdb reader call). Every index file ends in a
// checksum, so each input is tried as it is and with the checksum rewritten to match: the second
// reaches the structural checks behind it. An accepted index must write back to the same bytes
// (the format is canonical) and answer a query.
#include "fuzz/fuzz_support.hpp"
#include "support/resealing.hpp"

#include <bovw/inverted_index.hpp>

#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

using namespace bovw;

namespace {

void check(const std::vector<char>& bytes) {
  std::optional<InvertedIndex> index;
  if (!fuzz::acceptsOrRefuses([&] { index.emplace(InvertedIndex::read(bytes, "memory")); })) return;
  std::ostringstream out;
  index->write(out);
  fuzz::require(out.str() == std::string(bytes.begin(), bytes.end()), "an accepted index round-trips");
  // A query visits the derived idf and norms. K is at most 2^24 (a 64 MB histogram): skip the largest.
  const int words = index->vocabulary().words;
  if (index->empty() || words > (1 << 16)) return;
  const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> histogram = Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>::Ones(words);
  for (Scoring scoring : {Scoring::Cosine, Scoring::Intersection}) {
    const auto results = index->query(histogram, 3, scoring);
    fuzz::require(results.size() <= 3 && results.size() <= index->size(), "a query returns at most top_k live images");
    for (const auto& result : results)
      fuzz::require(std::isfinite(result.score) && result.name == index->name(result.id), "query results are live and finite");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::checkAsIsAndResealed(data, size, check, [](const std::vector<char>& bytes) { return test::resealed(bytes); });
}
