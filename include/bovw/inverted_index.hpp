// Image retrieval over bag-of-visual-words histograms: an inverted index with TF-IDF weights
// (optionally burstiness-damped and power-law normalised), cosine or histogram-intersection scores,
// incremental add/remove, and a checked binary file.
#pragma once

#include <bovw/scoring.hpp>
#include <bovw/tfidf_model.hpp>
#include <bovw/vocabulary.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bovw {

namespace index_detail {
struct IndexEditor;
}

// One image's K word counts, read-only. Binds without a copy to a row of bovw::Histograms, to an
// Eigen row vector, or to Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>> over a
// buffer (a std::vector, a numpy row).
using HistogramRef = Eigen::Ref<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>>;

// Image ids are assigned by add() in increasing order and never reused after remove(), so an id
// stays valid for the life of the index and across save()/load().
using ImageId = std::uint32_t;

// The vocabulary an index was built with, recorded so that a query made with another one is
// refused instead of silently scoring unrelated words.
struct VocabularySignature {
  int words = 0;                // K, 1 .. 2^24
  int dimension = 0;            // D of the descriptors the words were trained on
  DescriptorType descriptor_type;  // surf64, sift128, orb256-binary, ... (its name at most 255 bytes)
  std::uint64_t fingerprint = 0;  // Vocabulary::fingerprint(); 0: not recorded, not compared

  static VocabularySignature of(const Vocabulary& vocabulary);
};

struct SearchResult {
  ImageId id;
  std::string name;
  double score;
};

// Weighting (ScoringOptions, scoring.hpp). With N live images, n_w of them containing word w,
// c_{d,w} the count of word w in image d, f the term weighting (c, sqrt c or 1 + ln c; f(0) = 0)
// and alpha the power-law exponent:
//   tf_{d,w} = f(c_{d,w}) / sum_v f(c_{d,v})      idf_w = ln((1 + N) / (1 + n_w)) + 1
//   v_{d,w} = (tf_{d,w} idf_w)^alpha, then v_d is L2-normalised (cosine) or L1-normalised
//   (intersection) and compared with the query's vector, weighted the same way.
// A query given only a Scoring uses f(c) = c and alpha = 1: the classic TF-IDF.
// The smoothed idf (scikit-learn's smooth_idf) is used because the classic ln(N / n_w) is 0 for
// every word when one image is indexed (and for any word in every image): all vectors would be
// zero and cosine 0/0. Smoothing counts one extra phantom image that holds every word, so idf >= 1
// and finite for all N >= 1, including words no indexed image has (n_w = 0). The query is weighted
// with the index's idf (or a given global model's: query with a TfIdfModel). An empty histogram is
// allowed: its vector is zero, it scores 0 against everything (no NaN), and it is never returned.
//
// Queries visit only the posting lists of the words present in the query. Images sharing no word
// with the query score exactly 0 and are not returned, so a query may return fewer than top_k
// results. Results are sorted by score descending, equal scores by id ascending.
//
// How a query finds its top k. Both give the same results, bit for bit (ids, order, scores).
// Exhaustive visits every posting of every query word: the default, and the reference the tests
// and the benchmarks compare Pruned with. Pruned (MaxScore, Turtle & Flood 1995) bounds what each
// query word can still add to a score and skips the postings that cannot change the top k: mostly
// the long lists of common words, whose idf is low. It skips about half the postings on the
// benchmark's synthetic images but is not yet faster there (docs/PERFORMANCE.md, "Live databases"),
// hence not the default.
enum class QueryStrategy { Exhaustive, Pruned };

