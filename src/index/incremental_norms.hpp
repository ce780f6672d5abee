// The images' norms under one option set with alpha = 1 (intersection: L1, cosine: L2; any term
// weighting f) kept up to date as images come and go, so that the first query after a change need
// not recompute them from every posting (O(postings): 96 ms at 100,000 images, paid by every query
// while a writer adds). With l_w = ln(1 + n_w) and C = 1 + ln(1 + N), idf_w = C - l_w
// (inverted_index.hpp), so an image's norm is
//   L1: sum_w f(c_dw) idf_w          = C m0_d - m1_d,                m0 = sum f(c), m1 = sum f(c) l_w
//   L2: sum_w (f(c_dw) idf_w)^2      = C^2 m0_d - 2 C m1_d + m2_d,   m0 = sum f(c)^2, m1 = sum f(c)^2 l_w,
//                                                                    m2 = sum f(c)^2 l_w^2  (the norm's square)
// A change of n_w moves m1 and m2 of exactly the images in w's posting list; N moves only C. An update
// therefore costs the lengths of the changed words' lists, not the whole index.
//
// The moments are integers: each term is fixed point (l_w in units of 2^-52, l_w^2 of 2^-40, f(c) or
// f(c)^2 exactly where it is an integer, else in units of 2^-40), so that an image's norm does not
// depend on the order of the updates that made it: an index changed many times and one built afresh
// from the same images compute the same bits, and equal scores still rank by id. The L2 form loses
// at most about C^2 / idf_min^2 (a few hundred) ulps of the squared norm to cancellation: relative
// 1e-13, far inside what rankings compare.
#pragma once

#include "index/index_data.hpp"
#include "index/index_editor.hpp"

#include <bovw/scoring.hpp>
#include <bovw/tfidf_model.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace bovw::index_detail {

class IncrementalNorms {
 public:
  static bool supports(const ScoringOptions& options) {
    return options.power == 1.0 &&
           (options.similarity == Scoring::Intersection || options.similarity == Scoring::Cosine);
  }

  // O(postings): the moments of every image of `data` under `options` (supports()), with n_w from its
  // own lists or, when given, from `model` (the global model of several shards: their norms then
  // have the bits the whole index's have).
  IncrementalNorms(const IndexData& data, const ScoringOptions& options, const TfIdfModel* model = nullptr);

  // What the norms are made of, to be stored beside the lists they follow (a live database's
  // checkpoint): l_w of every word as they hold it, and each image's moments by id (m2: L2 only).
  struct Moments {
    std::vector<std::int64_t> log_frequency;
    std::vector<std::int64_t> m0;
    std::vector<__int128> m1, m2;
  };
  Moments moments() const { return {log_frequency_, m0_, m1_, m2_}; }
  // The norms of `data` under `options`, resumed from `earlier`: the moments() of the same options
  // for an earlier state of the same index, whose ids were below earlier.m0.size(), and which
  // `data` holds since with images added (ids from there on) and removed. Exactly the norms the
  // constructor computes from `data` (the moments are order-free integers), in O(K + ids + the lists
  // of the words whose frequency changed + the added images' postings) instead of O(postings): a
  // live database opening from its checkpoint. Throws std::invalid_argument where `earlier` cannot
  // be of this index (its sizes).
  IncrementalNorms(const IndexData& data, const ScoringOptions& options, Moments earlier);

  const ScoringOptions& options() const { return options_; }
  // False when some image's weights are too large for the fixed-point moments (a sum of f(c) or
  // f(c)^2 of 2^62 units and more, far beyond any real image): its norm is then not to be used.
  bool exact() const { return exact_; }

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
  // The L1 (intersection) or L2 (cosine) norm of image d's weights; 0 for an image without words.
  double norm(ImageId d, double offset) const;
  // norm() of every image of `images` below `known` into norms[i] (left as it is for the others). A
  // search's images come in no order, so each reads its moments from three arrays' cold lines: those
  // of later images are asked for ahead, so that the misses overlap (3.6-5.0 -> 2.5-2.6 ms for a Hamming
  // search's 38,000 images on the 2-core VM, 2026-12-07).
  void norms(const std::vector<ImageId>& images, std::size_t known, double offset, std::vector<double>& norms) const;

