// HammingScorer: the query's features against the signature lists of its words, one image at a time;
// with weak geometric consistency, one merge with an image's stored keypoints that also fills two
// histograms of the matched pairs' geometry.
#include "retrieval/hamming_scorer.hpp"

#include "retrieval/signature_matches.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace bovw::retrieval_detail {

namespace {

// Bits: the width of the distance weighting. Jégou et al. (IJCV 2010) take 16 for signatures of a
// trained projection; these (the raw descriptor against its centroid) separate true pairs from chance
// ones less sharply, and 8 ranked better on the quick start's box_in_scene.png (docs/RETRIEVAL.md).
constexpr double kSigma = 8.0;

// Room for one word's pairs between a query and an image: on the stack for the few features a word
// has in most images (kSmall per side), else in vectors reused between the words and images of a thread.
constexpr std::size_t kSmall = 8;
// Marks ahead whose id and signature a visit asks for (matchSums): enough misses in flight to cover
// a memory latency at a visit's cost, few enough to stay in the L1 cache.
constexpr std::size_t kPrefetchDistance = 8;
thread_local std::vector<std::uint8_t> t_distance;
thread_local std::vector<std::uint32_t> t_per_query, t_per_image;

// The largest sum of three neighbouring bins (circular: the first and last bins are neighbours).
double bestWindow(const std::vector<double>& bins, bool circular) {
  const std::size_t n = bins.size();
  double best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double window = bins[i];
    if (i > 0 || circular) window += bins[(i + n - 1) % n];
    if (i + 1 < n || circular) window += bins[(i + 1) % n];
    best = std::max(best, window);
  }
  return best;
}

// f(c) of the term weighting (inverted_index.hpp).
double weightOfCount(TermWeighting term, std::size_t count) {
  const double c = static_cast<double>(count);
  switch (term) {
    case TermWeighting::Sqrt: return std::sqrt(c);
    case TermWeighting::Log: return 1.0 + std::log(c);
    case TermWeighting::Count: break;
  }
  return c;
}

}  // namespace

// The pairs' terms by orientation difference and by log-scale difference, reused between images of
// a thread.
struct HammingScorer::Histograms {
  std::vector<double> angle, log_scale;
};

HammingScorer::HammingScorer(const ImageWords& query, const TfIdfModel& model, const ScoringOptions& options)
    : term_(options.term), threshold_(options.hamming_threshold), weak_geometry_(options.weak_geometry) {
  checkScoringOptions(options);
  for (std::size_t c = 1; c < kTabled; ++c) {
    weight_of_count_[c] = weightOfCount(term_, c);
    factor_of_count_[c] = weight_of_count_[c] / std::sqrt(static_cast<double>(c));
  }
  if (query.signatures.size() != query.words.size())
    throw InvalidInput("Hamming-embedding scoring needs the query's word signatures: it has " +
                       std::to_string(query.signatures.size()) + " for " + std::to_string(query.words.size()) +
                       " words");
  if (weak_geometry_ && (query.sizes.size() != query.words.size() || query.angles.size() != query.words.size()))
    throw InvalidInput("weak geometric consistency needs the query's keypoint sizes and angles: it has " +
                       std::to_string(query.sizes.size()) + " sizes and " + std::to_string(query.angles.size()) +
                       " angles for " + std::to_string(query.words.size()) + " words");
  const int words = model.words();
  query_.reserve(query.words.size());
  for (std::size_t i = 0; i < query.words.size(); ++i) {
    const std::int32_t w = query.words[i];
    if (w < 0 || w >= words)
      throw InvalidInput("the query's word " + std::to_string(w) + " is outside the vocabulary of " +
                         std::to_string(words) + " words");
    KeypointStore::ScaleAngle scale_angle{0, 0};
    if (weak_geometry_)
      scale_angle = {KeypointStore::quantiseLogScale(query.sizes[i]), KeypointStore::quantiseAngle(query.angles[i])};
    query_.push_back({static_cast<std::uint32_t>(w), scale_angle, query.signatures[i], 0.0});
  }
  std::stable_sort(query_.begin(), query_.end(), [](const Feature& a, const Feature& b) { return a.word < b.word; });
  for (std::size_t i = 0; i < query_.size();) {  // the idf of the query's words only (a logarithm each)
    std::size_t end = i;
    while (end < query_.size() && query_[end].word == query_[i].word) ++end;
    const double idf = model.idf(query_[i].word);
    for (std::size_t j = i; j < end; ++j) query_[j].idf = idf;
    query_norm_ += std::pow(termWeight(end - i) * idf, 2);
    i = end;
  }
  query_norm_ = std::sqrt(query_norm_);
  for (int h = 0; h <= options.hamming_threshold; ++h)
    weight_[static_cast<std::size_t>(h)] = std::exp(-(h * h) / (kSigma * kSigma));
}

