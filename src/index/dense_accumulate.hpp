// The exhaustive query's inner loop for the dense posting lists (posting_list.hpp): every dense word
// of the query added to a range of images' scores in one pass, eight images an instruction where
// the CPU has AVX-512, each image's sum held in a register across the words. Scores are fixed-point
// integers (score_units.hpp), so the order in which words are added changes no bit: the vector loop,
// the scalar one and the sparse loop give the same sums.
#pragma once

#include "index/score_units.hpp"

#include <cstddef>
#include <cstdint>

namespace bovw::index_detail {

// Counts below this are weighed from the word's table; larger ones add 0 here and are left to the
// caller, which is told which words had any.
constexpr int kDenseTabledCounts = 16;

struct DenseWord {
  const std::uint8_t* counts;             // stored counts by image id, for ids below span
  std::size_t span;
  double q;                               // the query's weight of the word
  double term_idf[kDenseTabledCounts];    // termWeight(c) * idf for c < 16; entry 0 is 0
};

// For every id in [begin, end) and every word of `words` (n of them): score[id] += scoreUnits(q * d)
// (cosine) or scoreUnits(min(q, d)) (intersection) with d = term_idf[c] * scale[id] and c =
// counts[id] (an image without the word, c = 0 or id >= span, adds exactly 0). large[j] is set to 1 when word j
// has a count of kDenseTabledCounts or more in the range (added as 0), else left as it is.
void addDenseWords(const DenseWord* words, std::size_t n, bool cosine, const double* scale, std::int64_t* score,
                   std::size_t begin, std::size_t end, std::uint8_t* large);
// The same with the scalar loop whatever the CPU: the reference the vector loop is tested against.
void addDenseWordsScalar(const DenseWord* words, std::size_t n, bool cosine, const double* scale, std::int64_t* score,
                         std::size_t begin, std::size_t end, std::uint8_t* large);

}  // namespace bovw::index_detail
