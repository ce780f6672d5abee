// ImageSearch: a database of one file (which can change) or the shards of a manifest, maybe spread
// over ranks (read-only), behind one search. Every entry point ends in answer(): rank the images by
// the query's histogram, leave the query itself out, verify the shortlist (and, with expansion, rank
// and verify again with the verified results' features added), keep the top.
#include <bovw/image_search.hpp>

#include <bovw/distributed_shards.hpp>
#include <bovw/error.hpp>
#include <bovw/feature_extractor.hpp>
#include <bovw/live_database.hpp>
#include <bovw/query_expansion.hpp>
#include <bovw/rank_agreement.hpp>
#include <bovw/shard_manifest.hpp>
#include <bovw/surf.hpp>  // viewDescriptors

#include <algorithm>
#include <filesystem>
#include <functional>
#include <mutex>

namespace bovw {

namespace {

using QueryHistogram = Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>;

// Whether the indexed image `name` is the query file at `path`: the same path, or another path to
// the same file (a query given as ./a.jpg, indexed as a.jpg).
bool sameFile(const std::string& name, const std::string& path) {
  if (name == path) return true;
  std::error_code error;
  return std::filesystem::equivalent(name, path, error) && !error;
}

// Whether answering needs the query's keypoints and signatures, not only its histogram (`options`
// with its scoring resolved).
bool needsWords(const SearchOptions& options) {
  return options.verify > 0 || options.scoring->similarity == Scoring::Hamming;
}

SearchHit hitOf(std::size_t shard, const VerifiedResult& r) {
  return {r.name, shard, r.id, r.score, r.bow_score, r.inliers, r.verified, r.homography};
}

SearchHit hitOf(std::size_t shard, const SearchResult& r) {
  return {r.name, shard, r.id, r.score, r.score, -1, false, std::nullopt};
}

}  // namespace

struct ImageSearch::Impl {
  ImageSearchOptions options;
  std::string source;                       // the file opened, for messages ("" for a new database)
  std::optional<ImageDatabase> single;      // a database of one file, in memory: add and remove change it
  // A live database: add and remove write it durably; every search first brings in the writes of
  // other processes (refresh, which is why it is mutable).
  mutable std::optional<LiveDatabase> live;
  std::optional<DistributedShards> shards;  // the shards of a manifest, over one rank or several
  // Made on first use and kept: an OpenCL histogrammer compiles its kernels once, not per query.
  mutable std::unique_ptr<Histogrammer> histogrammer;
  mutable std::unique_ptr<FeatureExtractor> extractor;
  mutable std::once_flag histogrammer_made, extractor_made;
  // A Histogrammer is not promised to be safe from several threads (an OpenCL one owns a queue and
  // buffers): the searches of many threads take turns at it; extraction runs side by side.
  mutable std::mutex device_use;

  // The database that holds the features and vocabulary (every shard has the same ones). On a rank
  // of a job that holds no shard, there is none.
  const ImageDatabase& reference() const {
    if (const ImageDatabase* database = whole()) return *database;
    if (shards->localShardCount() == 0) throw InvalidInput("this rank holds no shard of the database");
    return shards->localShard(0);
  }
  Communicator& ranks() const { return shards ? shards->ranks() : singleProcess(); }
  bool root() const { return ranks().rank() == 0; }

  // The database that is not sharded: one file or live; null for shards.
  const ImageDatabase* whole() const { return single ? &*single : live ? &live->database() : nullptr; }

  void checkChangeable() const {
    if (shards)
      throw problem("is sharded, and cannot be changed: make it live (bovw convert) or index its images again");
  }

  // Adds images in one step: one durable write to a live database, else one after the other. With
  // `replace`, an image of a name already held is replaced (in the same write, when live).
  std::vector<ImageId> add(const std::vector<NamedImageWords>& images, bool replace = false) {
    checkChangeable();
    if (live) return replace ? live->put(images) : live->add(images);
    std::vector<ImageId> ids;
    for (const NamedImageWords& image : images) {
      if (replace && single->index().find(image.name)) single->remove(image.name);
      ids.push_back(single->add(image.name, image.words));
    }
    return ids;
  }

