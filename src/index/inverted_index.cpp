// The inverted index: one posting list per word, its own TF-IDF model, weights derived lazily per
// (model, scoring option set), top-k queries that visit only the query's words, and the locking
// that lets queries run beside add/remove.
#include <bovw/inverted_index.hpp>

#include "core/writer_fair_mutex.hpp"
#include "index/index_data.hpp"
#include "index/index_editor.hpp"
#include "index/index_file.hpp"
#include "index/incremental_norms.hpp"
#include "index/query_scorer.hpp"
#include "index/scoring_weights.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_names.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace bovw {

using index_detail::IndexData;
using index_detail::PostingList;
using index_detail::ScoringWeights;

namespace {

// (Model, option set) pairs whose weights are kept at once; a query with yet another one drops the
// oldest.
constexpr std::size_t kCachedOptionSets = 16;

void checkSignature(const VocabularySignature& v) {
  if (v.words < 1) throw InvalidInput("inverted index: K = " + std::to_string(v.words) + " words; need at least one");
  if (static_cast<std::uint32_t>(v.words) > index_detail::kMaxWords)
    throw CapacityError("inverted index: K = " + std::to_string(v.words) + " words exceeds the limit of " +
                        std::to_string(index_detail::kMaxWords));
  if (v.dimension < 1)
    throw InvalidInput("inverted index: descriptor width D = " + std::to_string(v.dimension) + "; need at least 1");
  if (v.descriptor_type.toString().size() > index_detail::kMaxDescriptorTypeLength)
    throw InvalidInput("inverted index: descriptor type of " + std::to_string(v.descriptor_type.toString().size()) +
                       " bytes (at most " + std::to_string(index_detail::kMaxDescriptorTypeLength) + ")");
}

void checkHistogram(const HistogramRef& histogram, int words, const std::string& what) {
  if (histogram.size() != words)
    throw InvalidInput(what + " has " + std::to_string(histogram.size()) + " bins but the index's vocabulary has " +
                       std::to_string(words) + " words");
  for (Eigen::Index w = 0; w < histogram.size(); ++w)
    if (histogram[w] < 0)
      throw InvalidInput(what + " has a negative count (" + std::to_string(histogram[w]) + ") for word " +
                         std::to_string(w));
}

// Appends the postings of `images` (ids ascending) to their lists. The postings are first grouped by word with a stable radix sort (8 bits a pass, 256
// buckets that stay in cache), so that each list is appended to once: scattered straight into tens of
// thousands of lists they missed the cache on nearly every posting (perf: 60% of opening a live
// database of 100,000 images); grouped, the open takes about a fifth less CPU time.
void appendByWord(index_detail::IndexData& data, const std::vector<index_detail::SparseImage>& images) {
  if (images.empty()) return;
  struct Entry {
    std::uint32_t word;
    ImageId image;
    std::int32_t count;
  };
  std::vector<Entry> entries, sorted;
  std::size_t total = 0;
  for (const auto& image : images) total += image.words.size();
  entries.reserve(total);
  for (const auto& image : images)
    for (const auto& w : image.words) entries.push_back({w.word, image.id, w.count});
  sorted.resize(entries.size());
  for (std::uint32_t shift = 0; (data.words() - 1) >> shift > 0; shift += 8) {
    std::size_t start[257] = {};
    for (const Entry& e : entries) ++start[((e.word >> shift) & 0xff) + 1];
    for (int b = 0; b < 256; ++b) start[b + 1] += start[b];
    for (const Entry& e : entries) sorted[start[(e.word >> shift) & 0xff]++] = e;
    entries.swap(sorted);
  }
  std::vector<PostingList>& lists = data.growing(images.front().id);
  for (std::size_t i = 0; i < entries.size();) {
    const std::uint32_t w = entries[i].word;
    auto& list = lists[w];
    for (; i < entries.size() && entries[i].word == w; ++i) list.push_back(entries[i].image, entries[i].count);
    list.adapt(data.names.size());
  }
}

}  // namespace

void index_detail::checkSameVocabulary(const VocabularySignature& index, const VocabularySignature& given) {
  auto refuse = [](const std::string& what, const std::string& built, const std::string& has) {
    throw InvalidInput("vocabulary mismatch: the index was built with " + what + " " + built +
                       ", this vocabulary has " + has);
  };
  if (index.words != given.words) refuse("K =", std::to_string(index.words), std::to_string(given.words));
  if (index.dimension != given.dimension)
    refuse("descriptor width D =", std::to_string(index.dimension), std::to_string(given.dimension));
  if (index.descriptor_type != given.descriptor_type)
    refuse("descriptor type", "'" + index.descriptor_type.toString() + "'",
           "'" + given.descriptor_type.toString() + "'");
  if (index.fingerprint != 0 && given.fingerprint != 0 && index.fingerprint != given.fingerprint)
    refuse("a vocabulary of fingerprint", std::to_string(index.fingerprint),
           std::to_string(given.fingerprint) + " (same size, different words)");
}

VocabularySignature VocabularySignature::of(const Vocabulary& vocabulary) {
  return {vocabulary.size(), vocabulary.dimension(), vocabulary.descriptorType(), vocabulary.fingerprint()};
}

