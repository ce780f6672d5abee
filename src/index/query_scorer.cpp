// Exhaustive and pruned (MaxScore) top-k queries over the posting lists, with the same arithmetic.
//
// Pruned, after Turtle & Flood, "Query evaluation: strategies and optimizations" (1995): a word w can
// add at most u_w to any image's score, u_w = q_w for intersection (min(q, d) <= q) and
// q_w max_d d_w for cosine. The words are visited by u_w descending, each whole list added to score
// accumulators (phase 1), until the bounds of the words not yet visited sum to less than the k-th best
// score so far, theta: an image none of the visited words holds can then not reach the top k. Phase 2
// visits the remaining words for the candidates only (images whose score plus the remaining bounds
// can still reach theta), by a galloping search in each list (a scan where they are dense). Common words,
// long lists of low idf, have the smallest bounds: they are the lists phase 2 searches instead of
// scanning. Last, the few images left that can be in the top k are scored again word by word in
// summation order (QueryScorer::toSummationOrder), the order the exhaustive path adds in, so that their
// scores have its bits, and ranked.
#include "index/query_scorer.hpp"

#include "core/thread_team.hpp"
#include "index/dense_accumulate.hpp"
#include "index/top_k.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>

namespace bovw::index_detail {

namespace {

// Comparisons with theta allow for rounding: the sums here add the same non-negative terms as the
// reference but in another order, so each may differ from the reference's by a relative n 2^-53 for n
// query words, at most 2^24 2^-53 < 2e-9 (K <= 2^24). A bound is only trusted to be below theta by
// more than 1e-6 of theta: far more than rounding can account for, far less than the gaps pruning needs.
constexpr double kSlack = 1e-6;

bool below(double value, double theta) { return value < theta * (1.0 - kSlack); }

// Per-thread score accumulators, reused across queries so that a query costs the postings it
// visits, not a pass over every image. Entries touched by a query are zeroed again on exit (also
// on an exception), so the next query starts from zeros. A query whose lists hold many postings
// against the number of images does not list what it touches (the test at every posting made such
// queries 1.5x slower at 100,000 images, issue 21); it marks the whole array instead, and the array
// is zeroed whole.
struct Accumulator {
  std::vector<double> score;     // by image id
  std::vector<ImageId> touched;  // the first touched_count entries: as many as ids, filled in place
  std::size_t touched_count = 0;
  bool all_touched = false;

  const ImageId* touchedBegin() const { return touched.data(); }
  const ImageId* touchedEnd() const { return touched.data() + touched_count; }