  // Copies the signatures to the histogrammer's device where options.signatures asks for it.
  void placeSignatures() {
    const SignaturePlace place = options.signatures;
    if (place == SignaturePlace::Host || shards) return;
    if (place == SignaturePlace::Auto) {
      if (live && options.live_lists != PostingMemory::Copied) return;
      if (resolveBackend(options.histogrammer) != Backend::OpenCL) return;
    }
    const ImageDatabase& database = *whole();
    if (!database.storesKeypoints()) {
      if (place == SignaturePlace::Device) database.scanSignaturesOn(options.histogrammer.device);  // its refusal
      return;
    }
    try {
      database.scanSignaturesOn(options.histogrammer.device);
    } catch (const Error& e) {
      if (place == SignaturePlace::Device) throw;
      signatures_not_placed = e.what();
    }
  }
  std::string signatures_not_placed;  // why Auto left them on the host

  // Use under device_use.
  Histogrammer& device() const {
    std::call_once(histogrammer_made, [&] { histogrammer = makeHistogrammer(options.histogrammer); });
    return *histogrammer;
  }
  const FeatureExtractor& features() const {
    std::call_once(extractor_made, [&] {
      extractor = makeFeatureExtractor(featureSpec(), extractorBeside(options.extractor, options.histogrammer));
    });
    return *extractor;
  }
  // The settings, read without the images: a live database opened with PostingMemory::Deferred
  // makes no copy for them.
  const Vocabulary& vocabulary() const { return live ? live->vocabulary() : reference().vocabulary(); }
  const FeatureSpec& featureSpec() const { return live ? live->features() : reference().features(); }

  // The images' histograms, and their words when `keep_words`.
  ImageHistograms histograms(const std::vector<std::string>& paths, bool keep_words, bool strict) const {
    PipelineOptions pipeline = options.pipeline;
    pipeline.keep_words = keep_words;
    pipeline.strict = pipeline.strict || strict;
    const std::lock_guard<std::mutex> turn(device_use);
    return histogramImages(paths, features(), vocabulary(), device(), pipeline);
  }

  // Decoded images' words: their features (one device batch where SURF runs on a device), every
  // descriptor's nearest word (one assign for all the images) and signature.
  std::vector<ImageWords> wordsOf(const std::vector<cv::Mat>& images) const {
    std::vector<ImageFeatures> found = features().extractFeaturesBatch(images);
    if (found.size() != images.size()) throw std::logic_error("extractFeaturesBatch: one result per image");
    const Vocabulary& vocabulary = this->vocabulary();
    Eigen::Index rows = 0;
    for (const ImageFeatures& image : found) {
      if (image.descriptors.rows > 0 && image.descriptors.cols != vocabulary.dimension())
        throw InvalidInput("the features have " + std::to_string(image.descriptors.cols) +
                           " dimensions and the vocabulary's words " + std::to_string(vocabulary.dimension()));
      rows += image.descriptors.rows;
    }
    Descriptors descriptors(rows, vocabulary.dimension());
    Eigen::Index row = 0;
    for (const ImageFeatures& image : found) {
      if (image.descriptors.rows == 0) continue;
      descriptors.middleRows(row, image.descriptors.rows) = viewDescriptors(image.descriptors);
      row += image.descriptors.rows;
    }
    std::vector<std::int32_t> nearest;
    if (rows > 0) {
      const std::lock_guard<std::mutex> turn(device_use);
      nearest = device().assign(descriptors, vocabulary);
    }
    std::vector<ImageWords> words(images.size());
    row = 0;
    for (std::size_t i = 0; i < images.size(); ++i) {
      ImageWords& image = words[i];
      image.image_size = images[i].size();
      for (int k = 0; k < found[i].descriptors.rows; ++k) {
        const cv::KeyPoint& keypoint = found[i].keypoints.at(static_cast<std::size_t>(k));
        image.words.push_back(nearest[static_cast<std::size_t>(row)]);
        image.points.push_back(keypoint.pt);
        image.sizes.push_back(keypoint.size);
        image.angles.push_back(keypoint.angle);
        image.signatures.push_back(wordSignature(descriptors.row(row).data(), vocabulary, image.words.back()));
        ++row;
      }
    }
    return words;
  }
  ImageWords wordsOf(const cv::Mat& image) const { return std::move(wordsOf(std::vector<cv::Mat>{image}).front()); }