struct InvertedIndex::Impl {
  explicit Impl(IndexData d) : data(std::move(d)) {
    weights.reserve(kCachedOptionSets);  // install() then cannot fail for want of memory
  }

  IndexData data;

  // Readers share `mutex`; a writer holds it exclusively only while it changes the lists and names,
  // not while it works out what queries need after the change (prepare(), below). Writers (add,
  // remove, apply, reserve) run one at a time under `writing`, which readers never take: a writer
  // may read `data` without `mutex`, since nobody else changes it. Queries take `weights_mutex`
  // while holding the shared lock; no one holds it while waiting for `mutex`.
  mutable std::mutex writing;
  detail::WriterFairMutex mutex;

  // The TF-IDF model and weights. Every add/remove changes N and so every idf and every image's
  // norm: recomputing them eagerly would make indexing a folder of N images cost O(N * postings).
  // Instead a modification only clears `weights_valid`; the first query after it rebuilds `model`
  // from the posting lists, O(K), under `weights_mutex` while holding the shared lock (the lists
  // cannot change meanwhile), and drops the weights of every (model, option set) pair. Every query
  // holds `weights_mutex` to look up its pair's weights (at most kCachedOptionSets entries, keyed by
  // the model's version); the first query with a pair since the last modification computes them
  // there, O(postings), and queries arriving meanwhile wait. A global model (several shards') keys
  // its own entries: its norms are those of this index's images under the global idf. The
  // shared_ptr a query copies keeps its weights alive even if another query evicts them.
  // `weights_valid` is written under the exclusive lock and read under the shared one, which orders
  // the two.
  //
  // The default scoring with the index's own model also keeps `incremental` norms (made by its
  // first query), and so does each option set whose norms() were asked for (Hamming embedding's
  // cosine norms, ImageDatabase::query). While they exist, a writer follows them: before it changes
  // the lists it computes the norms, the model and the default weights of the state after the
  // change, in the time of the changed words' posting lists plus O(K + ids), while queries go on with
  // the state before it (issue 21: a query beside a writer must not pay for the writer's change; issue
  // 22: nor a Hamming search, whose norms were recomputed from every posting after each write); the
  // exclusive lock then only covers changing the lists and installing what was prepared. Queries of
  // other option sets keep weights computed from the postings, whose bits the references follow.
  mutable std::mutex weights_mutex;
  mutable bool weights_valid = false;
  mutable TfIdfModel model{1};  // the index's own; rebuilt when !weights_valid
  mutable std::vector<std::shared_ptr<const ScoringWeights>> weights;  // oldest first
  mutable std::vector<std::shared_ptr<const index_detail::IncrementalNorms>> incremental;  // oldest first
  mutable bool incremental_used = false;  // a query read them since the last change
  // Postings the writers read following the norms since a query last read them (under `writing`).
  mutable std::uint64_t unread_following = 0;
  static constexpr std::uint64_t kUnreadFollowing = 4;
  // norms() under a global model: computed once per model version, dropped with the weights.
  mutable std::vector<std::pair<std::uint64_t, std::shared_ptr<const index_detail::IncrementalNorms>>> global_norms;

  // The default scoring, whose queries weigh by its incremental norms.
  static bool weighsIncrementally(const ScoringOptions& options) {
    return options.similarity == Scoring::Intersection && options.term == TermWeighting::Count && options.power == 1.0;
  }

  std::shared_lock<std::shared_mutex> readLock() const { return mutex.read(); }

  // Called with the shared lock and `weights_mutex` held.
  void refreshModel() const {
    if (weights_valid) return;
    std::vector<std::uint64_t> frequencies(data.words());
    for (std::size_t w = 0; w < frequencies.size(); ++w) frequencies[w] = data.frequency(w);
    model = TfIdfModel(data.live(), std::move(frequencies));
    weights.clear();
    global_norms.clear();
    weights_valid = true;
  }

  // Called with the shared lock held. `global`: null for the index's own model.
  std::shared_ptr<const ScoringWeights> weightsFor(const ScoringOptions& options, const TfIdfModel* global) const {
    std::lock_guard<std::mutex> guard(weights_mutex);
    refreshModel();
    if (!global) incremental_used = true;  // queries come between changes: writers follow the norms
    const TfIdfModel& used = global ? *global : model;
    for (const auto& cached : weights)
      if (cached->modelVersion() == used.version() && cached->options() == options) return cached;
    if (global) checkCoversOwnModel(*global);
    if (weights.size() == kCachedOptionSets) weights.erase(weights.begin());
    const std::shared_ptr<const index_detail::IncrementalNorms> norms =
        weighsIncrementally(options) ? normsFor(options, global) : nullptr;
    if (norms && norms->exact())
      weights.push_back(std::make_shared<const ScoringWeights>(data.names.size(), used, *norms));
    else
      weights.push_back(std::make_shared<const ScoringWeights>(data, used, options));
    return weights.back();
  }