  void clear() {
    if (all_touched)
      std::fill(score.begin(), score.end(), 0.0);
    else
      for (std::size_t i = 0; i < touched_count; ++i) score[touched[i]] = 0.0;
    touched_count = 0;
    all_touched = false;
  }
  struct Reset {
    Accumulator& a;
    ~Reset() { a.clear(); }
  };
};

thread_local Accumulator t_accumulator;
thread_local std::uint64_t t_visited = 0;

template <bool kCosine>
double contribution(double q, double d) {
  return kCosine ? q * d : std::min(q, d);
}

// d_w of image `id`'s count c > 0: the reference's weight(c, w) * scale(d), in the same order.
inline double documentWeight(std::int32_t count, ImageId id, double idf, const ScoringWeights& weights) {
  return weights.termWeight(count) * idf * weights.scales()[id];
}

// Adds the postings of a sparse `list` from position `from` whose image is below `end` to the
// accumulators, listing the images they touch first when kTrack; returns the position of the first
// posting not added. The hot loop makes no call: a call on any path would make the compiler keep the
// loop's values in memory rather than registers (every vector register is the callee's to clobber),
// which cost 1.5x. A count's stored byte indexes the term table directly: the large mark's entry is
// 0, which adds exactly nothing, and such a posting's true weight is added in a pass of its own
// after the loop, only for a list that has large counts; an image's sum still grows by this word's
// term once, in summation order.
template <bool kCosine, bool kTrack>
std::size_t accumulateSparse(const PostingList& list, std::size_t from, ImageId end, double q, double idf,
                             const ScoringWeights& weights, Accumulator& a) {
  const ImageId* ids = list.ids();
  const std::uint8_t* counts = list.counts();
  const double* table = weights.termTable();
  const double* scale = weights.scales();
  double* score = a.score.data();
  ImageId* touched = a.touched.data() + a.touched_count;
  const std::size_t n = list.size();
  std::size_t i = from;
  for (; i < n && ids[i] < end; ++i) {
    const ImageId id = ids[i];
    // The reference's weight(c, w) * scale(d) = (term * idf) * scale, the same bits.
    const double d = table[counts[i]] * idf * scale[id];
    if (kTrack && score[id] == 0.0) *touched++ = id;  // every contribution is > 0
    score[id] += contribution<kCosine>(q, d);
  }
  if (kTrack) a.touched_count = static_cast<std::size_t>(touched - a.touched.data());
  if (list.hasLargeCounts())
    for (std::size_t p = from; p < i; ++p)
      if (counts[p] == PostingList::kLargeMark)
        score[ids[p]] += contribution<kCosine>(q, documentWeight(list.count(ids[p], counts[p]), ids[p], idf, weights));
  return i;
}

// The same for a dense `list`, whose positions are the image ids: the images from `from` below `end`
// that hold the word are added and listed.
template <bool kCosine>
std::size_t accumulateDense(const PostingList& list, std::size_t from, ImageId end, double q, double idf,
                            const ScoringWeights& weights, Accumulator& a) {
  const std::uint8_t* counts = list.denseCounts();
  double* score = a.score.data();
  const std::size_t last = std::min<std::size_t>(end, list.denseSpan());
  if (from >= last) return from;
  ImageId* touched = a.touched.data() + a.touched_count;
  for (std::size_t id = from; id < last; ++id) {
    if (counts[id] == 0) continue;
    if (score[id] == 0.0) *touched++ = static_cast<ImageId>(id);
    score[id] += contribution<kCosine>(q, documentWeight(list.count(static_cast<ImageId>(id), counts[id]),
                                                         static_cast<ImageId>(id), idf, weights));
  }
  a.touched_count = static_cast<std::size_t>(touched - a.touched.data());
  return last;
}

// A whole list, listing the images it touches.
template <bool kCosine>
void accumulateListed(const PostingList& list, double q, double idf, const ScoringWeights& weights, Accumulator& a) {
  if (list.dense())
    accumulateDense<kCosine>(list, 0, PostingList::kNoImage, q, idf, weights, a);
  else
    accumulateSparse<kCosine, true>(list, 0, PostingList::kNoImage, q, idf, weights, a);
}

// What the exhaustive query adds to a block in one step: consecutive words of the query (in summation
// order) whose lists are dense, together (dense_accumulate.hpp; `prepared` holds their counts and
// tables), or one word whose list is sparse (`prepared` null).
struct WordRun {
  const QueryWord* words;
  const DenseWord* prepared;
  std::size_t n;
};

// The run's words added to the images [first, last) one image at a time, every count weighed exactly
// (those beyond the vector loop's table from the lists' side tables): a group the vector loop left,
// or the images before the first whole group.
template <bool kCosine>
void addDenseRunExactly(const WordRun& run, std::size_t first, std::size_t last, const std::vector<PostingList>& lists,
                        const ScoringWeights& weights, double* score) {
  for (std::size_t id = first; id < last; ++id) {
    double sum = score[id];
    for (std::size_t j = 0; j < run.n; ++j) {
      const PostingList& list = lists[run.words[j].word];
      if (id >= list.denseSpan() || list.denseCounts()[id] == 0) continue;  // adds exactly 0
      const auto image = static_cast<ImageId>(id);
      const double d = documentWeight(list.count(image, list.denseCounts()[id]), image,
                                      weights.idfPower(run.words[j].word), weights);
      sum += contribution<kCosine>(run.words[j].weight, d);
    }
    score[id] = sum;
  }
}

// The run added to the images [begin, end): whole groups of kDenseGroup images aligned on the ids (a
// group's counts are one cache line a word) by the vector loop, the rest exactly.
template <bool kCosine>
void addDenseRun(const WordRun& run, std::size_t begin, std::size_t end, const std::vector<PostingList>& lists,
                 const ScoringWeights& weights, double* score) {
  std::size_t id = std::min(end, (begin + kDenseGroup - 1) / kDenseGroup * kDenseGroup);
  addDenseRunExactly<kCosine>(run, begin, id, lists, weights, score);
  while (id < end) {
    id = addDenseWords(run.prepared, run.n, kCosine, weights.scales(), score, id, end);
    const std::size_t stop = std::min(end, id + kDenseGroup);
    addDenseRunExactly<kCosine>(run, id, stop, lists, weights, score);
    id = stop;
  }
}

// Images a block of the exhaustive query: their scores and normalisers, 2 x 8 x 16,384 = 256 KB, fit a
// core's L2 (0.5-2 MB on current server cores).
constexpr ImageId kBlock = 16384;
static_assert(kBlock % kDenseGroup == 0, "blocks start on whole groups of the dense runs");

Ranked best(Ranked ranked, std::size_t top_k) {
  const std::size_t k = std::min(top_k, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(k), ranked.end(), better);
  ranked.resize(k);
  return ranked;
}

// Theta, the k-th best score so far, is read from a few leading images: the k-th largest current score
// of any k images is a lower bound of the final k-th best (scores only grow), so a small set that is
// refreshed now and then gives a valid theta in O(k) per word instead of a pass over every image.
class Leaders {
 public:
  explicit Leaders(std::size_t k) : k_(k) {}