  bool storesKeypoints() const {
    return live ? live->storesKeypoints() : whole() ? whole()->storesKeypoints() : shards->storesKeypoints();
  }

  // `options` with its scoring set: the default (ImageSearch::defaultScoring) where it was left unset,
  // or histogram intersection for a query given as a histogram, which has no features.
  SearchOptions resolved(SearchOptions options, bool features) const {
    if (!options.scoring) options.scoring = features ? defaultScoring() : ScoringOptions{Scoring::Intersection};
    return options;
  }
  ScoringOptions defaultScoring() const {
    return storesKeypoints() ? ScoringOptions{Scoring::Hamming, TermWeighting::Log, 1.0, 20}
                             : ScoringOptions{Scoring::Intersection};
  }

  // A problem of the database, naming its file when it has one.
  InvalidInput problem(const std::string& what) const {
    return source.empty() ? InvalidInput("the database " + what) : InvalidInput(source, what);
  }

  void checkSearchable(const SearchOptions& options) const {
    if (live) live->refreshUnlessBusy();  // a search never waits for this process's writer
    if ((whole() ? whole()->index().size() : shards->size()) == 0) throw problem("holds no image yet");
    if (options.top == 0) throw InvalidInput("SearchOptions::top must be at least 1");
    checkScoringOptions(*options.scoring);
    if (options.scoring->similarity == Scoring::Hamming && !storesKeypoints())
      throw problem(std::string("stores no keypoints") + (shardCount() > 1 ? " (in every shard)" : "") +
                    ", so it cannot score by Hamming embedding; index the images again with their keypoints (bovw "
                    "index --keypoints, DatabaseOptions::store_keypoints)");
    // A sharded database's shards are checked as they score, each naming its file.
    if (options.scoring->weak_geometry && whole() && whole()->storesKeypoints() && !whole()->storesScaleAndAngle())
      throw problem("keeps its keypoints without scale and angle (written before database format version 5), so it "
                    "cannot score by weak geometric consistency (+wgc); index the images again (bovw index "
                    "--keypoints)");
    if (options.expand > 0 && options.verify == 0)
      throw InvalidInput("SearchOptions::expand needs verify > 0: a query is expanded with its verified results only");
    if (options.expand > 0 && ranks().size() > 1)
      throw problem("is spread over " + std::to_string(ranks().size()) +
                    " ranks: a query cannot be expanded there, as its verified results' keypoints lie on other "
                    "ranks (search it in one process, or without SearchOptions::expand)");
    if (options.verify > 0 && !storesKeypoints())
      throw problem(std::string("stores no keypoints") + (shardCount() > 1 ? " (in every shard)" : "") +
                    ", so results cannot be verified; index the images again with their keypoints (bovw index "
                    "--keypoints, DatabaseOptions::store_keypoints)");
  }
  std::size_t shardCount() const { return shards ? shards->shardCount() : 1; }

