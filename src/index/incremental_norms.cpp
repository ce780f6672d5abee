// IncrementalNorms: per-image integer moments of the L1 or L2 norm, moved by the words whose frequency changed.
#include "index/incremental_norms.hpp"

#include "index/posting_list.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace bovw::index_detail {

namespace {

constexpr int kLogFraction = 52;         // bits after the point of l_w: ln(1 + 2^32) < 23 fits 63 bits
constexpr int kLogSquaredFraction = 40;  // of l_w^2 (< 2^9): 49 bits
constexpr int kTermFraction = 40;        // of f(c) or f(c)^2 where it is not an integer
constexpr std::int32_t kTabledCounts = 256;
// Each image's m0 stays below 2^62 units (else exact() is false), so that m1 < 2^62 * 2^57 and m2 < 2^62 *
// 2^49 fit 127 bits.
constexpr __int128 kLargestM0 = __int128{1} << 62;

std::int64_t fixedLog(std::size_t frequency) {
  return std::llround(std::ldexp(std::log1p(static_cast<double>(frequency)), kLogFraction));
}

// l_w^2 from l_w's own units, rounded to 2^-40: exact integer arithmetic, so every index gets the same.
std::int64_t fixedLogSquared(std::int64_t log_frequency) {
  const auto l = static_cast<unsigned __int128>(log_frequency);
  constexpr int kShift = 2 * kLogFraction - kLogSquaredFraction;
  return static_cast<std::int64_t>((l * l + (static_cast<unsigned __int128>(1) << (kShift - 1))) >> kShift);
}

// The nearest double, as the conversion of __int128 gives it (a call into libgcc), converting in one
// instruction where the value fits 64 bits, as most moments do.
double toDouble(__int128 value) {
  const bool fits = value >= std::numeric_limits<std::int64_t>::min() && value <= std::numeric_limits<std::int64_t>::max();
  return fits ? static_cast<double>(static_cast<std::int64_t>(value)) : static_cast<double>(value);
}

}  // namespace

IncrementalNorms::IncrementalNorms(const IndexData& data, const ScoringOptions& options, const TfIdfModel* model)
    : options_(options) {
  setUnits();
  log_frequency_.resize(data.words());
  if (squared()) log_squared_.resize(data.words());
  for (std::size_t w = 0; w < data.words(); ++w) {
    log_frequency_[w] = fixedLog(model ? model->documentFrequency(w) : data.frequency(w));
    if (squared()) log_squared_[w] = fixedLogSquared(log_frequency_[w]);
  }
  m0_.assign(data.names.size(), 0);
  m1_.assign(data.names.size(), 0);
  if (squared()) m2_.assign(data.names.size(), 0);
  if (squared())
    addPostings<true, false>(data, 0, nullptr, nullptr);
  else
    addPostings<false, false>(data, 0, nullptr, nullptr);
}

IncrementalNorms::IncrementalNorms(const IndexData& data, const ScoringOptions& options, Moments earlier)
    : options_(options) {
  const std::size_t words = data.words(), ids = data.names.size(), before = earlier.m0.size();
  if (earlier.log_frequency.size() != words || earlier.m1.size() != before || before > ids ||
      earlier.m2.size() != (squared() ? before : 0))
    throw std::invalid_argument("IncrementalNorms: the moments are of another index");
  setUnits();
  // Each word's l_w now, and how far it moved since the moments were made.
  std::vector<std::int64_t> shift(words), shift2(squared() ? words : 0);
  log_frequency_.resize(words);
  if (squared()) log_squared_.resize(words);
  for (std::size_t w = 0; w < words; ++w) {
    log_frequency_[w] = fixedLog(data.frequency(w));
    shift[w] = log_frequency_[w] - earlier.log_frequency[w];
    if (!squared()) continue;
    log_squared_[w] = fixedLogSquared(log_frequency_[w]);
    shift2[w] = log_squared_[w] - fixedLogSquared(earlier.log_frequency[w]);
  }
  m0_ = std::move(earlier.m0);
  m1_ = std::move(earlier.m1);
  m2_ = std::move(earlier.m2);
  m0_.resize(ids, 0);
  m1_.resize(ids, 0);
  if (squared()) m2_.resize(ids, 0);
  // The images removed since: gone from the lists, their moments go too.
  std::uint64_t seen = 0;
  for (std::size_t id = 0; id < before; ++id) {
    if (data.names[id].empty()) {
      m0_[id] = 0;
      m1_[id] = 0;
      if (squared()) m2_[id] = 0;
    }
    seen |= static_cast<std::uint64_t>(m0_[id]);
  }
  if (seen >= static_cast<std::uint64_t>(kLargestM0)) exact_ = false;
  // Nothing added and no frequency moved (an open right after its checkpoint): no list to read.
  if (before == ids && std::all_of(shift.begin(), shift.end(), [](std::int64_t dl) { return dl == 0; })) return;
  if (squared())
    addPostings<true, true>(data, static_cast<ImageId>(before), &shift, &shift2);
  else
    addPostings<false, true>(data, static_cast<ImageId>(before), &shift, nullptr);
}