  // The k-th largest current score of the leaders; 0 while there are fewer than k.
  double theta(const double* score) {
    if (ids_.size() < k_) return 0.0;
    values_.resize(ids_.size());
    for (std::size_t i = 0; i < ids_.size(); ++i) values_[i] = score[ids_[i]];
    std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(k_ - 1), values_.end(),
                     std::greater<double>());
    return values_[k_ - 1];
  }

  // The leaders become the 4k best of `ids` (those at least `floor`: the others cannot be among them).
  void refresh(const ImageId* first, const ImageId* last, const double* score, double floor) {
    pairs_.clear();
    for (const ImageId* id = first; id != last; ++id)
      if (score[*id] >= floor) pairs_.emplace_back(score[*id], *id);
    const std::size_t m = std::min(pairs_.size(), 4 * k_);
    std::nth_element(pairs_.begin(), pairs_.begin() + static_cast<std::ptrdiff_t>(m == 0 ? 0 : m - 1), pairs_.end(),
                     std::greater<std::pair<double, ImageId>>());
    ids_.clear();
    for (std::size_t i = 0; i < m; ++i) ids_.push_back(pairs_[i].second);
  }

 private:
  std::size_t k_;
  std::vector<ImageId> ids_;
  std::vector<double> values_;
  std::vector<std::pair<double, ImageId>> pairs_;
};

Accumulator& accumulatorFor(const IndexData& data) {
  Accumulator& a = t_accumulator;
  if (a.score.size() < data.names.size()) {
    a.score.resize(data.names.size(), 0.0);
    a.touched.resize(data.names.size());
  }
  return a;
}

}  // namespace

std::uint64_t QueryScorer::lastVisited() { return t_visited; }

void QueryScorer::toSummationOrder(std::vector<QueryWord>& words) const {
  std::stable_partition(words.begin(), words.end(), [&](const QueryWord& w) { return weights.summedFirst(w.word); });
}

Ranked QueryScorer::exhaustive(const std::vector<QueryWord>& words, std::size_t top_k) const {
  return bySegment(words, top_k, &QueryScorer::exhaustiveIn);
}