  // The answer to one query (collective over ranks: rank 0's histogram and words are the query's, and
  // only rank 0's answer is filled). `is_query` tells the query itself among the results; `expanded`,
  // when given, is set to the number of verified results that expanded the query.
  std::vector<SearchHit> answer(HistogramRef histogram, const ImageWords& words, const SearchOptions& options,
                                const std::function<bool(const std::string&)>& is_query, VerificationReport* report,
                                std::size_t* expanded = nullptr) const {
    std::vector<SearchHit> hits = rankAndVerify(histogram, words, words, options, is_query, report);
    if (expanded) *expanded = 0;
    if (options.expand > 0) {
      // Over one process only (checkSearchable): every shard is this process's, and so is every
      // verified result's keypoints.
      std::vector<VerifiedView> views;
      for (const SearchHit& hit : hits) {
        if (views.size() == options.expand || !hit.verified) break;  // verified results come first
        if (is_query(hit.name)) continue;  // the query's own image, indexed too: its features again
        if (std::optional<ImageWords> stored = storedFeatures(hit)) views.push_back({std::move(*stored), *hit.homography});
      }
      if (!views.empty()) {
        const ImageWords query = expandQuery(words, views);
        const QueryHistogram counts = histogramOf(query, reference().vocabulary().size(), "the expanded query");
        VerificationReport again;
        hits = rankAndVerify(counts, query, words, options, is_query, report ? &again : nullptr);
        if (report) {
          again.milliseconds += report->milliseconds;
          *report = again;
        }
        if (expanded) *expanded = views.size();
      }
    }
    if (hits.size() > options.top) hits.resize(options.top);
    return hits;
  }

  // The database ranked for `histogram` (or `ranked_words`, for Hamming embedding), the query itself
  // left out, the shortlist verified against `query`'s words; every result ranked, not only the top.
  std::vector<SearchHit> rankAndVerify(HistogramRef histogram, const ImageWords& ranked_words, const ImageWords& query,
                                       const SearchOptions& options,
                                       const std::function<bool(const std::string&)>& is_query,
                                       VerificationReport* report) const {
    // One more result when the query itself is to be left out of them.
    const std::size_t ranked = std::max(options.top, options.verify) + (options.exclude_query ? 1 : 0);
    VerificationOptions verification = options.verification;
    verification.shortlist = options.verify;
    std::vector<SearchHit> hits;
    auto leaveOutQuery = [&](auto& ranking) {
      if (!options.exclude_query) return;
      ranking.erase(std::remove_if(ranking.begin(), ranking.end(), [&](const auto& r) { return is_query(r.name); }),
                    ranking.end());
      if (ranking.size() == ranked) ranking.pop_back();
    };
    if (const ImageDatabase* database = whole()) {
      std::vector<SearchResult> ranking = options.scoring->similarity == Scoring::Hamming
                                              ? database->query(ranked_words, ranked, *options.scoring)
                                              : database->index().query(histogram, ranked, *options.scoring);
      leaveOutQuery(ranking);
      if (options.verify > 0) {
        for (const VerifiedResult& r : database->verify(query, ranking, verification, report)) hits.push_back(hitOf(0, r));
      } else {
        for (const SearchResult& r : ranking) hits.push_back(hitOf(0, r));
      }
    } else {
      std::vector<ShardedResult> ranking = options.scoring->similarity == Scoring::Hamming
                                               ? shards->query(ranked_words, ranked, *options.scoring)
                                               : shards->query(histogram, ranked, *options.scoring);
      if (root()) leaveOutQuery(ranking);  // the others' lists are empty: rank 0's is the one verified
      if (options.verify > 0) {
        for (const ShardedVerifiedResult& r : shards->verify(query, ranking, verification, report))
          hits.push_back(hitOf(r.shard, r.result));
      } else {
        for (const ShardedResult& r : ranking) hits.push_back(hitOf(r.shard, SearchResult{r.id, r.name, r.score}));
      }
    }
    return hits;
  }

  // The stored keypoints of a result, from this process's database or shard; nullopt if it is gone
  // (a live database changed by another process since the ranking).
  std::optional<ImageWords> storedFeatures(const SearchHit& hit) const {
    if (const ImageDatabase* database = whole()) return database->keypoints(hit.id);
    for (std::size_t i = 0; i < shards->localShardCount(); ++i)
      if (shards->localIndex(i) == hit.shard) return shards->localShard(i).keypoints(hit.id);
    return std::nullopt;
  }