  // Called with the shared lock and `weights_mutex` held, the model fresh. The incremental norms of
  // `options` (IncrementalNorms::supports): the index's own, which writers follow from now on, or a
  // global model's, the same arithmetic as the whole index's.
  std::shared_ptr<const index_detail::IncrementalNorms> normsFor(const ScoringOptions& options,
                                                                 const TfIdfModel* global) const {
    using index_detail::IncrementalNorms;
    if (global) {
      for (const auto& [version, norms] : global_norms)
        if (version == global->version() && norms->options() == options) return norms;
      checkCoversOwnModel(*global);
      if (global_norms.size() == kCachedOptionSets) global_norms.erase(global_norms.begin());
      global_norms.emplace_back(global->version(), std::make_shared<const IncrementalNorms>(data, options, global));
      return global_norms.back().second;
    }
    incremental_used = true;
    for (const auto& norms : incremental)
      if (norms->options() == options) return norms;
    if (incremental.size() == kCachedOptionSets) incremental.erase(incremental.begin());
    incremental.push_back(std::make_shared<const IncrementalNorms>(data, options));
    return incremental.back();
  }

  // What queries need after a change: no norms when the writer does not follow them: there are none,
  // or the change touches many words (its lists cost about as much as recomputing) and no query read
  // them while the writer spent kUnreadFollowing passes over every posting following them (adds in
  // bulk, which would otherwise pay that for every image). Not at the first such change: an image
  // replaced is two changes (remove, add) that no query comes between, and a query that finds the
  // norms dropped recomputes them from every posting (issue 22: at K = 1,000, replacing images
  // beside Hamming searches spent 30% of the time so once removals got fast).
  struct Prepared {
    std::vector<std::shared_ptr<const index_detail::IncrementalNorms>> norms;
    std::shared_ptr<const ScoringWeights> weights;
    TfIdfModel model{1};
  };

  // Whether a writer would prepare norms now (prepare() checks again).
  bool followsNorms() const {
    std::lock_guard<std::mutex> guard(weights_mutex);
    return !incremental.empty();
  }

  // Called with `writing` held, before the lists change. `change` as it will be applied, with the
  // words each removed image has a posting in (exactly).
  Prepared prepare(const index_detail::IndexChange& change) const {
    Prepared prepared;
    bool wanted = false;
    {
      std::lock_guard<std::mutex> guard(weights_mutex);
      prepared.norms = incremental;
      wanted = incremental_used;
    }
    if (prepared.norms.empty()) return prepared;
    std::vector<std::uint64_t> frequencies(data.words());
    std::uint64_t postings = 0, cost = 0;  // cost: the changed words' postings, which following reads
    for (std::size_t w = 0; w < frequencies.size(); ++w) postings += frequencies[w] = data.frequency(w);
    const std::vector<std::uint64_t> before = frequencies;
    std::size_t changed = 0;
    const auto note = [&](std::uint32_t w, bool added) {
      if (frequencies[w] == before[w]) {  // the word's first change
        ++changed;
        cost += frequencies[w];
      }
      frequencies[w] = added ? frequencies[w] + 1 : frequencies[w] - 1;
    };
    for (const auto& words : change.removed_words)
      for (std::uint32_t w : words) note(w, false);
    for (const auto& image : change.added)
      for (const auto& w : image.words) note(w.word, true);
    if (wanted) unread_following = 0;
    if (changed > data.words() / 4 && !wanted && unread_following + cost > kUnreadFollowing * postings) {
      unread_following = 0;
      prepared.norms.clear();
      return prepared;
    }
    if (!wanted) unread_following += cost;
    prepared.model = TfIdfModel(data.live() - change.removed.size() + change.added.size(), std::move(frequencies));
    for (auto& norms : prepared.norms) {
      norms = std::make_shared<const index_detail::IncrementalNorms>(norms->after(data, change));
      if (weighsIncrementally(norms->options()) && norms->exact())
        prepared.weights = std::make_shared<const ScoringWeights>(change.next_id, prepared.model, *norms);
    }
    return prepared;
  }

  // Called under the exclusive lock once the lists changed: queries from here on use what was
  // prepared, or recompute what they need.
  void install(Prepared prepared) {
    std::lock_guard<std::mutex> guard(weights_mutex);
    weights.clear();
    global_norms.clear();
    incremental_used = false;
    incremental = std::move(prepared.norms);
    weights_valid = !incremental.empty();
    if (incremental.empty()) return;
    model = std::move(prepared.model);
    if (prepared.weights) weights.push_back(std::move(prepared.weights));
  }

