// The exhaustive query's inner loop for a run of dense posting lists (posting_list.hpp): several words'
// contributions added to a range of images' scores in one pass, 64 images at a time, each image's sum
// held in a register across the words (eight images an instruction where the CPU has AVX-512). Each
// sum still grows word by word in the run's order, with the same operations as the scalar loop: the
// same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bovw::index_detail {

// Counts below this are weighed from the word's table; a group that has a larger one is left to the
// caller.
constexpr int kDenseTabledCounts = 16;
// Images a pass holds in registers; the functions below stop at the start of such a group.
constexpr std::size_t kDenseGroup = 64;

struct DenseWord {
  const std::uint8_t* counts;             // stored counts by image id, for the ids below span
  std::size_t span;
  double q;                               // the query's weight of the word
  double term_idf[kDenseTabledCounts];    // termWeight(c) * idf for c < 16; entry 0 is 0
};

// From id `begin`, a group of kDenseGroup images after another while the group ends by `end`: for
// each id of the group and each of the n `words` in turn, score[id] += q * d (cosine) or min(q, d)
// (intersection) with d = term_idf[c] * scale[id] and c = counts[id] (an image without the word,
// c = 0 or id >= span, adds exactly 0). Returns the start of the first group not added: `end`'s group
// (fewer than kDenseGroup images left), or one where some word has a count of kDenseTabledCounts or
// more or its span ends inside the group. Such a group's scores are left as they were.
std::size_t addDenseWords(const DenseWord* words, std::size_t n, bool cosine, const double* scale, double* score,
                          std::size_t begin, std::size_t end);
// The same with the scalar loop whatever the CPU: the reference the vector loop is tested against.
std::size_t addDenseWordsScalar(const DenseWord* words, std::size_t n, bool cosine, const double* scale,
                                double* score, std::size_t begin, std::size_t end);

}  // namespace bovw::index_detail