 private:
  bool squared() const { return options_.similarity == Scoring::Cosine; }
  // f(c) (L1) or f(c)^2 (L2) in units of 2^-term_fraction_.
  std::int64_t termUnits(std::int32_t count) const;         // from term_units_ where tabled
  std::int64_t computeTermUnits(std::int32_t count) const;
  // termUnits of each stored count byte, 0 for the large mark (whose true counts are in a side list).
  using TermTable = std::array<std::int64_t, 256>;
  TermTable termTable() const;
  // Calls f(image, termUnits of its count) for the postings of `list` from position `from` whose
  // image is below `end` (positions as PostingList::forEachBelow's), reading the list's arrays through
  // `table`; returns the position after them. The hot loop of the moments' passes. A dense list's
  // images without the word are called too, with the term 0: f(image, 0) must change nothing.
  template <typename F>
  std::size_t forEachTermBelow(const PostingList& list, const TermTable& table, std::size_t from, ImageId end,
                               F&& f) const;
  // The term units of every count and the units of the moments, for `options_`.
  void setUnits();
  // Calls make(j)(image, term) for the postings of each list words[j] of `data` from image from[j] on,
  // by blocks of images on `threads` threads (each call's image its own to change), and returns the
  // or of what those calls return.
  template <typename Make>
  std::uint64_t forEachTermByBlocks(const IndexData& data, const std::vector<std::uint32_t>& words,
                                    const std::vector<ImageId>& from, std::size_t threads, Make&& make) const;
  // Adds every posting of `data` to the moments: the whole term for an image from `first_new` on
  // (its own moments), for an earlier one only the change of its word's l_w since (`shift`, by word,
  // l_w now minus l_w then, and `shift2` of l_w^2), skipping the words without such a change in the
  // images before `first_new`. The constructor's pass: first_new 0, no shifts.
  template <bool kSquared, bool kResume>
  void addPostings(const IndexData& data, ImageId first_new, const std::vector<std::int64_t>* shift,
                   const std::vector<std::int64_t>* shift2);
  // A word whose l_w moved by `dl` (and l_w^2 by `dl2`).
  struct WordShift {
    std::uint32_t word;
    std::int64_t dl, dl2;
  };
  // Moves m1 (and m2) of every image in the lists of `shifts`' words of `data` by its term times the
  // word's dl (and dl2), except the images `removed` marks (null: none): after()'s pass (a call per
  // posting through forEach was most of a write beside searches).
  template <bool kSquared>
  void shiftWords(const IndexData& data, const std::vector<WordShift>& shifts, const char* removed);
  // Adds (sign +1) or takes away (-1) one posting's terms from image d's moments.
  void move(ImageId d, std::int32_t count, std::int64_t l, std::int64_t l2, int sign);

  ScoringOptions options_;
  int term_fraction_ = 0;
  // The value of one unit of m0, m1 and m2 (powers of two, so multiplying by them is exact, as ldexp
  // is, without a call per image and moment).
  double m0_unit_ = 1, m1_unit_ = 1, m2_unit_ = 1;
  bool exact_ = true;
  std::vector<std::int64_t> term_units_;     // termUnits(c) for small c
  std::vector<std::int64_t> log_frequency_;  // l_w in units of 2^-52, as the moments hold it
  std::vector<std::int64_t> log_squared_;    // l_w^2 in units of 2^-40 (L2 only)
  std::vector<std::int64_t> m0_;             // by image id
  std::vector<__int128> m1_;                 // by image id
  std::vector<__int128> m2_;                 // by image id (L2 only)
};

}  // namespace bovw::index_detail
