// How a query is scored against the indexed images: the comparison (cosine, histogram intersection,
// or Hamming embedding over the keypoints' signatures), the weight of a word's count (burstiness),
// power-law normalisation, and for Hamming embedding weak geometric consistency; and the canonical
// text form of those choices ("cosine+sqrt+power0.5", "hamming24", "hamming20+log+wgc"). The
// weighting they configure is defined in inverted_index.hpp and, for Hamming embedding, in
// image_database.hpp.
#pragma once

#include <string>
#include <string_view>

namespace bovw {

// How two weighted vectors are compared. Both are normalised first, so scores lie in [0, 1].
enum class Scoring {
  Cosine,        // L2-normalised vectors, score = sum_w q_w d_w
  Intersection,  // L1-normalised vectors, score = sum_w min(q_w, d_w)
  // Cosine over features instead of words: a query feature and an indexed one of the same word count
  // only if their 64-bit signatures (wordSignature) differ in at most hamming_threshold bits, weighted
  // by that distance (Jégou, Douze, Schmid, "Hamming embedding and weak geometric consistency", ECCV
  // 2008). Needs the query's signatures and a database that stores keypoints (ImageDatabase::query);
  // an InvertedIndex alone refuses it.
  Hamming,
};

// The weight f(c) of a word seen c > 0 times in one image. A repeated structure (a brick wall, a
// fence) yields many descriptors of one word; the count lets it dominate the image's vector, which
// sqrt and log damp (Jégou, Douze, Schmid, "On the burstiness of visual elements", CVPR 2009).
enum class TermWeighting {
  Count,  // f(c) = c
  Sqrt,   // f(c) = sqrt(c)
  Log,    // f(c) = 1 + ln c
};

// Everything a query's scores depend on besides the histograms. `power` is the exponent alpha of
// power-law normalisation, v -> v^alpha for every TF-IDF component, applied before the L1/L2
// normalisation (Perronnin, Sánchez, Mensink, ECCV 2010; Jégou et al.): alpha < 1 flattens the
// vector so that no few components dominate; alpha = 1 leaves it unchanged. It must be in (0, 1].
struct ScoringOptions {
  // Histogram intersection (L1) by default, as `bovw search` and ImageSearch: better than cosine on
  // UKBench-style sets (Nistér & Stewénius, CVPR 2006; docs/RETRIEVAL.md).
  Scoring similarity = Scoring::Intersection;
  TermWeighting term = TermWeighting::Count;
  double power = 1.0;  // must be 1 with Scoring::Hamming
  // Scoring::Hamming only: the most bits in which two matching features' signatures may differ, 0 to
  // 64. Ignored (and not compared) by the other similarities.
  int hamming_threshold = kDefaultHammingThreshold;
  // Scoring::Hamming only: weak geometric consistency (Jégou, Douze, Schmid, ECCV 2008, section 4).
  // The matched pairs' contributions to the Hamming score go into a histogram of the pairs'
  // orientation differences and one of their log-scale differences; an image scores the smaller of
  // the two histograms' best windows of three neighbouring bins, instead of the sum of all pairs:
  // the pairs of one object seen rotated and scaled agree on both, chance pairs spread. Each window
  // is part of the sum, so for every image WGC score <= Hamming score <= cosine score under the same
  // term weighting (hamming_scorer.hpp). Needs keypoint sizes and angles in the query and the
  // database (format version 5 and later).
  bool weak_geometry = false;

  // 20 ranked best on the quick start's box_in_scene.png and the UKBench-style sets, with 16 and 24
  // close (docs/RETRIEVAL.md).
  static constexpr int kDefaultHammingThreshold = 20;
};

// Equal options score alike: hamming_threshold and weak_geometry count only where the similarity is
// Hamming.
bool operator==(const ScoringOptions& a, const ScoringOptions& b);
bool operator!=(const ScoringOptions& a, const ScoringOptions& b);

// Throws InvalidInput naming alpha unless 0 < power <= 1 (so also for NaN), for Hamming embedding
// unless the threshold is in [0, 64] and power is 1, and for weak geometry without Hamming embedding.
void checkScoringOptions(const ScoringOptions& options);

// "cosine", "intersection", "hamming"; parseScoring throws InvalidInput listing the valid names.
std::string_view toString(Scoring scoring);
Scoring parseScoring(std::string_view name);
// "count", "sqrt", "log".
std::string_view toString(TermWeighting term);

// Canonical text form: the similarity (Hamming embedding with its threshold: "hamming24"), then
// "+sqrt" or "+log" unless the weighting is count, then "+wgc" with weak geometry, then
// "+power<alpha>" unless alpha is 1, alpha written in the shortest form that reads back exactly:
// "intersection", "cosine+sqrt", "intersection+power0.5", "cosine+log+power0.3", "hamming20+sqrt",
// "hamming20+log+wgc".
// parseScoringOptions(toString(o)) == o for every valid o. parseScoringOptions accepts exactly these
// forms (alpha in any decimal or exponent notation), and "hamming" for the default threshold, and
// throws InvalidInput naming the text and listing the valid forms, or naming a bad alpha or threshold.
std::string toString(const ScoringOptions& options);
ScoringOptions parseScoringOptions(std::string_view text);

}  // namespace bovw