  std::vector<QueryResults> searchPaths(const std::vector<std::string>& paths, const SearchOptions& given,
                                        std::vector<ImageFailure>* failures, bool strict) const {
    const SearchOptions options = resolved(given, true);
    ImageHistograms queries;
    // The checks fail on every rank alike; rank 0 reads the queries: one agreement for both, so that
    // every rank ends with the same error.
    everyRankOrNone(ranks(), [&] {
      checkSearchable(options);
      if (root()) queries = histograms(paths, needsWords(options), strict);
    });
    if (failures) *failures = queries.failures;
    const auto count = static_cast<std::size_t>(sumOverRanks(ranks(), static_cast<std::int64_t>(queries.names.size())));
    const QueryHistogram none;
    const ImageWords no_words;
    std::vector<QueryResults> results;
    for (std::size_t q = 0; q < count; ++q) {
      const bool mine = root();
      QueryResults result{mine ? queries.names[q] : std::string(), mine ? queries.descriptor_counts[q] : 0, {},
                          std::nullopt, 0};
      VerificationReport report;
      result.hits = answer(mine ? HistogramRef(queries.histograms.row(static_cast<Eigen::Index>(q))) : HistogramRef(none),
                           mine && needsWords(options) ? queries.words[q] : no_words, options,
                           [&](const std::string& name) { return sameFile(name, result.query); }, &report,
                           &result.expanded);
      if (options.verify > 0) result.verification = report;
      if (mine) results.push_back(std::move(result));
    }
    return results;
  }
};

ImageSearch::ImageSearch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ImageSearch::~ImageSearch() = default;
ImageSearch::ImageSearch(ImageSearch&&) noexcept = default;
ImageSearch& ImageSearch::operator=(ImageSearch&&) noexcept = default;

ImageSearch ImageSearch::create(Vocabulary vocabulary, FeatureSpec features, DatabaseOptions database,
                                ImageSearchOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->single.emplace(std::move(vocabulary), std::move(features), database);
  impl->placeSignatures();
  return ImageSearch(std::move(impl));
}

ImageSearch ImageSearch::open(const std::string& path, ImageSearchOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->source = path;
  if (LiveDatabase::holdsLiveDatabase(path)) impl->live.emplace(LiveDatabase::open(path, impl->options.live_lists));
  else if (looksLikeShardManifest(path)) impl->shards.emplace(DistributedShards::load(singleProcess(), path));
  else impl->single.emplace(ImageDatabase::load(path));
  impl->placeSignatures();
  return ImageSearch(std::move(impl));
}

ImageSearch ImageSearch::createLive(const std::string& path, Vocabulary vocabulary, FeatureSpec features,
                                    DatabaseOptions database, ImageSearchOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->source = path;
  impl->live.emplace(LiveDatabase::create(path, std::move(vocabulary), std::move(features), database));
  impl->placeSignatures();
  return ImageSearch(std::move(impl));
}

ImageSearch ImageSearch::open(Communicator& ranks, const std::string& path, ImageSearchOptions options) {
  if (LiveDatabase::holdsLiveDatabase(path)) {
    if (ranks.size() > 1)
      throw InvalidInput(path, "is a live database: one process searches it (bovw search), not the ranks of a job");
    return open(path, std::move(options));
  }
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->source = path;
  impl->shards.emplace(DistributedShards::load(ranks, path));
  return ImageSearch(std::move(impl));
}

const Vocabulary& ImageSearch::vocabulary() const { return impl_->vocabulary(); }
const FeatureSpec& ImageSearch::features() const { return impl_->featureSpec(); }
std::size_t ImageSearch::size() const {
  if (impl_->live) return impl_->live->size();  // the store's count: every process's writes
  return impl_->whole() ? impl_->whole()->index().size() : impl_->shards->size();
}
std::size_t ImageSearch::shardCount() const { return impl_->shardCount(); }
bool ImageSearch::storesKeypoints() const { return impl_->storesKeypoints(); }
ScoringOptions ImageSearch::defaultScoring() const { return impl_->defaultScoring(); }

ImageDatabase::SignatureScan ImageSearch::signatureScan() const {
  const ImageDatabase* database = impl_->whole();
  ImageDatabase::SignatureScan scan = database ? database->signatureScan() : ImageDatabase::SignatureScan{};
  if (scan.dropped_because.empty()) scan.dropped_because = impl_->signatures_not_placed;
  return scan;
}

bool ImageSearch::isLive() const { return impl_->live.has_value(); }
const LiveDatabase* ImageSearch::liveDatabase() const { return impl_->live ? &*impl_->live : nullptr; }

bool ImageSearch::contains(const std::string& name) const {
  if (impl_->live) return impl_->live->holds(name);
  if (const ImageDatabase* database = impl_->whole()) return database->index().find(name).has_value();
  for (std::size_t i = 0; i < impl_->shards->localShardCount(); ++i)
    if (impl_->shards->localShard(i).index().find(name)) return true;
  return false;
}

std::vector<IndexedImage> ImageSearch::images() const {
  std::vector<IndexedImage> images;
  auto list = [&](const ImageDatabase& database, std::size_t shard) {
    const InvertedIndex& index = database.index();
    for (ImageId id : index.ids()) images.push_back({index.name(id), shard, id});
  };
  if (impl_->live) {  // from the store: every process's writes, and no index read
    for (auto& [id, name] : impl_->live->names()) images.push_back({std::move(name), 0, id});
    return images;
  }
  if (const ImageDatabase* database = impl_->whole()) list(*database, 0);
  else
    for (std::size_t i = 0; i < impl_->shards->localShardCount(); ++i)
      list(impl_->shards->localShard(i), impl_->shards->localIndex(i));
  return images;
}

ImageHistograms ImageSearch::histograms(const std::vector<std::string>& image_paths, bool keep_words) const {
  return impl_->histograms(image_paths, keep_words, false);
}

std::vector<ImageFailure> ImageSearch::add(const std::vector<std::string>& image_paths) {
  impl_->checkChangeable();
  const bool keypoints = impl_->storesKeypoints();
  ImageHistograms images = impl_->histograms(image_paths, keypoints, false);
  // Names already indexed are skipped like unreadable images; the rest go in as one write.
  std::vector<NamedImageWords> batch;
  for (std::size_t i = 0; i < images.names.size(); ++i) {
    if (contains(images.names[i])) {
      const std::string problem = "'" + images.names[i] + "': an image of this name is already indexed";
      if (impl_->options.pipeline.strict) throw InvalidInput(problem);
      images.failures.push_back({images.names[i], problem});
      continue;
    }
    NamedImageWords image{images.names[i], keypoints ? std::move(images.words[i]) : ImageWords()};
    if (!keypoints) {
      const auto row = images.histograms.row(static_cast<Eigen::Index>(i));
      for (Eigen::Index w = 0; w < row.size(); ++w) image.words.words.insert(image.words.words.end(), row[w], static_cast<std::int32_t>(w));
    }
    batch.push_back(std::move(image));
  }
  impl_->add(batch);
  return images.failures;
}

ImageId ImageSearch::add(const std::string& name, const cv::Mat& image) {
  impl_->checkChangeable();
  return impl_->add({{name, impl_->wordsOf(image)}}).front();
}

ImageId ImageSearch::add(const std::string& name, const ImageWords& words) { return impl_->add({{name, words}}).front(); }

ImageId ImageSearch::put(const std::string& name, const ImageWords& words) {
  return impl_->add({{name, words}}, true).front();
}

std::vector<ImageId> ImageSearch::put(const std::vector<NamedImageWords>& images) {
  if (images.empty()) return {};
  return impl_->add(images, true);
}

ImageWords ImageSearch::words(const cv::Mat& image) const { return impl_->wordsOf(image); }

std::vector<ImageWords> ImageSearch::words(const std::vector<cv::Mat>& images) const {
  if (images.empty()) return {};
  return impl_->wordsOf(images);
}

bool ImageSearch::extractsInDeviceBatches() const {
  return impl_->root() && detail::deviceFeaturesOf(impl_->features()) != nullptr;
}

void ImageSearch::remove(const std::string& name) { remove(std::vector<std::string>{name}); }

void ImageSearch::remove(const std::vector<std::string>& names) {
  impl_->checkChangeable();
  if (impl_->live) return impl_->live->remove(names);
  for (const std::string& name : names)
    if (!impl_->single->index().find(name)) throw impl_->problem("holds no image named '" + name + "'");
  for (const std::string& name : names) impl_->single->remove(name);
}

void ImageSearch::save(const std::string& path) const {
  if (!impl_->whole()) throw impl_->problem("is sharded: its shards are written by bovw index --shards, not here");
  impl_->whole()->save(path);
}

std::vector<SearchHit> ImageSearch::search(const std::string& image_path, const SearchOptions& options) const {
  std::vector<QueryResults> results = impl_->searchPaths({image_path}, options, nullptr, true);
  return results.empty() ? std::vector<SearchHit>() : std::move(results.front().hits);
}

std::vector<SearchHit> ImageSearch::search(const cv::Mat& image, const SearchOptions& options) const {
  return search(impl_->root() ? impl_->wordsOf(image) : ImageWords(), options, "");
}

std::vector<SearchHit> ImageSearch::search(const ImageWords& words, const SearchOptions& given,
                                           const std::string& name) const {
  const SearchOptions options = impl_->resolved(given, true);
  QueryHistogram histogram;
  everyRankOrNone(impl_->ranks(), [&] {
    impl_->checkSearchable(options);
    if (!given.scoring && options.scoring->similarity == Scoring::Hamming && impl_->root() &&
        words.signatures.size() != words.words.size())
      throw InvalidInput("the query's words have no signatures, which the default scoring of a database with "
                         "keypoints (Hamming embedding) needs: give them (wordSignature), or rank by words alone "
                         "(SearchOptions::scoring = intersection)");
    if (impl_->root()) histogram = histogramOf(words, impl_->reference().vocabulary().size(), "the query");
  });
  return impl_->answer(histogram, words, options, [&](const std::string& indexed) { return indexed == name; },
                       nullptr);
}

std::vector<SearchHit> ImageSearch::search(HistogramRef histogram, const SearchOptions& given,
                                           const std::string& name) const {
  const SearchOptions options = impl_->resolved(given, false);
  everyRankOrNone(impl_->ranks(), [&] {
    impl_->checkSearchable(options);
    if (options.verify > 0)
      throw InvalidInput("a query given as a histogram has no keypoints, so its results cannot be verified "
                         "(SearchOptions::verify must be 0)");
    if (options.scoring->similarity == Scoring::Hamming)
      throw InvalidInput("a query given as a histogram has no signatures, so it cannot be scored by Hamming "
                         "embedding (give its words, or another SearchOptions::scoring)");
    if (!impl_->root()) return;  // rank 0's query is the one answered
    const int words = impl_->reference().vocabulary().size();
    if (histogram.size() != words)
      throw InvalidInput("the query's histogram has " + std::to_string(histogram.size()) + " bins for a vocabulary of " +
                         std::to_string(words) + " words");
  });
  return impl_->answer(histogram, ImageWords(), options, [&](const std::string& indexed) { return indexed == name; },
                       nullptr);
}

void ImageSearch::prepare() const {
  if (!impl_->root() || (!impl_->whole() && impl_->shards->localShardCount() == 0)) return;
  const std::lock_guard<std::mutex> turn(impl_->device_use);
  impl_->features();
  impl_->device();
}

std::vector<QueryResults> ImageSearch::search(const std::vector<std::string>& image_paths,
                                              const SearchOptions& options,
                                              std::vector<ImageFailure>* failures) const {
  return impl_->searchPaths(image_paths, options, failures, false);
}

}  // namespace bovw
