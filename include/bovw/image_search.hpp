// The front door of image retrieval: one object that holds a database (one file, a live database
// that other processes may change, the shards of a manifest, or shards spread over the ranks of a
// job), adds images to it and answers query images
// with one result type, verified geometrically when asked. The `bovw` program's search is a thin
// call of it; an application needs nothing else (examples/api/search_example.cpp). Modelled on
// COLMAP's VisualIndex: an options struct per call, the database's own features and vocabulary.
//
//   bovw::ImageSearch photos = bovw::ImageSearch::open("photos.bovwdb");
//   bovw::SearchOptions options;
//   options.verify = 50;                                   // re-rank the top 50 by geometry
//   for (const bovw::SearchHit& hit : photos.search("box.png", options)) ...
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/feature_spec.hpp>
#include <bovw/geometric_verification.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_words.hpp>
#include <bovw/live_database.hpp>
#include <bovw/scoring.hpp>
#include <bovw/vocabulary.hpp>

#include <opencv2/core.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bovw {

// How one query is answered.
struct SearchOptions {
  std::size_t top = 10;  // results returned
  // How the images are ranked (scoring.hpp). Unset: the database's default, ImageSearch::
  // defaultScoring(): Hamming embedding where it stores keypoints, else histogram intersection; a
  // query given as a histogram ranks by intersection. Scoring::Hamming needs a database that stores
  // keypoints and a query with its words and their signatures.
  std::optional<ScoringOptions> scoring;
  // Re-rank the top `verify` results of the bag-of-words ranking by a homography fitted to keypoints
  // that share words (needs a database that stores keypoints); 0: no verification. Verified results
  // come first whatever `top` is: `top` counts after re-ranking.
  std::size_t verify = 0;
  VerificationOptions verification;  // thresholds of the verification; its `shortlist` is ignored (`verify`)
  // Query expansion (bovw/query_expansion.hpp): the features of up to `expand` verified results
  // (best first) inside the query's mapped outline are added to the query's, the database is ranked
  // again with them under the same scoring, and that shortlist verified again against the query
  // itself (so inliers and homographies still map the query). The query's own image, when it is
  // indexed (told as exclude_query tells it, whether or not it is left out), adds nothing and is
  // passed over. Needs verify > 0; 0: no expansion.
  // With no verified result the answer is the unexpanded one. Not over the ranks of a job (the
  // verified results' keypoints lie on other ranks).
  std::size_t expand = 0;
  // Leave the query image itself out of its results: an indexed image that is the same file (by any
  // path) for a query given by path, or of the same name for a query given as features.
  bool exclude_query = false;
};

// One result: an indexed image and how well it matches.
struct SearchHit {
  std::string name;     // as the image was added (bovw index: its path)
  std::size_t shard = 0;  // the shard that holds it (0 for a database of one file)
  ImageId id = 0;         // its id in that shard
  // With verification: inliers + bow_score for a verified result (so verified results rank first),
  // else bow_score. Without: bow_score.
  double score = 0;
  double bow_score = 0;  // the bag-of-words similarity
  int inliers = -1;      // keypoints the homography maps onto their partners; -1: not checked
  bool verified = false;
  std::optional<cv::Matx33d> homography;  // when verified: query image coordinates -> this image's
};

// An image in the database: its name and where it is.
struct IndexedImage {
  std::string name;
  std::size_t shard = 0;
  ImageId id = 0;
};

// One query's answer.
struct QueryResults {
  std::string query;                               // the query's name (its path)
  std::int64_t features = 0;                       // features found in it (0: it can match nothing)
  std::vector<SearchHit> hits;                     // best first, at most SearchOptions::top
  // When SearchOptions::verify > 0; with expansion, checked and verified are the final ranking's and
  // milliseconds those of both verifications.
  std::optional<VerificationReport> verification;
  std::size_t expanded = 0;  // verified results whose features were added to the query (SearchOptions::expand)
};

// Where a database's stored signatures are scanned (ImageSearchOptions::signatures).
enum class SignaturePlace { Host, Auto, Device };

