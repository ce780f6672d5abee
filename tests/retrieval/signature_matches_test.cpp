// markMatches (which of a word's stored signatures some query signature lies within the Hamming
// threshold of): the vector and scalar loops against the definition (std::bitset's count of the
// differing bits), on lists of every length around the vectors' 8 and the marks' 64, with signatures
// planted at the threshold, one bit inside and one outside; nextMark against a plain scan.
#include "support/test_support.hpp"

#include "retrieval/signature_matches.hpp"

#include <bitset>

namespace bovw::test {
namespace {

using retrieval_detail::markMatches;
using retrieval_detail::markMatchesScalar;
using retrieval_detail::nextMark;

// `base` with `bits` distinct bits flipped.
std::uint64_t flipped(std::mt19937_64& rng, std::uint64_t base, int bits) {
  std::vector<int> positions(64);
  for (int i = 0; i < 64; ++i) positions[i] = i;
  std::shuffle(positions.begin(), positions.end(), rng);
  for (int i = 0; i < bits; ++i) base ^= std::uint64_t{1} << positions[i];
  return base;
}

bool marked(const std::vector<std::uint64_t>& marks, std::size_t b) { return (marks[b / 64] >> (b % 64)) & 1; }

TEST(SignatureMatches, MarksWhatTheDefinitionMarks) {
  BOVW_SEEDED_RNG(rng);
  std::uniform_int_distribution<std::uint64_t> any;
  for (const std::size_t n : {0, 1, 7, 8, 9, 15, 63, 64, 65, 127, 200, 1001}) {
    for (const std::size_t query_count : {1, 3, 17}) {
      for (const int threshold : {0, 5, 20, 63, 64}) {
        std::vector<std::uint64_t> query(query_count);
        for (auto& s : query) s = any(rng);
        std::vector<std::uint64_t> stored(n);
        for (auto& s : stored) {
          // A third at random (about 32 bits from everything), the rest near some query signature:
          // at the threshold, one bit inside it or one bit beyond it.
          const int kind = std::uniform_int_distribution<int>(0, 5)(rng);
          const std::uint64_t near = query[std::uniform_int_distribution<std::size_t>(0, query_count - 1)(rng)];
          if (kind < 2) s = any(rng);
          else s = flipped(rng, near, std::clamp(threshold + (kind - 3), 0, 64));
        }
        std::vector<std::uint64_t> vector_marks{0xdeadbeef}, scalar_marks{0xdeadbeef};  // stale contents go
        markMatches(query.data(), query.size(), stored.data(), n, threshold, vector_marks);
        markMatchesScalar(query.data(), query.size(), stored.data(), n, threshold, scalar_marks);
        ASSERT_EQ(vector_marks.size(), (n + 63) / 64);
        ASSERT_EQ(scalar_marks, vector_marks) << "n " << n << ", threshold " << threshold;
        std::size_t expected_next = n;
        for (std::size_t b = n; b-- > 0;) {
          bool near = false;
          for (std::uint64_t q : query) near = near || static_cast<int>(std::bitset<64>(q ^ stored[b]).count()) <= threshold;
          ASSERT_EQ(marked(vector_marks, b), near) << "signature " << b << " of " << n << ", threshold " << threshold;
          if (near) expected_next = b;
          ASSERT_EQ(nextMark(vector_marks, b, n), expected_next) << b;
        }
        for (std::size_t b = n; b < n + 70; ++b) ASSERT_EQ(nextMark(vector_marks, b, n), n);
        if (n % 64 != 0) {
          ASSERT_EQ(vector_marks.back() >> (n % 64), 0u) << "marks beyond the list";
        }
      }
    }
  }
}

}  // namespace
}  // namespace bovw::test