double HammingScorer::termWeight(std::size_t count) const {
  return count < kTabled ? weight_of_count_[count] : weightOfCount(term_, count);
}

double HammingScorer::termFactor(std::size_t count) const {
  return count < kTabled ? factor_of_count_[count] : termWeight(count) / std::sqrt(static_cast<double>(count));
}

BOVW_POPCNT_CLONES
double HammingScorer::pairSum(std::size_t query_begin, std::size_t query_end, const std::uint64_t* image,
                              std::size_t image_count, const KeypointStore::ScaleAngle* scale_angles, double factor,
                              Histograms* histograms) const {
  const std::size_t query_count = query_end - query_begin;
  std::array<std::uint8_t, kSmall * kSmall> small_distance;
  if (image_count == 1 && histograms == nullptr && query_count <= small_distance.size()) {
    // One feature of the image within the threshold, as nearly every visit of a search has (about 1.1
    // a run): each query feature within the threshold matches it alone, so every term's divisor is
    // the root of the matches' count. The same terms in the same order as below, without the tables.
    std::uint32_t matches = 0;
    for (std::size_t a = 0; a < query_count; ++a) {
      const int h = __builtin_popcountll(query_[query_begin + a].signature ^ image[0]);
      small_distance[a] = static_cast<std::uint8_t>(h);
      matches += h <= threshold_ ? 1 : 0;
    }
    if (matches == 0) return 0;
    const double root = std::sqrt(static_cast<double>(1u) * matches);
    double sum = 0;
    for (std::size_t a = 0; a < query_count; ++a)
      if (small_distance[a] <= threshold_) sum += weight_[small_distance[a]] / root;
    return sum;
  }
  std::array<std::uint32_t, kSmall> small_per_query{}, small_per_image{};
  std::uint8_t* distance = small_distance.data();
  std::uint32_t* per_query = small_per_query.data();  // matches of each feature
  std::uint32_t* per_image = small_per_image.data();
  if (query_count > kSmall || image_count > kSmall) {
    t_distance.resize(query_count * image_count);
    t_per_query.assign(query_count, 0);
    t_per_image.assign(image_count, 0);
    distance = t_distance.data();
    per_query = t_per_query.data();
    per_image = t_per_image.data();
  }
  bool any = false;
  for (std::size_t a = 0; a < query_count; ++a)
    for (std::size_t b = 0; b < image_count; ++b) {
      const int h = __builtin_popcountll(query_[query_begin + a].signature ^ image[b]);
      distance[a * image_count + b] = static_cast<std::uint8_t>(h);
      if (h > threshold_) continue;
      ++per_query[a];
      ++per_image[b];
      any = true;
    }
  if (!any) return 0;
  double sum = 0;
  for (std::size_t a = 0; a < query_count; ++a)
    for (std::size_t b = 0; b < image_count; ++b) {
      const std::uint8_t h = distance[a * image_count + b];
      if (h > threshold_) continue;
      const double term = weight_[h] / std::sqrt(static_cast<double>(per_query[a]) * per_image[b]);
      sum += term;
      if (histograms == nullptr) continue;
      const KeypointStore::ScaleAngle q = query_[query_begin + a].scale_angle, d = scale_angles[b];
      // Differences of the image's keypoint from the query's: the angle mod 256 (a byte's wrap-around),
      // the log-scale from -255 to 255, shifted to 1 to 511.
      const auto angle = static_cast<std::uint8_t>(d.angle - q.angle);
      const int log_scale = int{d.log_scale} - int{q.log_scale} + 256;
      histograms->angle[angle * histograms->angle.size() / 256] += factor * term;
      histograms->log_scale[static_cast<std::size_t>(log_scale) * histograms->log_scale.size() / 512] += factor * term;
    }
  return sum;
}

std::size_t HammingScorer::nextWord(std::size_t q) const {
  std::size_t next = q;
  while (next < query_.size() && query_[next].word == query_[q].word) ++next;
  return next;
}