  // The words image `id` has a posting in, ascending: those of `held` (every word when empty) whose
  // list holds it.
  std::vector<std::uint32_t> wordsOf(ImageId id, const std::vector<std::uint32_t>& held) const {
    std::vector<std::uint32_t> words;
    const std::vector<PostingList>& lists = data.segmentOf(id).lists;
    auto check = [&](std::size_t w) {
      if (lists[w].countOf(id) > 0) words.push_back(static_cast<std::uint32_t>(w));
    };
    if (held.empty()) {
      for (std::size_t w = 0; w < lists.size(); ++w) check(w);
    } else {
      for (std::uint32_t w : held) check(w);
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    return words;
  }

  // A global model must count at least this index's images and words: one that does not (built
  // before images were added here, or from other shards only) would score with a wrong idf.
  void checkCoversOwnModel(const TfIdfModel& global) const {
    if (global.images() < model.images())
      throw InvalidInput("inverted index: the global TF-IDF model counts N = " + std::to_string(global.images()) +
                         " images, fewer than the " + std::to_string(model.images()) + " of this index");
    for (std::size_t w = 0; w < data.words(); ++w)
      if (global.documentFrequency(w) < model.documentFrequency(w))
        throw InvalidInput("inverted index: the global TF-IDF model has word " + std::to_string(w) + " in " +
                           std::to_string(global.documentFrequency(w)) + " images, fewer than the " +
                           std::to_string(model.documentFrequency(w)) + " of this index");
  }

  void checkLive(ImageId id) const {
    if (id >= data.names.size() || data.names[id].empty())
      throw InvalidInput("inverted index: no image with id " + std::to_string(id) +
                         (id < data.names.size() ? " (it was removed)" : ""));
  }

  // Called under the exclusive lock with a live id and the words it has a posting in: takes it out
  // of their lists. Neither erasing from a vector nor adapt() throws.
  void removeLocked(ImageId id, const std::vector<std::uint32_t>& words) {
    std::vector<PostingList>& lists = data.segmentOf(id).lists;
    for (std::uint32_t w : words) {
      lists[w].remove(id);
      lists[w].adapt(data.names.size());
    }
    data.ids.erase(data.names[id]);
    std::string().swap(data.names[id]);
  }

  // Called with `writing` held and a live id.
  void removeOne(ImageId id) {
    index_detail::IndexChange change;
    change.removed = {id};
    change.removed_words = {wordsOf(id, {})};
    change.next_id = data.names.size();
    Prepared prepared = prepare(change);
    const auto lock = mutex.write();
    removeLocked(id, change.removed_words.front());
    install(std::move(prepared));
  }
};

InvertedIndex::InvertedIndex(VocabularySignature vocabulary) {
  checkSignature(vocabulary);
  IndexData data;
  data.segments.front().lists.resize(static_cast<std::size_t>(vocabulary.words));
  data.vocabulary = std::move(vocabulary);
  impl_ = std::make_unique<Impl>(std::move(data));
}

InvertedIndex::InvertedIndex(const Vocabulary& vocabulary)
    : InvertedIndex(VocabularySignature::of(vocabulary)) {}

InvertedIndex::InvertedIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
InvertedIndex::~InvertedIndex() = default;
InvertedIndex::InvertedIndex(InvertedIndex&&) noexcept = default;
InvertedIndex& InvertedIndex::operator=(InvertedIndex&&) noexcept = default;

ImageId InvertedIndex::add(std::string name, HistogramRef histogram) {
  Impl& s = *impl_;
  if (const auto problem = imageNameProblem(name))
    throw InvalidInput("inverted index: the image name '" + printableName(name) + "' " + *problem);
  checkHistogram(histogram, s.data.vocabulary.words, "the histogram of image '" + name + "'");

  std::lock_guard<std::mutex> writing(s.writing);
  if (auto it = s.data.ids.find(name); it != s.data.ids.end())
    throw InvalidInput("inverted index: an image named '" + name + "' is already indexed (id " +
                       std::to_string(it->second) + ")");
  if (s.data.names.size() >= index_detail::kMaxIds - 1)
    throw CapacityError("inverted index: all " + std::to_string(index_detail::kMaxIds - 1) + " image ids are used");
  const auto id = static_cast<ImageId>(s.data.names.size());
  index_detail::IndexChange change;
  change.added.push_back({id, name, {}});
  for (Eigen::Index w = 0; w < histogram.size(); ++w)
    if (histogram[w] > 0) change.added.front().words.push_back({static_cast<std::uint32_t>(w), histogram[w]});
  change.next_id = static_cast<std::uint64_t>(id) + 1;
  Impl::Prepared prepared = s.prepare(change);

  const auto lock = s.mutex.write();
  // All or nothing: if an allocation fails half-way, the postings already appended are taken back.
  const std::vector<index_detail::WordCount>& words = change.added.front().words;
  std::vector<PostingList>& lists = s.data.growing(id);
  std::size_t done = 0;
  try {
    s.data.names.push_back(name);
    for (; done < words.size(); ++done) lists[words[done].word].push_back(id, words[done].count);
    s.data.ids.emplace(std::move(name), id);
  } catch (...) {
    for (std::size_t i = 0; i < done; ++i) lists[words[i].word].pop_back();
    if (s.data.names.size() > id) s.data.names.pop_back();
    throw;
  }
  for (const index_detail::WordCount& w : words) lists[w.word].adapt(s.data.names.size());
  s.install(std::move(prepared));
  return id;
}

ImageId InvertedIndex::append(InvertedIndex&& later) {
  if (&later == this) throw InvalidInput("inverted index: an index cannot be appended to itself");
  Impl& s = *impl_;
  IndexData& from = later.impl_->data;
  std::lock_guard<std::mutex> writing(s.writing);
  std::lock_guard<std::mutex> later_writing(later.impl_->writing);
  const auto later_lock = later.impl_->mutex.write();
  index_detail::checkSameVocabulary(s.data.vocabulary, from.vocabulary);
  for (const auto& [name, id] : from.ids)
    if (s.data.ids.count(name) != 0)
      throw InvalidInput("inverted index: an image named '" + name + "' is in both indexes");
  if (s.data.names.size() + from.names.size() >= index_detail::kMaxIds)
    throw CapacityError("inverted index: the two indexes hold more than " + std::to_string(index_detail::kMaxIds - 1) +
                        " image ids");
  const auto offset = static_cast<ImageId>(s.data.names.size());
  // Room in the names and the sparse lists first, so that running out of memory comes before the
  // lists change, but for a dense list (a word a fifth of the images hold), which grows by its ids.
  s.data.names.reserve(s.data.names.size() + from.names.size());
  s.data.ids.reserve(s.data.ids.size() + from.ids.size());
  std::vector<PostingList> later_lists;  // `later`'s lists, each in one (append() takes one list)
  if (from.segments.size() > 1)
    for (std::size_t w = 0; w < from.words(); ++w) later_lists.push_back(from.merged(w));
  else
    later_lists = std::move(from.segments.front().lists);
  from.segments.resize(1);
  from.segments.front() = index_detail::Segment{};
  from.segments.front().lists.resize(later_lists.size());

  const auto lock = s.mutex.write();
  std::vector<PostingList>& lists = s.data.growing(offset);
  for (std::size_t w = 0; w < lists.size(); ++w) lists[w].reserve(lists[w].size() + later_lists[w].size());
  for (std::string& name : from.names) s.data.names.push_back(std::move(name));
  for (auto& [name, id] : from.ids) s.data.ids.emplace(name, offset + id);
  for (std::size_t w = 0; w < lists.size(); ++w) {
    lists[w].append(later_lists[w], offset);
    lists[w].adapt(s.data.names.size());
    later_lists[w] = index_detail::PostingList();
  }
  from.names.clear();
  from.ids.clear();
  s.install(Impl::Prepared{});  // the norms and weights are recomputed by the next query
  later.impl_->install(Impl::Prepared{});
  return offset;
}

void InvertedIndex::remove(const std::string& name) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> writing(s.writing);
  auto it = s.data.ids.find(name);
  if (it == s.data.ids.end()) throw InvalidInput("inverted index: no image named '" + name + "'");
  s.removeOne(it->second);
}