void IncrementalNorms::setUnits() {
  // f(c) and f(c)^2 are integers for counts (c, c^2) and f(c)^2 for square roots (c).
  const bool integral = options_.term == TermWeighting::Count || (squared() && options_.term == TermWeighting::Sqrt);
  term_fraction_ = integral ? 0 : kTermFraction;
  m0_unit_ = std::ldexp(1.0, -term_fraction_);
  m1_unit_ = std::ldexp(1.0, -(kLogFraction + term_fraction_));
  m2_unit_ = std::ldexp(1.0, -(kLogSquaredFraction + term_fraction_));
  term_units_.clear();
  for (std::int32_t c = 0; c < kTabledCounts; ++c) term_units_.push_back(computeTermUnits(c));
}

// The constructor's pass, by blocks of images whose moments (24 or 40 bytes an image) the cache
// holds, each list's stored counts read directly as the query's loops read them: through
// forEachPostingByImageBlock, a call per posting and blocks of 131,072 images, the first query after
// loading 100,000 images took 340-470 ms, against about 200 for the plain floating-point pass it
// replaced (issue 21). A large count's byte (the mark, 255) adds a term of 0 in the loop and its own
// term after it, as in the query.
IncrementalNorms::TermTable IncrementalNorms::termTable() const {
  TermTable table{};
  for (int c = 0; c < PostingList::kLargeMark; ++c) table[static_cast<std::size_t>(c)] = termUnits(c);
  return table;  // table[kLargeMark] = 0
}

template <typename F>
std::size_t IncrementalNorms::forEachTermBelow(const PostingList& list, const TermTable& table, std::size_t from,
                                               ImageId end, F&& f) const {
  std::size_t i = from;
  if (list.dense()) {
    // Every id of the span, those the word is not in too: their count byte 0 has the term 0, which
    // moves no moment. A test per id mispredicts where a fifth to four fifths of them hold the word.
    const std::uint8_t* counts = list.denseCounts();
    const std::size_t last = std::min<std::size_t>(end, list.denseSpan());
    for (; i < last; ++i) f(static_cast<ImageId>(i), table[counts[i]]);
    i = std::max(i, from);
  } else {
    const ImageId* image = list.ids();
    const std::uint8_t* counts = list.counts();
    for (; i < list.size() && image[i] < end; ++i) f(image[i], table[counts[i]]);
  }
  if (list.hasLargeCounts())
    list.forEachBelow(from, end, [&](ImageId image, std::int32_t count) {
      if (count >= PostingList::kLargeMark) f(image, termUnits(count));
    });
  return i;
}