std::vector<std::uint32_t> HammingScorer::words() const {
  std::vector<std::uint32_t> words;
  for (std::size_t q = 0; q < query_.size(); q = nextWord(q)) words.push_back(query_[q].word);
  return words;
}

void HammingScorer::deviceRuns(const std::vector<SignaturePostings::Snapshot>& lists, std::size_t ids,
                               ResidentSignatures& device, std::vector<std::size_t>& covered,
                               std::vector<ResidentSignatures::Run>& runs, std::vector<std::size_t>& runs_of,
                               std::vector<ResidentSignatures::Run>& by_list) const {
  thread_local std::vector<std::uint64_t> query_signatures;
  thread_local std::vector<ResidentSignatures::Word> words;
  query_signatures.clear();
  words.clear();
  for (const Feature& f : query_) query_signatures.push_back(f.signature);
  std::size_t list = 0;
  for (std::size_t q = 0; q < query_.size(); q = nextWord(q), ++list)
    words.push_back({query_[q].word, lists.at(list), q, nextWord(q)});
  if (list != lists.size()) throw std::logic_error("matchSums: a list for each of the query's words, no more");
  runs.clear();
  device.pairSums(query_signatures, words, ids, threshold_, weight_.data(), covered, runs);
  words.clear();  // lets go of the lists
  // The runs by list (a counting sort), so that each word's are added in its turn.
  for (const ResidentSignatures::Run& r : runs) ++runs_of[r.word + 1];
  for (std::size_t i = 1; i < runs_of.size(); ++i) runs_of[i] += runs_of[i - 1];
  by_list.resize(runs.size());
  std::vector<std::size_t> next(runs_of.begin(), runs_of.end() - 1);
  for (const ResidentSignatures::Run& r : runs) by_list[next[r.word]++] = r;
}

std::vector<std::pair<ImageId, double>> HammingScorer::matchSums(const std::vector<SignaturePostings::Snapshot>& lists,
                                                                 std::size_t ids, ResidentSignatures* device) const {
  // Dense sums by id, reused between the queries of a thread; `touched` lists the ids to read and reset.
  thread_local std::vector<double> sums;
  thread_local std::vector<ImageId> touched;
  thread_local std::vector<std::uint64_t> query_signatures, marks, marked;
  thread_local std::vector<std::size_t> positions;
  thread_local std::vector<std::size_t> covered;  // by list: its first features, scored by `device`
  thread_local std::vector<ResidentSignatures::Run> runs;
  thread_local std::vector<std::size_t> runs_of;  // runs of list i: runs_of[i] to runs_of[i + 1] in `by_list`
  thread_local std::vector<ResidentSignatures::Run> by_list;
  if (sums.size() < ids) sums.resize(ids, 0.0);
  touched.clear();
  covered.assign(lists.size(), 0);
  runs_of.assign(lists.size() + 1, 0);
  if (device != nullptr) deviceRuns(lists, ids, *device, covered, runs, runs_of, by_list);
  const auto add = [&](ImageId id, double term) {
    if (sums[id] == 0.0) touched.push_back(id);
    sums[id] += term;
  };
  std::size_t list = 0;  // lists[list] is the current word's
  for (std::size_t q = 0; q < query_.size(); q = nextWord(q), ++list) {
    if (!lists.at(list)) continue;  // no image has the word
    const std::size_t q_end = nextWord(q);
    const double query_factor = query_[q].idf * query_[q].idf * termFactor(q_end - q);
    // The runs the device scored, then the rest of the list here: each image has one run in a word,
    // so a word adds to each image's sum once, and in the order of the words as on the host alone.
    for (std::size_t r = runs_of[list]; r < runs_of[list + 1]; ++r)
      add(by_list[r].id, query_factor * termFactor(by_list[r].features) * by_list[r].pairs);
    const std::vector<ImageId>& image_of = lists[list]->ids;
    const std::size_t from = covered[list];  // the device's part ends with an image's run
    const std::uint64_t* signatures = lists[list]->signatures.data() + from;
    const std::size_t n = image_of.size() - from;
    // Most images' features of a word match none of the query's: the stored features within the
    // threshold of some query feature are marked first, and only their images (each image's features
    // of the word are contiguous) are visited, in the order of the list. Of an image's features only
    // the marked ones are paired: the others match no query feature, so they add no term and count
    // in no feature's matches, and pairSum gives the same bits from far fewer pairs (a common word
    // has dozens of pairs an image and one or two marked features).
    query_signatures.clear();
    for (std::size_t a = q; a < q_end; ++a) query_signatures.push_back(query_[a].signature);
    markMatches(query_signatures.data(), query_signatures.size(), signatures, n, threshold_, marks);
    positions.clear();
    for (std::size_t b = nextMark(marks, 0, n); b < n; b = nextMark(marks, b + 1, n)) positions.push_back(b);
    const ImageId* image_from = image_of.data() + from;  // parallel to `signatures`
    for (std::size_t i = 0; i < positions.size();) {
      // The marks lie a hundred or more features apart in a list that marking has streamed past, so
      // each visit's id and signature miss the cache: those of a later mark are asked for now, so
      // that the misses overlap instead of following one another.
      if (i + kPrefetchDistance < positions.size()) {
        __builtin_prefetch(&image_from[positions[i + kPrefetchDistance]]);
        __builtin_prefetch(&signatures[positions[i + kPrefetchDistance]]);
      }
      // The sum of an image a few marks on (its id asked for above, some visits ago): the sums
      // are a random access into ids doubles, the load that waited longest in perf.
      if (i + kPrefetchDistance / 2 < positions.size()) {
        const ImageId later = image_from[positions[i + kPrefetchDistance / 2]];
        if (later < ids) __builtin_prefetch(&sums[later]);
      }
      const std::size_t b = positions[i];
      const ImageId id = image_from[b];
      std::size_t begin = b, end = b + 1;  // the image's features: none before b is marked
      while (begin > 0 && image_from[begin - 1] == id) --begin;
      while (end < n && image_from[end] == id) ++end;
      marked.clear();
      for (; i < positions.size() && positions[i] < end; ++i) marked.push_back(signatures[positions[i]]);
      const double pairs = id < ids ? pairSum(q, q_end, marked.data(), marked.size()) : 0.0;  // ids: see the header
      if (pairs > 0) add(id, query_factor * termFactor(end - begin) * pairs);
    }
  }
  if (list != lists.size()) throw std::logic_error("matchSums: a list for each of the query's words, no more");
  std::vector<std::pair<ImageId, double>> found;
  found.reserve(touched.size());
  for (const ImageId id : touched) {
    found.emplace_back(id, sums[id]);
    sums[id] = 0.0;
  }
  return found;
}