void InvertedIndex::remove(ImageId id) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> writing(s.writing);
  s.checkLive(id);
  s.removeOne(id);
}

std::size_t InvertedIndex::size() const {
  auto lock = impl_->readLock();
  return impl_->data.live();
}

std::size_t InvertedIndex::idCount() const {
  auto lock = impl_->readLock();
  return impl_->data.names.size();
}

std::string InvertedIndex::name(ImageId id) const {
  auto lock = impl_->readLock();
  impl_->checkLive(id);
  return impl_->data.names[id];
}

std::optional<ImageId> InvertedIndex::find(const std::string& name) const {
  auto lock = impl_->readLock();
  auto it = impl_->data.ids.find(name);
  if (it == impl_->data.ids.end()) return std::nullopt;
  return it->second;
}

std::vector<ImageId> InvertedIndex::ids() const {
  auto lock = impl_->readLock();
  std::vector<ImageId> result;
  result.reserve(impl_->data.live());
  for (std::size_t id = 0; id < impl_->data.names.size(); ++id)
    if (!impl_->data.names[id].empty()) result.push_back(static_cast<ImageId>(id));
  return result;
}

std::uint64_t InvertedIndex::postingCount() const {
  auto lock = impl_->readLock();
  return impl_->data.postingCount();
}

std::uint64_t InvertedIndex::postingBytes() const {
  auto lock = impl_->readLock();
  std::uint64_t total = 0;
  impl_->data.forEachList([&](std::size_t, const PostingList& list) { total += sizeof(list) + list.bytes(); });
  return total;
}

const VocabularySignature& InvertedIndex::vocabulary() const { return impl_->data.vocabulary; }

void InvertedIndex::checkVocabulary(const VocabularySignature& other) const {
  index_detail::checkSameVocabulary(impl_->data.vocabulary, other);
}

void InvertedIndex::checkVocabulary(const Vocabulary& other) const {
  checkVocabulary(VocabularySignature::of(other));
}

void checkQueryHistogram(HistogramRef histogram, int words) { checkHistogram(histogram, words, "the query histogram"); }

std::vector<SearchResult> InvertedIndex::query(HistogramRef histogram, std::size_t top_k, Scoring scoring) const {
  return query(histogram, top_k, ScoringOptions{scoring, TermWeighting::Count, 1.0});
}

std::vector<SearchResult> InvertedIndex::query(HistogramRef histogram, std::size_t top_k,
                                               const ScoringOptions& options) const {
  return queryWith(histogram, top_k, options, nullptr, QueryStrategy::Exhaustive);
}

std::vector<SearchResult> InvertedIndex::query(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options,
                                               QueryStrategy strategy) const {
  return queryWith(histogram, top_k, options, nullptr, strategy);
}