// How images are turned into histograms: where SURF and the nearest-word search run, how many
// workers decode, the pixel limit, progress. The database fixes what is extracted (its FeatureSpec).
struct ImageSearchOptions {
  HistogrammerConfig histogrammer;  // Backend::Auto by default: OpenCL on a GPU, else OpenMPTiled
  ExtractorOptions extractor;       // SurfBackend::Auto: OpenCL SURF where there is a device
  PipelineOptions pipeline;         // workers, strict, max_pixels, progress (keep_words is set as needed)
  // A live database's posting lists (LiveDatabase::open): Copied for a process that serves many
  // searches, Mapped for one that opens, searches a few times and exits, Deferred for one that only
  // adds, puts or removes (the index is read if it searches after all).
  PostingMemory live_lists = PostingMemory::Copied;
  // Where Hamming-embedding searches scan the stored signatures (ImageDatabase::scanSignaturesOn),
  // decided when the database is opened or created: Host there; Device on the histogrammer's OpenCL
  // device (histogrammer.device), whose failure is open's; Auto there too where the histogrammer
  // runs on OpenCL (Backend::Auto: on a GPU) and the database is one file or live with Copied lists,
  // else on the host, also where the copy fails (signatureScan() says why). The copy costs 12 bytes
  // of device memory a stored keypoint, and its upload at the open; for a process that serves many
  // searches (bovw serve takes Auto), not one that searches once. Not for shards.
  SignaturePlace signatures = SignaturePlace::Host;
};

// Threads: the const members (search, words, histograms, size, images) may run in several threads at
// once, and beside one thread that adds, puts or removes (a search sees the state before or after
// each change); open, create, save and moving the object are not safe beside anything else.
class ImageSearch {
 public:
  // An empty database of `vocabulary` for images whose features `features` describes. Throws
  // InvalidInput as ImageDatabase's constructor.
  static ImageSearch create(Vocabulary vocabulary, FeatureSpec features, DatabaseOptions database = {},
                            ImageSearchOptions options = {});
  // A new, empty live database in the folder `path` (LiveDatabase::create): every add and remove is
  // durable when it returns.
  static ImageSearch createLive(const std::string& path, Vocabulary vocabulary, FeatureSpec features,
                                DatabaseOptions database = {}, ImageSearchOptions options = {});
  // A database that `bovw index` (or save()) wrote: one .bovwdb file, the .bovwshards manifest of
  // its shards, or the folder of a live database (LiveDatabase::open: once per process, as LMDB's
  // locks are per process). Throws IoError or InvalidInput naming the file (ShardedDatabase::load,
  // LiveDatabase::open).
  static ImageSearch open(const std::string& path, ImageSearchOptions options = {});
  // Collective: the shards of a manifest spread over `ranks` (DistributedShards::load); `ranks` must
  // outlive the object. Every search is then collective too: every rank calls it, rank 0's queries
  // are answered, and rank 0 gets the results (the others an empty list).
  static ImageSearch open(Communicator& ranks, const std::string& path, ImageSearchOptions options = {});

  ~ImageSearch();
  ImageSearch(ImageSearch&&) noexcept;
  ImageSearch& operator=(ImageSearch&&) noexcept;

  const Vocabulary& vocabulary() const;
  const FeatureSpec& features() const;
  std::size_t size() const;  // images in the database (in all shards)
  std::size_t shardCount() const;
  bool storesKeypoints() const;  // in every shard: verification can run
  // What an unset SearchOptions::scoring ranks by: Hamming embedding over the keypoints' signatures
  // (hamming20+log) where the database stores keypoints, histogram intersection (TF-IDF, L1)
  // otherwise. On the UKBench-style sets and the quick start's images Hamming embedding ranks
  // better (N-S 3.99 against 3.76; box.png 3rd for box_in_scene.png, not 24th) at several times
  // the ranking time (docs/RETRIEVAL.md); storing keypoints is the opt-in to feature-level work.
  ScoringOptions defaultScoring() const;
  // Where Hamming-embedding searches scan the signatures (ImageSearchOptions::signatures): the
  // device's name, or "" on the host, and why not on a device where Auto or a later change gave up.
  ImageDatabase::SignatureScan signatureScan() const;
  bool isLive() const;           // a live database: add, put and remove are durable when they return
  // The live database (its generation, how it opened: LiveDatabase::opening()); null for a file or shards.
  const LiveDatabase* liveDatabase() const;
  bool contains(const std::string& name) const;  // whether an image of this name is indexed
  // Every image of the database (of the shards this process holds, in a job of several ranks), by
  // shard, then by id.
  std::vector<IndexedImage> images() const;