double HammingScorer::weakGeometrySum(const KeypointStore::StoredImage& image) const {
  if (!weak_geometry_) throw InvalidInput("this Hamming scorer was made without weak geometric consistency");
  if (!image.hasScaleAngles())
    throw InvalidInput("an image's keypoints have no scale and angle, so weak geometric consistency cannot score "
                       "it (index the images again)");
  thread_local Histograms t_histograms;
  thread_local std::vector<std::uint64_t> t_signatures;  // one word's, contiguous for pairSum
  Histograms& histograms = t_histograms;
  histograms.angle.assign(kAngleBins, 0.0);
  histograms.log_scale.assign(kLogScaleBins, 0.0);
  const std::vector<KeypointStore::Keypoint>& keys = image.keypoints;
  bool matched = false;
  std::size_t q = 0;
  for (std::size_t i = 0; i < keys.size() && q < query_.size();) {
    const std::uint32_t word = keys[i].word;
    std::size_t end = i;
    while (end < keys.size() && keys[end].word == word) ++end;
    while (q < query_.size() && query_[q].word < word) ++q;
    std::size_t q_end = q;
    while (q_end < query_.size() && query_[q_end].word == word) ++q_end;
    if (q_end > q) {
      // The factor as matchSums forms it, so that the pairs' terms are the Hamming sum's.
      const double factor = query_[q].idf * query_[q].idf * termFactor(q_end - q) * termFactor(end - i);
      t_signatures.clear();
      for (std::size_t k = i; k < end; ++k) t_signatures.push_back(keys[k].signature);
      matched |= pairSum(q, q_end, t_signatures.data(), end - i, &image.scale_angles[i], factor, &histograms) > 0;
    }
    i = end;
  }
  if (!matched) return 0;
  return std::min(bestWindow(histograms.angle, true), bestWindow(histograms.log_scale, false));
}

}  // namespace bovw::retrieval_detail
