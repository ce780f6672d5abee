// A query's scores as fixed-point integers. Each contribution of a word to an image's score (q_w d_w
// or min(q_w, d_w), computed in double as the definition says) is rounded up to a multiple of 2^-56
// once, and an image's score is the exact integer sum of its contributions: the same bits in whatever
// order the words are added, so that the exhaustive query adds the dense words of a block of images
// in one pass and splits the images over threads, and the pruned query sums in its own order, all
// giving one answer. Rounding up is monotone, so a bound on a contribution bounds its units too, and a
// positive contribution is at least one unit. A contribution is at most 1 (the weights are
// normalised) and an image's score about 1 at most, far from 2^63 units; the rounding moves a score by
// less than 2^-56 per word, a relative 1e-14 for the scores retrieval ranks, far inside the 1e-9 to
// which scores are compared with a recomputation in double.
#pragma once

#include <cstdint>

namespace bovw::index_detail {

constexpr double kScoreUnit = 0x1p56;  // units per 1.0 of score

// ceil(contribution * 2^56) for a contribution >= 0, without a call (std::ceil is one on baseline
// x86-64), as the vector loop's conversion rounding up gives it: the truncated value, plus one where
// it is below (a double of 2^53 or more is an integer already, and converts back exactly).
inline std::int64_t scoreUnits(double contribution) {
  const double v = contribution * kScoreUnit;
  const auto t = static_cast<std::int64_t>(v);
  return t + (static_cast<double>(t) < v ? 1 : 0);
}

inline double scoreOfUnits(std::int64_t units) { return static_cast<double>(units) / kScoreUnit; }

}  // namespace bovw::index_detail
