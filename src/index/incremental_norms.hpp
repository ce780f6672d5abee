// The images' normalisers of the default scoring (intersection, count weighting, alpha = 1) kept up
// to date as images come and go, so that the first query after a change need not recompute them
// from every posting (O(postings): 96 ms at 100,000 images, paid by every query while a writer
// adds). With l_w = ln(1 + n_w) and C = 1 + ln(1 + N), idf_w = C - l_w (inverted_index.hpp), so an
// image's L1 norm is
//   sum_w c_dw idf_w = C a0_d - a1_d,   a0_d = sum_w c_dw,   a1_d = sum_w c_dw l_w.
// A change of n_w moves a1 of exactly the images in w's posting list; N moves only C. An update
// therefore costs the lengths of the changed words' lists, not the whole index.
//
// The moments are integers (l_w in fixed point, 2^-52), so that an image's norm does not depend on
// the order of the updates that made it: an index changed many times and one built afresh from the
// same images compute the same bits, and equal scores still rank by id. Other option sets (cosine,
// sqrt or log counts, alpha < 1) have no exact integer form here and are recomputed after a change.
#pragma once

#include "index/index_data.hpp"
#include "index/index_editor.hpp"

#include <bovw/scoring.hpp>
#include <bovw/tfidf_model.hpp>

#include <cstdint>
#include <vector>

namespace bovw::index_detail {

class IncrementalNorms {
 public:
  static bool supports(const ScoringOptions& options) {
    return options.similarity == Scoring::Intersection && options.term == TermWeighting::Count && options.power == 1.0;
  }

  // O(postings): the moments of every image of `data`, with n_w from its own lists or, when given,
  // from `model` (the global model of several shards: their norms then have the bits the whole
  // index's have).
  IncrementalNorms(const IndexData& data, const ScoringOptions& options, const TfIdfModel* model = nullptr);

  const ScoringOptions& options() const { return options_; }

  // The norms once `change` is applied to `data`, computed before it is (the lists are read, not
  // changed), so that a writer can prepare them while queries go on with the norms before it.
  // `change.removed_words` must be parallel to `change.removed` and list exactly the words each
  // removed image has a posting in. O(sum of the changed words' lists + ids): a copy, then the moments
  // of the images in those lists moved; removed images' moments are zeroed, so that only live images
  // with words have a norm.
  IncrementalNorms after(const IndexData& data, const IndexChange& change) const;

  // C = 1 + ln(1 + N) for N images.
  static double offset(std::uint64_t images);
  // idf_w = C - l_w, as the norms see it.
  double idf(std::size_t word, double offset) const;
  // The L1 norm of image d's weights.
  double norm(ImageId d, double offset) const;

 private:
  ScoringOptions options_;
  std::vector<std::int64_t> log_frequency_;  // l_w in units of 2^-52, as the moments hold it
  std::vector<std::int64_t> a0_;             // by image id
  std::vector<__int128> a1_;                 // by image id, in units of 2^-52
};

}  // namespace bovw::index_detail