// The images in blocks whose moments (24 or 40 bytes an image) stay in the cache while the lists add
// to them, the blocks in ranges over `threads` of OpenMP's threads (four a thread, taken as they come
// free), each range starting in every list at its first image (positionOf): an image's moments are
// sums of its own postings, integers, so the bits are the same on any number of threads. The larger
// the block, the fewer the visits to each list: at a million images on the 2-core VM the constructor's
// pass took 1.47-1.54 s in blocks of 32,768, 1.01-1.03 s in blocks of 131,072 (3 MB), 1.09-1.20 s in
// blocks of 262,144 (fewer blocks than the ranges); halved while the threads would lack one each.
template <typename Make>
std::uint64_t IncrementalNorms::forEachTermByBlocks(const IndexData& data, const std::vector<std::uint32_t>& words,
                                                    const std::vector<ImageId>& from, std::size_t threads,
                                                    Make&& make) const {
  const std::size_t ids = data.names.size();
  std::size_t block = squared() ? 65536 : 131072;
  while (block > 16384 && block * threads > ids) block /= 2;
  const std::size_t blocks = (ids + block - 1) / block;
  const auto ranges = static_cast<std::ptrdiff_t>(std::min(blocks, 4 * threads));
  const TermTable table = termTable();
  // The words' lists in every segment, and the word (its place in `words`) of each.
  std::vector<const PostingList*> lists;
  std::vector<std::size_t> word_of;
  for (const Segment& segment : data.segments)
    for (std::size_t j = 0; j < words.size(); ++j) {
      lists.push_back(&segment.lists[words[j]]);
      word_of.push_back(j);
    }
  std::uint64_t seen = 0;
#pragma omp parallel for num_threads(static_cast<int>(threads)) schedule(dynamic, 1) reduction(| : seen) if (ranges > 1 && threads > 1)
  for (std::ptrdiff_t range = 0; range < ranges; ++range) {
    const std::size_t first = blocks * static_cast<std::size_t>(range) / static_cast<std::size_t>(ranges) * block;
    const std::size_t last = std::min(ids, blocks * static_cast<std::size_t>(range + 1) / static_cast<std::size_t>(ranges) * block);
    // Each list's position in this range and the image there (a bound below it for a dense list,
    // kNoImage past the end): a list with nothing in a block is passed over without reading it, where
    // the first look at each of 65,536 lists in each block missed the cache (13% of the pass), and so
    // is a segment's list in the blocks before its images.
    std::vector<std::size_t> next(lists.size());
    std::vector<ImageId> upcoming(lists.size());
    const auto imageAt = [&](std::size_t i) {
      const PostingList& list = *lists[i];
      if (list.dense()) return next[i] < list.denseSpan() ? static_cast<ImageId>(next[i]) : PostingList::kNoImage;
      return next[i] < list.size() ? list.ids()[next[i]] : PostingList::kNoImage;
    };
    for (std::size_t i = 0; i < lists.size(); ++i) {
      next[i] = lists[i]->positionOf(static_cast<ImageId>(std::max<std::size_t>(first, from[word_of[i]])));
      upcoming[i] = imageAt(i);
    }
    for (std::size_t begin = first; begin < last; begin += block) {
      const auto end = static_cast<ImageId>(std::min(last, begin + block));
      for (std::size_t i = 0; i < lists.size(); ++i) {
        if (upcoming[i] >= end) continue;
        next[i] = forEachTermBelow(*lists[i], table, next[i], end,
                                   [&seen, add = make(word_of[i])](ImageId image, std::int64_t t) { seen |= add(image, t); });
        upcoming[i] = imageAt(i);
      }
    }
  }
  return seen;
}