// Thread safety: all const member functions (query, size, name, find, ids, save, ...) may run
// concurrently with each other and with add()/remove() from other threads; every call sees the
// index either before or after each add/remove, never half-way. Readers share a lock, add/remove
// take it exclusively and waiting writers are not starved by a stream of queries. Moving,
// move-assigning or destroying an index while another thread uses it is not safe. A moved-from
// index may only be destroyed or assigned to.
// A query of an index of more than 49,152 images (three blocks of 16,384) splits the images over
// OpenMP threads: as many as omp_get_max_threads() gives the calling thread (OMP_NUM_THREADS, or
// every core), at most one per two blocks; the results are the same bits on any number. An
// application that runs many queries at once gives each of its threads a share:
// omp_set_num_threads(1) there, as `bovw serve` does for its working requests.
// Throws InvalidInput, with the message InvertedIndex::query gives, unless `histogram` can be a
// query of a `words`-word index: K bins, no negative count. For checking a query where no index
// with images is at hand (a rank whose shards are empty, bovw/distributed_shards.hpp).
void checkQueryHistogram(HistogramRef histogram, int words);

class InvertedIndex {
 public:
  // Throws InvalidInput for K < 1, D < 1 or an over-long descriptor type, CapacityError for
  // K > 2^24 words.
  explicit InvertedIndex(VocabularySignature vocabulary);
  // Records K, D, the descriptor type and the vocabulary's fingerprint.
  explicit InvertedIndex(const Vocabulary& vocabulary);
  ~InvertedIndex();
  InvertedIndex(InvertedIndex&&) noexcept;
  InvertedIndex& operator=(InvertedIndex&&) noexcept;
  InvertedIndex(const InvertedIndex&) = delete;
  InvertedIndex& operator=(const InvertedIndex&) = delete;

  // Indexes one image and returns its id. Throws InvalidInput for an empty name, a name already in
  // the index, a histogram whose length is not K or a negative count; the index is then unchanged.
  ImageId add(std::string name, HistogramRef histogram);

  // Adds every image of `later` after this index's, under its id plus this index's idCount() (its
  // removed ids stay removed): the index that adding them one by one in id order would make, in
  // the time of copying its posting lists (the ranks of a distributed index, each indexing its
  // part of a folder, merged in the folder's order). `later` is left empty. Throws InvalidInput,
  // before anything changes, for another vocabulary or a name both indexes hold; std::bad_alloc
  // may leave part of `later` appended. Returns the offset added to `later`'s ids.
  ImageId append(InvertedIndex&& later);

  // Throws InvalidInput if no live image has this name / id. Costs a binary search in every
  // word's posting list (no per-image word list is kept: it would double the index's memory).
  void remove(const std::string& name);
  void remove(ImageId id);

  std::size_t size() const;  // live images
  bool empty() const { return size() == 0; }
  // Name of a live image; throws InvalidInput for an unknown or removed id.
  std::string name(ImageId id) const;
  std::optional<ImageId> find(const std::string& name) const;
  std::vector<ImageId> ids() const;  // live ids, ascending
  // Ids ever assigned, removed ones included: the id the next add() gets.
  std::size_t idCount() const;
  std::uint64_t postingCount() const;  // (image, word) pairs with a positive count
  // Bytes the posting lists take in memory: 5 a posting in a sparse list (a 32-bit id and a count
  // byte) times its capacity (at most 1.5x its length while images are added one at a time, exactly
  // its length after load() or read()), a byte per image id in a dense one (a common word's: at most
  // 5 a posting when chosen, 6 before it goes back), plus 48 bytes per word. Lists that a live
  // database reads in place (its copy of the checkpoint, or LMDB's map) count the bytes they read.
  std::uint64_t postingBytes() const;

