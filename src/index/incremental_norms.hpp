// The images' normalisers of one scoring option set kept up to date as images come and go, so that
// the first query after a change need not recompute them from every posting (O(postings): 96 ms at
// 100,000 images, paid by every query while a writer adds). Possible where alpha = 1: then an
// image's norm depends on N only through one number. With f the term weighting, l_w = ln(1 + n_w)
// and C = 1 + ln(1 + N), idf_w = C - l_w (inverted_index.hpp), so
//   L1 (intersection):  sum_w f(c_dw) idf_w        = C a0_d - a1_d
//   L2 (cosine):        sum_w (f(c_dw) idf_w)^2    = C^2 a0_d - 2 C a1_d + a2_d
// with per-image moments a0 = sum f^k, a1 = sum f^k l_w, a2 = sum f^k l_w^2 (k = 1 for L1, 2 for L2).
// A change of n_w moves the moments of exactly the images in w's posting list; N moves only C.
// An update therefore costs the lengths of the changed words' lists, not the whole index.
#pragma once

#include "index/index_data.hpp"

#include <bovw/scoring.hpp>

#include <cstdint>
#include <vector>

namespace bovw::index_detail {

class IncrementalNorms {
 public:
  // Whether `options` can be kept this way (alpha = 1).
  static bool supports(const ScoringOptions& options) { return options.power == 1.0; }

  // O(postings): the moments of every image of `data`.
  IncrementalNorms(const IndexData& data, const ScoringOptions& options);

  const ScoringOptions& options() const { return options_; }

  // After the posting lists of `changed` words were changed (images added, ids from `first_new`, and
  // removed): the moments of the images in those lists follow. O(sum of those lists' lengths).
  void update(const IndexData& data, const std::vector<std::uint32_t>& changed, ImageId first_new);

  // The norm (L1, or L2 before its square root is taken: see norm()) of image d for N images.
  double norm(ImageId d, std::uint64_t images) const;

 private:
  double termPower(std::int32_t count) const;  // f(c)^k
  void add(ImageId d, double f, double l, double sign);

  ScoringOptions options_;
  bool cosine_;
  std::vector<double> log_frequency_;  // l_w the moments were computed with
  std::vector<double> a0_, a1_, a2_;   // by image id (a2 only for cosine)
};

}  // namespace bovw::index_detail