Ranked QueryScorer::pruned(const std::vector<QueryWord>& words, std::size_t top_k) const {
  return bySegment(words, top_k, &QueryScorer::prunedIn);
}

Ranked QueryScorer::bySegment(const std::vector<QueryWord>& words, std::size_t top_k, InSegment in) const {
  if (data.segments.size() == 1) return (this->*in)(0, words, top_k);
  // Each segment's best k, its words those with postings in it (in summation order still), then the
  // best k of them all: every image's score is its own segment's sum, the same bits as in one list.
  Ranked merged;
  std::uint64_t visited = 0;
  std::vector<QueryWord> held;
  for (std::size_t s = 0; s < data.segments.size(); ++s) {
    held.clear();
    for (const QueryWord& w : words)
      if (!data.segments[s].lists[w.word].empty()) held.push_back(w);
    if (held.empty()) continue;
    const Ranked ranked = (this->*in)(s, held, top_k);
    visited += t_visited;
    merged.insert(merged.end(), ranked.begin(), ranked.end());
  }
  t_visited = visited;
  return best(std::move(merged), top_k);
}

Ranked QueryScorer::exhaustiveIn(std::size_t segment, const std::vector<QueryWord>& words, std::size_t top_k) const {
  const std::vector<PostingList>& lists = data.segments[segment].lists;
  const ImageId first_id = data.segments[segment].first, end_id = data.end(segment);
  Accumulator& a = accumulatorFor(data);
  Accumulator::Reset reset{a};
  t_visited = 0;
  for (const QueryWord& w : words) t_visited += lists[w.word].size();
  // Listing the touched images pays while the lists are short against the images; beyond an eighth
  // of them, one pass over every image's score costs less.
  a.all_touched = 8 * t_visited >= std::size_t{end_id - first_id};
  if (!a.all_touched) {
    for (const QueryWord& w : words) {
      const PostingList& list = lists[w.word];
      if (cosine)
        accumulateListed<true>(list, w.weight, weights.idfPower(w.word), weights, a);
      else
        accumulateListed<false>(list, w.weight, weights.idfPower(w.word), weights, a);
    }
    Ranked ranked;
    ranked.reserve(a.touched_count);
    for (const ImageId* id = a.touchedBegin(); id != a.touchedEnd(); ++id) ranked.emplace_back(a.score[*id], *id);
    return best(std::move(ranked), top_k);
  }
  // Block by block of images, every word's postings in the block in summation order (each image's
  // sum in the same order as whole lists would add it): the block's scores and normalisers stay in a
  // core's cache, where whole lists would read both at random over the whole index (2.6x at 1,000,000
  // images, the same at 100,000; issue 21). The images are split into ranges added by as many threads
  // as OpenMP gives the calling thread (one per core unless told otherwise: omp_set_num_threads, or
  // OMP_NUM_THREADS), each range into its own part of the scores: the same sums, in the same order, on
  // any number of threads (issue 21: a million images' query twice as fast on two cores). Four ranges
  // a thread, taken as the threads come free, so that a thread slowed by other work (a writer on the
  // same core) holds up the query by at most a small range; a range is at least a block, whose start
  // in each list costs a binary search. Each thread gets at least two blocks' worth: the parallel part
  // ends when every thread of the team has reached its end, and on a busy machine a thread may wait
  // milliseconds for a core, more than a small query's whole time (20,000 images on two busy cores:
  // 1.2 ms on one thread, 9.4 ms split over two).
  const std::size_t span = end_id - first_id;
  const std::size_t blocks = (span + kBlock - 1) / kBlock;
  const auto threads = static_cast<std::size_t>(detail::teamThreads());
  const std::size_t team = std::clamp<std::size_t>(blocks / 2, 1, threads);
  const std::size_t parts = team == 1 ? 1 : std::min(4 * team, blocks);
  // Everything the threads use is allocated here: nothing in the parallel part may throw.
  std::vector<DenseWord> prepared(words.size());
  std::vector<WordRun> runs;
  for (std::size_t j = 0; j < words.size(); ++j) {
    const PostingList& list = lists[words[j].word];
    if (!list.dense()) {
      runs.push_back({&words[j], nullptr, 1});
      continue;
    }
    DenseWord& word = prepared[j];
    word.counts = list.denseCounts();
    word.span = list.denseSpan();
    word.q = words[j].weight;
    const double idf = weights.idfPower(words[j].word);
    for (int c = 0; c < kDenseTabledCounts; ++c) word.term_idf[c] = weights.termTable()[c] * idf;
    if (!runs.empty() && runs.back().prepared != nullptr)
      ++runs.back().n;
    else
      runs.push_back({&words[j], &word, 1});
  }
  std::vector<std::size_t> cursors(parts * words.size());  // each range's sparse lists' next postings
  std::vector<TopK> tops;  // each made in place, with its room reserved (a copy would not keep it)
  tops.reserve(parts);
  for (std::size_t part = 0; part < parts; ++part) tops.emplace_back(top_k);
  std::vector<Ranked> ranked(parts);
  double* score = a.score.data();
  const auto add = [&](const WordRun& run, std::size_t* next, ImageId begin, ImageId end) {
    if (run.prepared != nullptr) {
      if (cosine)
        addDenseRun<true>(run, begin, end, lists, weights, score);
      else
        addDenseRun<false>(run, begin, end, lists, weights, score);
      return;
    }
    const QueryWord& w = run.words[0];
    std::size_t& at = next[static_cast<std::size_t>(&w - words.data())];
    const PostingList& list = lists[w.word];
    const double idf = weights.idfPower(w.word);
    at = cosine ? accumulateSparse<true, false>(list, at, end, w.weight, idf, weights, a)
                : accumulateSparse<false, false>(list, at, end, w.weight, idf, weights, a);
  };
  // Ranges start on a whole group of kDenseGroup ids, as do the blocks within them, so that the dense
  // runs are added a whole group at a time (a group's count bytes one cache line a word).
  const auto rangeStart = [&](std::size_t part) {
    if (part == parts) return end_id;
    const std::uint64_t at = (first_id + std::uint64_t{span} * part / parts) / kDenseGroup * kDenseGroup;
    return static_cast<ImageId>(std::max<std::uint64_t>(first_id, at));
  };
#pragma omp parallel for num_threads(static_cast<int>(team)) schedule(dynamic, 1) if (team > 1)
  for (std::size_t part = 0; part < parts; ++part) {
    const ImageId first = rangeStart(part), last = rangeStart(part + 1);
    std::size_t* next = cursors.data() + part * words.size();
    for (std::size_t j = 0; j < words.size(); ++j) next[j] = lists[words[j].word].positionOf(first);
    for (ImageId begin = first; begin < last; begin = last - begin > kBlock ? begin + kBlock : last) {
      const ImageId end = last - begin > kBlock ? begin + kBlock : last;
      for (const WordRun& run : runs) add(run, next, begin, end);
    }
    // The range's best k as the scores go by (the untouched ones are 0), each score zeroed after it
    // is read: the next query's start, without another pass over every image.
    for (ImageId id = first; id < last; ++id) {
      if (score[id] > 0.0) tops[part].offer(score[id], id);
      score[id] = 0.0;
    }
    ranked[part] = tops[part].ranked();
  }
  a.all_touched = false;  // every score is 0 again
  if (parts == 1) return std::move(ranked[0]);
  Ranked merged;
  for (const Ranked& r : ranked) merged.insert(merged.end(), r.begin(), r.end());
  return best(std::move(merged), top_k);
}