  // Top `top_k` images for a histogram of the same vocabulary. Throws InvalidInput if the index
  // has no image ("index is empty"), if the histogram's length is not K (naming both) or holds a
  // negative count, or if top_k is 0.
  std::vector<SearchResult> query(HistogramRef histogram, std::size_t top_k,
                                  Scoring scoring = Scoring::Intersection) const;
  // The same with a term weighting and power-law exponent; also throws InvalidInput for an
  // exponent outside (0, 1] and for Scoring::Hamming (it needs keypoints: ImageDatabase::query).
  // The images' normalisers are computed by the first query with each
  // option set after an add/remove, O(postings), and kept for the next ones.
  std::vector<SearchResult> query(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options) const;
  // The same with the strategy named (the others use Exhaustive).
  std::vector<SearchResult> query(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options,
                                  QueryStrategy strategy) const;
  // The same, scoring this index's images (and the query) with the idf of `global` instead of the
  // index's own: the model merged from several indexes' model() (shards), so that each shard's
  // scores are those the union of the shards would give. The images' normalisers under a global
  // model are computed once per model version and option set, like the others. Also throws
  // InvalidInput if `global` has another K, or counts fewer images, or fewer for some word, than
  // this index (it must include this index's own model).
  std::vector<SearchResult> query(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options,
                                  const TfIdfModel& global, QueryStrategy strategy = QueryStrategy::Exhaustive) const;

  // The norm of each image's weighted vector under `options`, (f(c_w) idf_w)^alpha over its words,
  // L2 for cosine and L1 for intersection: what query() divides that image's score by; 0 for a removed id, one never assigned, or an image
  // without words. For scores that weigh the same vectors otherwise (Hamming embedding,
  // ImageDatabase::query). Throws InvalidInput as query() for bad options or a bad `global`.
  std::vector<double> norms(const std::vector<ImageId>& images, const ScoringOptions& options) const;
  std::vector<double> norms(const std::vector<ImageId>& images, const ScoringOptions& options,
                            const TfIdfModel& global) const;

  // N (live images) and every word's document frequency n_w, from the posting lists: the model
  // query() uses, and what shards merge into a global one. O(K) after an add/remove, else a copy.
  TfIdfModel model() const;

  const VocabularySignature& vocabulary() const;  // fixed for the life of the index
  // Throws InvalidInput naming the first difference (K, D, descriptor type, or fingerprint when
  // both sides recorded one) between this index's vocabulary and `other`.
  void checkVocabulary(const VocabularySignature& other) const;
  void checkVocabulary(const Vocabulary& other) const;

  // Binary file (format in src/index/index_file.hpp), written atomically: a crash or failure
  // leaves any existing file at `path` untouched. Throws IoError if it cannot be written. Queries
  // go on while it writes; add/remove wait for it, so the file is one consistent state.
  void save(const std::string& path) const;
  // Throws IoError if the file cannot be read or is not a regular file (a FIFO, a device),
  // InvalidInput naming the file and the problem if it is not a valid index (wrong magic, version
  // or byte order, truncated, counts inconsistent with its size, checksum mismatch, ids or words
  // out of range). The header is checked, and every count against the file's size, before the
  // rest is read or anything is allocated for it.
  static InvertedIndex load(const std::string& path);

  // The same format to a stream and from bytes in memory, for files that embed an index
  // (ImageDatabase); `source` names the bytes' origin in error messages.
  void write(std::ostream& out) const;
  static InvertedIndex read(const std::vector<char>& bytes, const std::string& source);
  // The same for an index that must have been built with `expected` (one stored beside its
  // vocabulary): another vocabulary is refused as checkVocabulary() refuses it, before the
  // posting lists (56 bytes per word, even empty) are allocated.
  static InvertedIndex read(const std::vector<char>& bytes, const std::string& source,
                            const VocabularySignature& expected);

 private:
  friend struct index_detail::IndexEditor;  // changes of many images at once (live databases)
  struct Impl;
  explicit InvertedIndex(std::unique_ptr<Impl> impl);
  // `global`: null for the index's own model.
  std::vector<double> normsWith(const std::vector<ImageId>& images, const ScoringOptions& options,
                                const TfIdfModel* global) const;
  std::vector<SearchResult> queryWith(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options,
                                      const TfIdfModel* global, QueryStrategy strategy) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bovw