std::vector<SearchResult> InvertedIndex::query(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options,
                                               const TfIdfModel& global, QueryStrategy strategy) const {
  if (global.words() != impl_->data.vocabulary.words)
    throw InvalidInput("inverted index: the global TF-IDF model has K = " + std::to_string(global.words()) +
                       " words but the index's vocabulary has " + std::to_string(impl_->data.vocabulary.words));
  return queryWith(histogram, top_k, options, &global, strategy);
}

TfIdfModel InvertedIndex::model() const {
  auto lock = impl_->readLock();
  std::lock_guard<std::mutex> guard(impl_->weights_mutex);
  impl_->refreshModel();
  return impl_->model;
}

std::vector<double> InvertedIndex::norms(const std::vector<ImageId>& images, const ScoringOptions& options) const {
  return normsWith(images, options, nullptr);
}

std::vector<double> InvertedIndex::norms(const std::vector<ImageId>& images, const ScoringOptions& options,
                                         const TfIdfModel& global) const {
  return normsWith(images, options, &global);
}

std::vector<double> InvertedIndex::normsWith(const std::vector<ImageId>& images, const ScoringOptions& options,
                                             const TfIdfModel* global) const {
  checkScoringOptions(options);
  if (options.similarity == Scoring::Hamming)
    throw InvalidInput("inverted index: Hamming embedding weighs features, not the index's vectors");
  const Impl& s = *impl_;
  auto lock = s.readLock();
  std::vector<double> norms(images.size(), 0.0);
  // With alpha = 1 from the incremental norms, which writers keep up to date (a search beside a
  // writer then costs its images, not the index's postings); else from the weights.
  std::shared_ptr<const index_detail::IncrementalNorms> incremental;
  std::uint64_t live = 0;
  if (index_detail::IncrementalNorms::supports(options)) {
    std::lock_guard<std::mutex> guard(s.weights_mutex);
    s.refreshModel();
    incremental = s.normsFor(options, global);
    live = global ? global->images() : s.model.images();
  }
  if (incremental && incremental->exact()) {
    incremental->norms(images, s.data.names.size(), index_detail::IncrementalNorms::offset(live), norms);
    return norms;
  }
  const std::shared_ptr<const ScoringWeights> weights = s.weightsFor(options, global);
  for (std::size_t i = 0; i < images.size(); ++i)
    if (images[i] < s.data.names.size() && weights->scale(images[i]) > 0) norms[i] = 1.0 / weights->scale(images[i]);
  return norms;
}

std::vector<SearchResult> InvertedIndex::queryWith(HistogramRef histogram, std::size_t top_k,
                                                   const ScoringOptions& options, const TfIdfModel* global,
                                                   QueryStrategy strategy) const {
  const Impl& s = *impl_;
  checkHistogram(histogram, s.data.vocabulary.words, "the query histogram");
  if (top_k == 0) throw InvalidInput("inverted index: top_k must be at least 1");
  checkScoringOptions(options);
  if (options.similarity == Scoring::Hamming)
    throw InvalidInput("inverted index: Hamming-embedding scoring needs the query's signatures and the images' "
                       "keypoints; query a database that stores keypoints (ImageDatabase::query), not its index");

  auto lock = s.readLock();
  if (s.data.live() == 0) throw InvalidInput("index is empty: add images before querying");
  const std::shared_ptr<const ScoringWeights> weights = s.weightsFor(options, global);
  const bool cosine = options.similarity == Scoring::Cosine;

  // The query's weights use the model's idf; words no indexed image holds still count towards the
  // query's norm (idf = ln(1 + N) + 1), exactly as in the dense definition.
  double query_norm = 0.0;
  for (Eigen::Index w = 0; w < histogram.size(); ++w) {
    if (histogram[w] == 0) continue;
    const double v = weights->weight(histogram[w], static_cast<std::size_t>(w));
    query_norm += cosine ? v * v : v;
  }
  if (query_norm == 0.0) return {};  // an empty histogram scores 0 against everything
  if (cosine) query_norm = std::sqrt(query_norm);

  // The words to visit with their weights, in the order every image's score is summed in.
  std::vector<index_detail::QueryWord> words;
  for (Eigen::Index w = 0; w < histogram.size(); ++w) {
    const auto word = static_cast<std::size_t>(w);
    if (histogram[w] == 0 || s.data.frequency(word) == 0) continue;
    words.push_back({static_cast<std::uint32_t>(word), weights->weight(histogram[w], word) / query_norm});
  }

  const index_detail::QueryScorer scorer{s.data, *weights, cosine};
  scorer.toSummationOrder(words);
  const std::vector<std::pair<double, ImageId>> ranked =
      strategy == QueryStrategy::Exhaustive ? scorer.exhaustive(words, top_k) : scorer.pruned(words, top_k);

  std::vector<SearchResult> results;
  results.reserve(ranked.size());
  for (const auto& [score, id] : ranked) results.push_back({id, s.data.names[id], score});
  return results;
}