// At a million images (500 million postings) the pass took 2.7 s on one core of the 2-core VM
// (2026-11-27), and made the first query after an open wait for it. Resuming, a word whose l_w did
// not move is read from `first_new` on only.
template <bool kSquared, bool kResume>
void IncrementalNorms::addPostings(const IndexData& data, ImageId first_new, const std::vector<std::int64_t>* shift,
                                   const std::vector<std::int64_t>* shift2) {
  std::int64_t* m0 = m0_.data();
  __int128* m1 = m1_.data();
  __int128* m2 = kSquared ? m2_.data() : nullptr;
  std::vector<std::uint32_t> words(data.words());
  std::vector<ImageId> from(words.size(), 0);
  for (std::size_t w = 0; w < words.size(); ++w) {
    words[w] = static_cast<std::uint32_t>(w);
    if (kResume && (*shift)[w] == 0) from[w] = first_new;
  }
  // Every m0 as it grows, or-ed: a term is below 2^62 (termUnits of counts below 2^31), so the first
  // sum of an image to reach 2^62 is below 2^63 and sets bit 62 here, whatever comes after it.
  const auto threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  const std::uint64_t seen = forEachTermByBlocks(data, words, from, threads, [&](std::size_t w) {
    const std::int64_t l = log_frequency_[w], l2 = kSquared ? log_squared_[w] : 0;
    const std::int64_t dl = kResume ? (*shift)[w] : 0, dl2 = kResume && kSquared ? (*shift2)[w] : 0;
    return [=](ImageId image, std::int64_t t) -> std::uint64_t {
      if (kResume && image < first_new) {  // its moments hold the term with the l_w of then
        m1[image] += static_cast<__int128>(t) * dl;
        if (kSquared) m2[image] += static_cast<__int128>(t) * dl2;
        return 0;
      }
      const std::uint64_t sum = static_cast<std::uint64_t>(m0[image]) + static_cast<std::uint64_t>(t);  // no signed overflow
      m0[image] = static_cast<std::int64_t>(sum);
      m1[image] += static_cast<__int128>(t) * l;
      if (kSquared) m2[image] += static_cast<__int128>(t) * l2;
      return sum;
    };
  });
  if (seen >= static_cast<std::uint64_t>(kLargestM0)) exact_ = false;
}

std::int64_t IncrementalNorms::termUnits(std::int32_t count) const {
  return count < kTabledCounts ? term_units_[static_cast<std::size_t>(std::max(count, 0))] : computeTermUnits(count);
}

std::int64_t IncrementalNorms::computeTermUnits(std::int32_t count) const {
  if (count <= 0) return 0;
  const double c = static_cast<double>(count);
  if (options_.term == TermWeighting::Count) return squared() ? std::int64_t{count} * count : count;
  if (options_.term == TermWeighting::Sqrt) return squared() ? count : std::llround(std::ldexp(std::sqrt(c), kTermFraction));
  const double f = 1.0 + std::log(c);  // TermWeighting::Log, as ScoringWeights computes it
  return std::llround(std::ldexp(squared() ? f * f : f, kTermFraction));
}

void IncrementalNorms::move(ImageId d, std::int32_t count, std::int64_t l, std::int64_t l2, int sign) {
  const __int128 t = sign * termUnits(count);
  const __int128 m0 = m0_[d] + t;
  if (m0 >= kLargestM0) exact_ = false;  // then never read
  m0_[d] = static_cast<std::int64_t>(m0);
  m1_[d] += t * l;
  if (squared()) m2_[d] += t * l2;
}

IncrementalNorms IncrementalNorms::after(const IndexData& data, const IndexChange& change) const {
  IncrementalNorms next(*this);
  next.m0_.resize(change.next_id, 0);
  next.m1_.resize(change.next_id, 0);
  if (squared()) next.m2_.resize(change.next_id, 0);
  std::vector<char> removed;  // by id, only when there are removals
  if (!change.removed.empty()) removed.assign(data.names.size(), 0);
  for (const ImageId id : change.removed) {
    removed[id] = 1;
    next.m0_[id] = 0;
    next.m1_[id] = 0;
    if (squared()) next.m2_[id] = 0;
  }
  // The net change of each word's document frequency.
  std::vector<std::pair<std::uint32_t, std::int64_t>> delta;
  for (const auto& words : change.removed_words)
    for (const std::uint32_t w : words) delta.emplace_back(w, -1);
  for (const SparseImage& image : change.added)
    for (const WordCount& w : image.words) delta.emplace_back(w.word, 1);
  std::sort(delta.begin(), delta.end());
  std::vector<WordShift> shifts;
  for (std::size_t i = 0; i < delta.size();) {
    const std::uint32_t w = delta[i].first;
    std::int64_t net = 0;
    for (; i < delta.size() && delta[i].first == w; ++i) net += delta[i].second;
    const std::int64_t old_l = log_frequency_[w];
    const std::int64_t l = fixedLog(static_cast<std::size_t>(static_cast<std::int64_t>(data.frequency(w)) + net));
    next.log_frequency_[w] = l;
    if (l == old_l) continue;
    const std::int64_t old_l2 = squared() ? log_squared_[w] : 0;
    const std::int64_t l2 = squared() ? fixedLogSquared(l) : 0;
    if (squared()) next.log_squared_[w] = l2;
    shifts.push_back({w, l - old_l, l2 - old_l2});
  }
  const char* skip = removed.empty() ? nullptr : removed.data();
  if (squared())
    next.shiftWords<true>(data, shifts, skip);
  else
    next.shiftWords<false>(data, shifts, skip);
  for (const SparseImage& image : change.added)
    for (const WordCount& w : image.words)
      next.move(image.id, w.count, next.log_frequency_[w.word], squared() ? next.log_squared_[w.word] : 0, 1);
  return next;
}