  // Makes now what the first search or add of an image makes on first use: the feature extractor and
  // the histogrammer (an OpenCL one builds or loads its kernels: about a second on a GPU the first
  // time). Optional: `bovw serve` calls it before it says it is ready, `bovw search --profile` to
  // time it apart. In a job of several ranks only rank 0 extracts, so the others make nothing.
  void prepare() const;

  // The histograms of images under the database's features and vocabulary, read as add() and
  // search() read them (their words and keypoints too with `keep_words`); unreadable images are
  // listed in the result's failures (with ImageSearchOptions::pipeline.strict the first throws).
  // For queries answered many times over (bovw evaluate compares scorings on the same queries).
  ImageHistograms histograms(const std::vector<std::string>& image_paths, bool keep_words = false) const;
  // One decoded image's features, each assigned to its nearest word, with keypoints and signatures:
  // what add() and search() of an image do first (for a caller that needs the feature count too).
  ImageWords words(const cv::Mat& image) const;
  // The words of several decoded images, each as words() gives it: SURF on an OpenCL device runs them
  // as one batch (one launch per stage for all of them) and their descriptors are assigned in one
  // call. Throws as words() for the first image that fails. An empty list gives an empty list.
  std::vector<ImageWords> words(const std::vector<cv::Mat>& images) const;
  // Whether words() of many images at once pays off: the features are computed on an OpenCL device
  // (elsewhere the images are taken one after another, which threads of their own do as well).
  bool extractsInDeviceBatches() const;

  // Adding and removing: a live database (durable when the call returns, in one write per call: all
  // of its images or none), or a database of one file in memory (create, or open of a .bovwdb; save()
  // writes it); a sharded one is read-only here (InvalidInput). Names are the images' paths; a name
  // no output can hold is refused (bovw/image_names.hpp).
  //
  // Reads, extracts and adds every image (in parallel, histograms in batches, in order). Images that
  // cannot be read, or whose name is already indexed, are skipped and returned (with
  // ImageSearchOptions::pipeline.strict, the first throws); the others are added.
  std::vector<ImageFailure> add(const std::vector<std::string>& image_paths);
  // An image already decoded (8- or 16-bit, gray or colour), under `name`. Throws InvalidInput.
  ImageId add(const std::string& name, const cv::Mat& image);
  // An image's features already assigned to words (histogramImages with keep_words makes them, and
  // words() below).
  ImageId add(const std::string& name, const ImageWords& words);
  // Adds the image, or replaces the one of the same name (in one durable write, when live: a search
  // sees the old image or the new one). Returns its id (a new one).
  ImageId put(const std::string& name, const ImageWords& words);
  // The same for several images, in order: when live, in one durable write (one sync of the store for
  // all of them), all or none, and a name twice in `images` is refused (InvalidInput) like any other
  // problem of add(); a database of one file takes them one after another. Returns their ids.
  // `bovw serve` writes the PUTs that arrive together this way.
  std::vector<ImageId> put(const std::vector<NamedImageWords>& images);
  void remove(const std::string& name);  // throws InvalidInput if no image has this name
  // All or none: throws InvalidInput naming the first name no image has, removing nothing.
  void remove(const std::vector<std::string>& names);
  // Writes the database (one file or live) as one .bovwdb file, atomically (ImageDatabase::save).
  void save(const std::string& path) const;

  // Searching. Throws InvalidInput if the database is empty, or if verification is asked of one
  // that stores no keypoints; IoError or InvalidInput naming an image that cannot be read.
  std::vector<SearchHit> search(const std::string& image_path, const SearchOptions& options = {}) const;
  std::vector<SearchHit> search(const cv::Mat& image, const SearchOptions& options = {}) const;
  // A query already assigned to words; `name` is the query's name (for exclude_query, and so that
  // expansion passes the query's own indexed image over).
  std::vector<SearchHit> search(const ImageWords& words, const SearchOptions& options = {},
                                const std::string& name = "") const;
  // A query already counted as a histogram of K words. It has no keypoints: SearchOptions::verify
  // must be 0 and the scoring not Scoring::Hamming (InvalidInput otherwise).
  std::vector<SearchHit> search(HistogramRef histogram, const SearchOptions& options = {},
                                const std::string& name = "") const;
  // Many queries at once: read and extracted in parallel, answered in order. Unreadable ones are
  // skipped and listed in `failures` (with pipeline.strict the first throws).
  std::vector<QueryResults> search(const std::vector<std::string>& image_paths, const SearchOptions& options,
                                   std::vector<ImageFailure>* failures = nullptr) const;

