// Hamming-embedding scores (Scoring::Hamming, bovw/scoring.hpp) of stored images against one query:
// cosine over features rather than words, where a query feature and an image's feature of the same
// word count as far as their signatures agree, optionally kept to the pairs that agree on one change
// of scale and orientation (weak geometric consistency; Jégou, Douze, Schmid, ECCV 2008).
#pragma once

#include "retrieval/keypoint_store.hpp"
#include "retrieval/resident_signatures.hpp"
#include "retrieval/signature_postings.hpp"

#include <bovw/image_words.hpp>
#include <bovw/scoring.hpp>
#include <bovw/tfidf_model.hpp>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace bovw::retrieval_detail {

// With c_q, c_d a word's counts in the query and the image, f the term weighting, h(x, y) the Hamming
// distance of two signatures, g(h) = exp(-h^2 / 8^2) for h <= the threshold (0 beyond), and m(x) the
// number of features of the other image that feature x matches (within the threshold) in its word:
//   score = sum_w idf_w^2 f(c_q) f(c_d) / sqrt(c_q c_d) sum_{x in q_w, y in d_w} g(h(x, y)) / sqrt(m(x) m(y))
//           / (|q| |d|),        |q|^2 = sum_w (f(c_q) idf_w)^2, and |d| alike.
// Dividing each pair by sqrt(m(x) m(y)) keeps one feature that matches a burst (a repeated texture)
// from counting many times (Jégou, Douze, Schmid, "On the burstiness of visual elements", CVPR 2009).
// Where every pair of one word matches at distance 0, the inner sum is sqrt(c_q c_d) and the score
// is the cosine of the two TF-IDF vectors under f (inverted_index.hpp): the signatures only ever take
// away chance pairs of a coarse word.
//
// Weak geometric consistency (options.weak_geometry): with c(x, y) the pair's term of the sum above
// (idf_w^2 f(c_q) f(c_d) / sqrt(c_q c_d) g(h) / sqrt(m(x) m(y)) / (|q| |d|)), da(x, y) the image
// keypoint's quantised angle less the query's (mod 256, KeypointStore::ScaleAngle) and ds(x, y) its
// quantised log-scale less the query's:
//   A[i] = sum of c over the pairs with da in angle bin i (kAngleBins equal bins of the circle),
//   S[j] = sum of c over the pairs with ds in log-scale bin j (bins of kLogScaleBinWidth / 16 octave),
//   score = min(max_i A[i-1] + A[i] + A[i+1] (circular), max_j S[j-1] + S[j] + S[j+1]).
// Each window holds three different bins of one partition of the pairs, so it is at most their sum:
// for every image the WGC score <= the Hamming score <= the cosine score (up to rounding), which
// ImageDatabase::query relies on (it computes WGC only for the images whose Hamming score can still
// reach its top k). No prior on the angle (Jégou et al. favour upright pairs): a query may be any
// rotation of its target.
class HammingScorer {
 public:
  // Throws InvalidInput unless `query` has a signature per word (and with weak geometry a size and
  // an angle), and as checkScoringOptions; the idf comes from `model` (the database's, with its K).
  HammingScorer(const ImageWords& query, const TfIdfModel& model, const ScoringOptions& options);

  // The query's words, ascending, each once.
  std::vector<std::uint32_t> words() const;
  // For every image with a feature that matches one of the query's (by id, in no order): the double
  // sum over words above, the score before its division by |q| |d|. `lists`: the stored signatures
  // of the query's words, parallel to words() (KeypointStore::signatureLists). `ids`: the ids ever
  // assigned. `device`: a copy of the lists on a device that scores what it holds of them there
  // (resident_signatures.hpp); the sums are the same bit for bit.
  std::vector<std::pair<ImageId, double>> matchSums(const std::vector<SignaturePostings::Snapshot>& lists,
                                                    std::size_t ids, ResidentSignatures* device = nullptr) const;
  double queryNorm() const { return query_norm_; }  // |q|
  // With weak geometry: the WGC score of one image before its division by |q| |d| (as matchSums),
  // from one merge of the query's features with the image's keypoints; 0 if no feature matches.
  // Throws InvalidInput if the image's keypoints have no scale and angle, or the scorer was made
  // without weak geometry.
  double weakGeometrySum(const KeypointStore::StoredImage& image) const;

  // Bins of weak geometric consistency, chosen by measurement (docs/RETRIEVAL.md, 2026-11-27).
  static constexpr int kAngleBins = 16;          // 22.5 degrees; divides 256
  static constexpr int kLogScaleBinWidth = 8;    // in 1/16 octave: half an octave
  static constexpr int kLogScaleBins = 512 / kLogScaleBinWidth;  // differences -255 to 255
  static_assert(kAngleBins >= 3 && 256 % kAngleBins == 0 && 512 % kLogScaleBinWidth == 0,
                "a window of three bins must hold three different bins");

 private:
  struct Feature {
    std::uint32_t word;
    KeypointStore::ScaleAngle scale_angle;  // {0, 0} without weak geometry; in word's padding (24 bytes)
    std::uint64_t signature;
    double idf;  // of its word
  };
  struct Histograms;
  static constexpr std::size_t kTabled = 64;  // counts below it take f(c) from a table (no log per word)
  double termWeight(std::size_t count) const;  // f(c)
  double termFactor(std::size_t count) const;  // f(c) / sqrt(c)
  std::size_t nextWord(std::size_t q) const;    // the first query feature after query_[q]'s word
  // matchSums' part on a device: the runs it scored of each list (covered[i]: its first features
  // that the device holds), sorted by list into by_list, list i's from runs_of[i] to runs_of[i + 1].
  void deviceRuns(const std::vector<SignaturePostings::Snapshot>& lists, std::size_t ids, ResidentSignatures& device,
                  std::vector<std::size_t>& covered, std::vector<ResidentSignatures::Run>& runs,
                  std::vector<std::size_t>& runs_of, std::vector<ResidentSignatures::Run>& by_list) const;
  // The inner sum over one word's pairs: query_[query_begin, query_end) against `image_count`
  // signatures of one image. With `histograms`, each pair's term times `factor` also goes into them,
  // by the difference of its keypoints' scale_angles (the image's, parallel to `image`).
  double pairSum(std::size_t query_begin, std::size_t query_end, const std::uint64_t* image,
                 std::size_t image_count, const KeypointStore::ScaleAngle* scale_angles = nullptr,
                 double factor = 0, Histograms* histograms = nullptr) const;

  TermWeighting term_;
  int threshold_;
  bool weak_geometry_;
  std::vector<Feature> query_;       // by word
  double query_norm_ = 0;            // |q|
  std::array<double, 65> weight_{};  // g(h) by Hamming distance h
  std::array<double, kTabled> weight_of_count_{}, factor_of_count_{};  // f(c), f(c) / sqrt(c) by count c
};

}  // namespace bovw::retrieval_detail