void InvertedIndex::save(const std::string& path) const {
  auto lock = impl_->readLock();
  writeFileAtomically(path, [&](std::ostream& out) { index_detail::writeIndex(out, impl_->data); });
}

InvertedIndex InvertedIndex::load(const std::string& path) {
  return InvertedIndex(std::make_unique<Impl>(index_detail::readIndex(path)));
}

void InvertedIndex::write(std::ostream& out) const {
  auto lock = impl_->readLock();
  index_detail::writeIndex(out, impl_->data);
}

InvertedIndex InvertedIndex::read(const std::vector<char>& bytes, const std::string& source) {
  return InvertedIndex(std::make_unique<Impl>(index_detail::decodeIndex(bytes.data(), bytes.size(), source)));
}

InvertedIndex InvertedIndex::read(const std::vector<char>& bytes, const std::string& source,
                                  const VocabularySignature& expected) {
  return InvertedIndex(
      std::make_unique<Impl>(index_detail::decodeIndex(bytes.data(), bytes.size(), source, &expected)));
}

// IndexEditor (index/index_editor.hpp) lives here because it edits the index's Impl.
void index_detail::IndexEditor::apply(InvertedIndex& index, const IndexChange& change) {
  InvertedIndex::Impl& s = *index.impl_;
  const auto vocabulary_words = static_cast<std::uint32_t>(s.data.vocabulary.words);
  auto refuse = [](const std::string& problem) { throw InvalidInput("inverted index: " + problem); };

  std::lock_guard<std::mutex> writing(s.writing);
  // Everything is checked before anything changes.
  std::unordered_set<ImageId> removed;
  std::unordered_set<std::string> freed;  // names the removals give back, which added images may take
  for (ImageId id : change.removed) {
    s.checkLive(id);
    if (!removed.insert(id).second) refuse("image id " + std::to_string(id) + " removed twice in one change");
    freed.insert(s.data.names[id]);
  }
  if (!change.removed_words.empty() && change.removed_words.size() != change.removed.size())
    refuse("words of " + std::to_string(change.removed_words.size()) + " removed images for " +
           std::to_string(change.removed.size()));
  for (const auto& held : change.removed_words)
    for (std::uint32_t w : held)
      if (w >= vocabulary_words) refuse("a removed image's word " + std::to_string(w) + " is outside the vocabulary");
  std::uint64_t next = s.data.names.size();
  std::unordered_set<std::string> taken;
  for (const SparseImage& image : change.added) {
    if (image.id < next) refuse("image id " + std::to_string(image.id) + " added out of order (next is " +
                                std::to_string(next) + ")");
    next = static_cast<std::uint64_t>(image.id) + 1;
    if (const auto problem = imageNameProblem(image.name))
      refuse("the image name '" + printableName(image.name) + "' " + *problem);
    if ((s.data.ids.count(image.name) && !freed.count(image.name)) || !taken.insert(image.name).second)
      refuse("an image named '" + image.name + "' is already indexed");
    std::uint32_t previous = 0;
    for (std::size_t i = 0; i < image.words.size(); ++i) {
      const WordCount& w = image.words[i];
      if (w.word >= vocabulary_words || w.count < 1 || (i > 0 && w.word <= previous))
        refuse("image '" + image.name + "' has word " + std::to_string(w.word) + " with count " +
               std::to_string(w.count) + " (words ascending below " + std::to_string(vocabulary_words) + ", counts >= 1)");
      previous = w.word;
    }
  }
  if (change.next_id < next || change.next_id > index_detail::kMaxIds - 1)
    refuse("next image id " + std::to_string(change.next_id) + " is below the ids in use (" + std::to_string(next) +
           ") or beyond the limit");

  // The words each removed image has a posting in: searched in its given words' lists (every list
  // when none are given) for a few; many are taken out by one pass over every list instead, a change
  // that touches most words and is not followed (prepare()).
  const bool many_removed = removed.size() > 16;
  IndexChange exact;
  exact.removed = change.removed;
  if (!many_removed)
    for (std::size_t i = 0; i < change.removed.size(); ++i)
      exact.removed_words.push_back(
          s.wordsOf(change.removed[i], change.removed_words.empty() ? std::vector<std::uint32_t>() : change.removed_words[i]));
  exact.next_id = change.next_id;
  InvertedIndex::Impl::Prepared prepared;
  // The added images are copied only for a writer that follows the norms: not when a live database
  // opens (every stored image in one change, before any query made norms to follow).
  if (!many_removed && s.followsNorms()) {
    exact.added = change.added;
    prepared = s.prepare(exact);
  }

  const auto lock = s.mutex.write();
  if (many_removed) {
    for (index_detail::Segment& segment : s.data.segments)
      for (PostingList& list : segment.lists) {
        list.eraseIf([&](ImageId image) { return removed.count(image) > 0; });
        list.adapt(s.data.names.size());
      }
    for (ImageId id : change.removed) {
      s.data.ids.erase(s.data.names[id]);
      std::string().swap(s.data.names[id]);
    }
  } else {
    for (std::size_t i = 0; i < change.removed.size(); ++i) s.removeLocked(change.removed[i], exact.removed_words[i]);
  }
  // Additions: ids only grow, so appending keeps every list in id order.
  s.data.names.resize(static_cast<std::size_t>(change.next_id));
  for (const SparseImage& image : change.added) {
    s.data.names[image.id] = image.name;
    s.data.ids.emplace(image.name, image.id);
  }
  appendByWord(s.data, change.added);
  s.install(std::move(prepared));
}