Ranked QueryScorer::prunedIn(std::size_t segment, const std::vector<QueryWord>& words, std::size_t top_k) const {
  const std::vector<PostingList>& lists = data.segments[segment].lists;
  const ImageId first_id = data.segments[segment].first, end_id = data.end(segment);
  const std::size_t n = words.size();
  std::vector<double> bound(n);
  for (std::size_t i = 0; i < n; ++i)
    bound[i] = cosine ? words[i].weight * weights.maxDocumentWeight(words[i].word) : words[i].weight;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return bound[x] > bound[y]; });
  std::vector<double> rest(n + 1, 0.0);  // rest[j]: the bounds of order[j..] summed
  for (std::size_t j = n; j-- > 0;) rest[j] = rest[j + 1] + bound[order[j]];

  Accumulator& a = accumulatorFor(data);
  Accumulator::Reset reset{a};
  double* score = a.score.data();
  Leaders leaders(top_k);

  // done[j]: the postings of order[0..j) summed.
  std::vector<std::size_t> done(n + 1, 0);
  for (std::size_t j = 0; j < n; ++j) done[j + 1] = done[j] + lists[words[order[j]].word].size();
  const std::size_t total = done[n];

  // Phase 1: whole lists, until the words left cannot lift an image without a score into the top k.
  // The leaders are refreshed (a pass over the touched images) after as many postings as twice the
  // touched images, or, when the phase may be about to end (the bounds left below twice theta), as
  // many as the touched images: at most about half what the lists cost, usually far less.
  //
  // Pruning pays only if phase 1 ends well before the long lists: when most images share common
  // words with the query and theta stays low (synthetic images drawn from one word distribution),
  // it would visit nearly every posting and then pay for phase 2 and the rescoring besides. So once
  // an eighth of the postings are in, theta is compared with the bounds left after half of them: if
  // the phase cannot plausibly end by then (those bounds above twice theta), the query is answered
  // by the exhaustive path instead, for the cost of that eighth.
  double theta = 0.0;
  std::size_t since = 0;
  bool judged = false;
  std::size_t j = 0;
  for (; j < n; ++j) {
    if (a.touched_count >= top_k) {
      theta = std::max(theta, leaders.theta(score));
      if (below(rest[j], theta)) break;
      const bool judge = !judged && 8 * done[j] >= total;
      if (judge || theta == 0.0 || since >= 2 * a.touched_count ||
          (rest[j] < 2.0 * theta && since >= a.touched_count)) {
        leaders.refresh(a.touchedBegin(), a.touchedEnd(), score, theta);
        since = 0;
        theta = std::max(theta, leaders.theta(score));
        if (below(rest[j], theta)) break;
      }
      if (judge) {
        judged = true;
        const std::size_t half = static_cast<std::size_t>(
            std::lower_bound(done.begin(), done.end(), (total + 1) / 2) - done.begin());
        if (rest[std::min(half, n)] > 2.0 * theta) {
          a.clear();
          return exhaustiveIn(segment, words, top_k);
        }
      }
    }
    const QueryWord& w = words[order[j]];
    const PostingList& list = lists[w.word];
    if (cosine)
      accumulateListed<true>(list, w.weight, weights.idfPower(w.word), weights, a);
    else
      accumulateListed<false>(list, w.weight, weights.idfPower(w.word), weights, a);
    since += list.size();
  }

  t_visited = done[j];
  // Phase 2: the remaining words for the candidates only. An image ruled out gets the score -1, so
  // that a scan of a list skips it and every image it did not touch (score 0) with one comparison.
  // The candidates are kept ascending, so that each list is searched forwards once: sorted, or, when
  // most images are touched, collected by one pass over the scores in id order (a sort of a million
  // ids costs far more).
  std::vector<ImageId> candidates;
  if (j == n) {
    candidates.assign(a.touchedBegin(), a.touchedEnd());
    std::sort(candidates.begin(), candidates.end());
  } else if (16 * a.touched_count < std::size_t{end_id - first_id}) {
    for (const ImageId* id = a.touchedBegin(); id != a.touchedEnd(); ++id) {
      if (below(score[*id] + rest[j], theta))
        score[*id] = -1.0;
      else
        candidates.push_back(*id);
    }
    std::sort(candidates.begin(), candidates.end());
  } else {
    for (ImageId id = first_id; id < end_id; ++id) {
      if (score[id] == 0.0) continue;
      if (below(score[id] + rest[j], theta))
        score[id] = -1.0;
      else
        candidates.push_back(id);
    }
  }
  // Hopeless candidates are dropped (score -1) before a list is searched, and otherwise after as many
  // postings as there are candidates: a scan skips them anyway.
  const auto prune = [&](std::size_t at_word) {
    leaders.refresh(candidates.data(), candidates.data() + candidates.size(), score, theta);
    theta = std::max(theta, leaders.theta(score));
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [&](ImageId id) {
                                      if (!below(score[id] + rest[at_word], theta)) return false;
                                      score[id] = -1.0;
                                      return true;
                                    }),
                     candidates.end());
    since = 0;
  };
  since = 0;
  for (; j < n; ++j) {
    const QueryWord& w = words[order[j]];
    const PostingList& list = lists[w.word];
    const double idf = weights.idfPower(w.word);
    if (since >= candidates.size() || list.size() > 8 * candidates.size()) prune(j);
    if (!list.dense() && list.size() <= 8 * candidates.size()) {
      // Many postings against the candidates: a scan costs less than a search per candidate.
      since += list.size();
      t_visited += list.size();
      for (std::size_t at = 0; at < list.size(); ++at) {
        const ImageId id = list.ids()[at];
        if (score[id] <= 0.0) continue;
        const double d = documentWeight(list.count(id, list.counts()[at]), id, idf, weights);
        score[id] += cosine ? contribution<true>(w.weight, d) : contribution<false>(w.weight, d);
      }
      continue;
    }
    // A look-up per candidate: a search in a sparse list, an index in a dense one.
    since += candidates.size();
    t_visited += candidates.size();
    std::size_t at = 0;
    for (ImageId id : candidates) {
      if (score[id] <= 0.0) continue;
      const std::int32_t count = list.countOf(id, at);
      if (count == 0) continue;
      const double d = documentWeight(count, id, idf, weights);
      score[id] += cosine ? contribution<true>(w.weight, d) : contribution<false>(w.weight, d);
    }
  }

  // The candidates' scores are now complete but summed in another order than the reference's: those
  // that may be in the top k are scored again in summation order.
  prune(n);
  std::vector<ImageId> finalists;
  for (ImageId id : candidates)
    if (!below(score[id], theta)) finalists.push_back(id);

  // Looking each finalist up in every list costs about |finalists| n log(list); when that would exceed
  // the lists themselves (top_k near the number of images that match), the exhaustive pass is cheaper.
  std::size_t postings = 0;
  for (const QueryWord& w : words) postings += lists[w.word].size();
  if (finalists.size() * n * 16 > postings) {
    a.clear();
    return exhaustiveIn(segment, words, top_k);
  }
  // Word by word, so that each list is searched forwards once for the finalists (ascending); each
  // finalist's sum still grows in summation order.
  std::vector<double> exact(finalists.size(), 0.0);
  for (const QueryWord& w : words) {
    const PostingList& list = lists[w.word];
    const double idf = weights.idfPower(w.word);
    std::size_t at = 0;
    for (std::size_t f = 0; f < finalists.size(); ++f) {
      const std::int32_t count = list.countOf(finalists[f], at);
      ++t_visited;
      if (count == 0) continue;
      const double d = documentWeight(count, finalists[f], idf, weights);
      exact[f] += cosine ? contribution<true>(w.weight, d) : contribution<false>(w.weight, d);
    }
  }
  Ranked ranked;
  ranked.reserve(finalists.size());
  for (std::size_t f = 0; f < finalists.size(); ++f) ranked.emplace_back(exact[f], finalists[f]);
  return best(std::move(ranked), top_k);
}

}  // namespace bovw::index_detail