// By blocks, as addPostings. At a million images a write of 1,000 moves nearly every word's l_w, a
// pass over every posting: 19% of such a write on one core of the 2-core VM (2026-12-05); a small
// write stays on the calling thread.
template <bool kSquared>
void IncrementalNorms::shiftWords(const IndexData& data, const std::vector<WordShift>& shifts, const char* removed) {
  constexpr std::size_t kPostingsPerThread = std::size_t{1} << 20;
  __int128* m1 = m1_.data();
  __int128* m2 = kSquared ? m2_.data() : nullptr;
  std::vector<std::uint32_t> words;
  std::size_t postings = 0;
  for (const WordShift& s : shifts) {
    words.push_back(s.word);
    postings += data.frequency(s.word);
  }
  const std::vector<ImageId> from(words.size(), 0);
  const std::size_t threads =
      std::clamp<std::size_t>(postings / kPostingsPerThread, 1, static_cast<std::size_t>(std::max(1, omp_get_max_threads())));
  forEachTermByBlocks(data, words, from, threads, [&](std::size_t j) {
    const std::int64_t dl = shifts[j].dl, dl2 = kSquared ? shifts[j].dl2 : 0;
    return [=](ImageId image, std::int64_t t) -> std::uint64_t {
      if (removed && removed[image]) return 0;
      m1[image] += static_cast<__int128>(t) * dl;
      if (kSquared) m2[image] += static_cast<__int128>(t) * dl2;
      return 0;
    };
  });
}

double IncrementalNorms::offset(std::uint64_t images) { return 1.0 + std::log1p(static_cast<double>(images)); }

double IncrementalNorms::idf(std::size_t word, double offset) const {
  return offset - std::ldexp(static_cast<double>(log_frequency_[word]), -kLogFraction);
}

double IncrementalNorms::norm(ImageId d, double offset) const {
  const double m0 = static_cast<double>(m0_[d]) * m0_unit_;
  const double m1 = toDouble(m1_[d]) * m1_unit_;
  if (!squared()) return offset * m0 - m1;
  if (m0_[d] == 0) return 0.0;
  const double m2 = toDouble(m2_[d]) * m2_unit_;
  return std::sqrt(std::max(0.0, offset * offset * m0 - 2.0 * offset * m1 + m2));
}

void IncrementalNorms::norms(const std::vector<ImageId>& images, std::size_t known, double offset,
                             std::vector<double>& norms) const {
  constexpr std::size_t kAhead = 8;  // images whose moments are on their way
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (i + kAhead < images.size() && images[i + kAhead] < known) {
      const ImageId later = images[i + kAhead];
      __builtin_prefetch(&m0_[later]);
      __builtin_prefetch(&m1_[later]);
      if (squared()) __builtin_prefetch(&m2_[later]);
    }
    if (images[i] < known) norms[i] = norm(images[i], offset);
  }
}

}  // namespace bovw::index_detail