void index_detail::IndexEditor::reserve(InvertedIndex& index, const std::vector<std::uint64_t>& postings) {
  InvertedIndex::Impl& s = *index.impl_;
  if (postings.size() != s.data.words())
    throw InvalidInput("inverted index: " + std::to_string(postings.size()) + " posting counts for " +
                       std::to_string(s.data.words()) + " words");
  std::lock_guard<std::mutex> writing(s.writing);
  const auto lock = s.mutex.write();
  std::vector<PostingList>& lists = s.data.growing(static_cast<ImageId>(s.data.names.size()));
  for (std::size_t w = 0; w < postings.size(); ++w) lists[w].reserve(lists[w].size() + postings[w]);
}

void index_detail::IndexEditor::trim(InvertedIndex& index) {
  InvertedIndex::Impl& s = *index.impl_;
  std::lock_guard<std::mutex> writing(s.writing);
  const auto lock = s.mutex.write();
  for (index_detail::Segment& segment : s.data.segments)
    for (PostingList& list : segment.lists) {
      list.adapt(s.data.names.size());
      list.shrinkToFit();
    }
}

std::vector<index_detail::Segment> index_detail::IndexEditor::replaceLists(InvertedIndex& index,
                                                                          std::vector<Segment> segments) {
  InvertedIndex::Impl& s = *index.impl_;
  std::lock_guard<std::mutex> writing(s.writing);
  IndexData replacement;
  replacement.segments = std::move(segments);
  bool same = !replacement.segments.empty() && replacement.segments.front().first == 0 &&
              replacement.words() == s.data.words();
  for (std::size_t k = 0; same && k < replacement.segments.size(); ++k)
    same = replacement.segments[k].lists.size() == s.data.words() &&
           (k == 0 || replacement.segments[k].first > replacement.segments[k - 1].first);
  for (std::size_t w = 0; same && w < s.data.words(); ++w) same = replacement.frequency(w) == s.data.frequency(w);
  if (!same) throw std::logic_error("inverted index: the lists to put in place hold other postings");
  const auto lock = s.mutex.write();
  s.data.segments.swap(replacement.segments);
  return std::move(replacement.segments);
}

const index_detail::IndexData& index_detail::IndexEditor::data(const InvertedIndex& index) { return index.impl_->data; }

void index_detail::IndexEditor::writeBlock(const InvertedIndex& index, detail::ByteWriter& out) {
  auto lock = index.impl_->readLock();
  writeIndexBlock(out, index.impl_->data);
}

InvertedIndex index_detail::IndexEditor::make(IndexData data) {
  return InvertedIndex(std::make_unique<InvertedIndex::Impl>(std::move(data)));
}

std::shared_ptr<const index_detail::IncrementalNorms> index_detail::IndexEditor::defaultNorms(const InvertedIndex& index) {
  const InvertedIndex::Impl& s = *index.impl_;
  {
    std::lock_guard<std::mutex> guard(s.weights_mutex);
    for (const auto& norms : s.incremental)
      if (norms->options() == ScoringOptions{}) return norms;
  }
  return std::make_shared<const IncrementalNorms>(s.data, ScoringOptions{});
}

void index_detail::IndexEditor::adoptNorms(InvertedIndex& index, std::shared_ptr<const IncrementalNorms> norms) {
  InvertedIndex::Impl& s = *index.impl_;
  std::lock_guard<std::mutex> writing(s.writing);  // the lists they follow do not change meanwhile
  std::lock_guard<std::mutex> guard(s.weights_mutex);
  const auto same = std::find_if(s.incremental.begin(), s.incremental.end(),
                                 [&](const auto& held) { return held->options() == norms->options(); });
  if (same != s.incremental.end()) s.incremental.erase(same);
  if (s.incremental.size() == kCachedOptionSets) s.incremental.erase(s.incremental.begin());
  s.incremental.push_back(std::move(norms));
}

std::vector<index_detail::SparseImage> index_detail::IndexEditor::images(const InvertedIndex& index) {
  const InvertedIndex::Impl& s = *index.impl_;
  auto lock = s.readLock();
  std::vector<SparseImage> by_id(s.data.names.size());
  s.data.forEachList([&](std::size_t w, const PostingList& list) {  // by segment: each image's words ascend
    list.forEach([&](ImageId image, std::int32_t count) { by_id[image].words.push_back({static_cast<std::uint32_t>(w), count}); });
  });
  std::vector<SparseImage> images;
  images.reserve(s.data.live());
  for (std::size_t id = 0; id < by_id.size(); ++id) {
    if (s.data.names[id].empty()) continue;
    by_id[id].id = static_cast<ImageId>(id);
    by_id[id].name = s.data.names[id];
    images.push_back(std::move(by_id[id]));
  }
  return images;
}

}  // namespace bovw
