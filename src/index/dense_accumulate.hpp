// The exhaustive query's inner loop for a dense posting list (posting_list.hpp): one word's
// contributions added to a range of images' scores, eight images an instruction where the CPU has
// AVX-512, with the same operations in the same order as the scalar loop, hence the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bovw::index_detail {

// Counts below this are weighed from the caller's table; larger ones add 0 here (exactly nothing)
// and are left to the caller, which is told whether the range had any.
constexpr int kDenseTabledCounts = 16;

struct DenseWord {
  const std::uint8_t* counts;             // stored counts by image id
  double q;                               // the query's weight of the word
  double term_idf[kDenseTabledCounts];    // termWeight(c) * idf for c < 16; entry 0 is 0
};

// For every id in [begin, end): score[id] += q * d (cosine) or min(q, d) (intersection) with
// d = term_idf[c] * scale[id] and c = counts[id] (an image without the word, c = 0, adds exactly 0).
// Returns whether some count in the range was kDenseTabledCounts or more (added as 0).
bool addDenseWord(const DenseWord& word, bool cosine, const double* scale, double* score, std::size_t begin,
                  std::size_t end);
// The same with the scalar loop whatever the CPU: the reference the vector loop is tested against.
bool addDenseWordScalar(const DenseWord& word, bool cosine, const double* scale, double* score, std::size_t begin,
                        std::size_t end);

}  // namespace bovw::index_detail