 private:
  struct Impl;
  explicit ImageSearch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Where one rank's time went in indexImages or indexFolder (`bovw-mpi index --profile`): seconds on
// the calling thread, one after the other, so that their sum is the call's wall time; setup_s ran
// beside them.
struct IndexProfile {
  double list_s = 0;        // rank 0's listing of the files with their sizes, its broadcast and the split
  double setup_wait_s = 0;  // waiting, once the list was there, for the extractor and histogrammer
  double setup_s = 0;       // making those (OpenCL contexts, SURF's kernels) on a thread of their own while
                            // the list is made: not part of the sum, and hidden but for setup_wait_s
  double work_s = 0;        // this rank's images: decoding, features, histograms, and each finished batch
                            // sent to rank 0 (on rank 0: added to the database)
  double gather_s = 0;      // rank 0, after its own work: the other ranks' batches taken (not the waits
                            // for them), the adds finished and the ranks' parts appended; the others:
                            // their sends completing
  double write_s = 0;       // building the shards' databases, writing and committing the files
  double waiting_s = 0;     // the rest: waiting for other ranks (for their results, at agreements)
  std::int64_t images = 0;  // this rank's, indexed
  std::int64_t bytes = 0;   // result bytes this rank sent to rank 0 (on rank 0: received)
};

// Building a database from image files in one call, over the ranks of a job: `bovw index`.
struct IndexOptions {
  DatabaseOptions database;  // store_keypoints: for verification
  // 0: one database file at `output`. S: the images split into S contiguous parts of about equal
  // bytes, each a database file beside `output`, which names their manifest (OUT.bovwshards) and is
  // replaced last (bovw/shard_generations.hpp): readers see the old database or the new one.
  std::size_t shards = 0;
  // Write a live database (a new folder at `output`, bovw/live_database.hpp) instead of a file; not
  // with shards.
  bool live = false;
  // Lines worth a user's attention that are not errors (waiting for another writer of the folder).
  std::function<void(const std::string&)> tell;
  // Each image that cannot be used, on the rank that read it, once all of its images are read
  // (before the run fails if none could be).
  std::function<void(const ImageFailure&)> skipped;
  // Filled with this rank's times when given.
  IndexProfile* profile = nullptr;
};

struct IndexSummary {
  std::int64_t images = 0;    // indexed, over every rank
  std::int64_t postings = 0;  // over every rank
  std::int64_t failed = 0;    // images that could not be used, over every rank
  std::vector<ImageFailure> failures;  // this rank's
};

// Collective over `ranks` (singleProcess() for one process): histograms `image_paths` (rank 0's
// list; the others pass anything), each rank a contiguous part of about equal bytes on the device
// of its `options`, and writes the database to `output`. All files or none: every rank prepares its
// files, the ranks agree that all succeeded, then they are renamed into place, a manifest last.
// Without shards rank 0 writes the database, byte for byte the one-process one. Unreadable images
// are skipped and reported (with pipeline.strict the first fails the run). Throws InvalidInput on
// every rank if no image could be read, or `output` does not fit the options (a manifest's name).
IndexSummary indexImages(Communicator& ranks, const std::vector<std::string>& image_paths,
                         const Vocabulary& vocabulary, const FeatureSpec& features, const std::string& output,
                         const IndexOptions& index = {}, const ImageSearchOptions& options = {});
// The same for the image files of a folder (listImages), listed by rank 0; throws InvalidInput on
// every rank if it holds none.
IndexSummary indexFolder(Communicator& ranks, const std::string& folder, const Vocabulary& vocabulary,
                         const FeatureSpec& features, const std::string& output, const IndexOptions& index = {},
                         const ImageSearchOptions& options = {});

}  // namespace bovw
