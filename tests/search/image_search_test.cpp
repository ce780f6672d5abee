// bovw::ImageSearch against independent references: the same images through the layers underneath
// (histogramImages, ImageDatabase's index query and verify) for every entry point; a database built
// afresh from the final set of images after adds and removes; the unsharded answer for a manifest.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_search.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/sharded_database.hpp>

#include "support/retrieval_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace bovw {
namespace {

using test::imageSet;

// A vocabulary of 40 words from the good images' descriptors, made once.
const Vocabulary& vocabulary() {
  static const Vocabulary words = [] {
    const auto extractor = makeFeatureExtractor(FeatureSpec::parse("surf"));
    KMeansOptions options;
    options.words = 40;
    options.seed = 7;
    options.descriptor_type = extractor->descriptorType();
    return trainVocabulary(sampleDescriptors(imageSet().good(), *extractor, 20000, 3).descriptors, options);
  }();
  return words;
}

DatabaseOptions withKeypoints() {
  DatabaseOptions options;
  options.store_keypoints = true;
  return options;
}

// The reference: the same images indexed and queried through the layers under ImageSearch.
struct Reference {
  ImageDatabase database{vocabulary(), FeatureSpec::parse("surf"), withKeypoints()};
  std::unique_ptr<Histogrammer> histogrammer = makeHistogrammer();

  explicit Reference(const std::vector<std::string>& images) {
    PipelineOptions keep;
    keep.keep_words = true;
    const ImageHistograms h = histogramImages(images, *database.makeExtractor(), vocabulary(), *histogrammer, keep);
    for (std::size_t i = 0; i < h.names.size(); ++i) database.add(h.names[i], h.words[i]);
  }

  std::vector<VerifiedResult> search(const std::string& query, std::size_t top, std::size_t verify,
                                     const ScoringOptions& scoring) const {
    PipelineOptions keep;
    keep.keep_words = true;
    const ImageHistograms q = histogramImages({query}, *database.makeExtractor(), vocabulary(), *histogrammer, keep);
    const auto ranking = database.query(q.words[0], std::max(top, verify), scoring);
    std::vector<VerifiedResult> results;
    if (verify > 0) {
      VerificationOptions options;
      options.shortlist = verify;
      results = database.verify(q.words[0], ranking, options);
    } else {
      for (const SearchResult& r : ranking) results.push_back({r.id, r.name, r.score, r.score, -1, false, std::nullopt});
    }
    if (results.size() > top) results.resize(top);
    return results;
  }
};

void expectSame(const std::vector<SearchHit>& hits, const std::vector<VerifiedResult>& expected) {
  ASSERT_EQ(hits.size(), expected.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    SCOPED_TRACE("result " + std::to_string(i));
    EXPECT_EQ(hits[i].name, expected[i].name);
    EXPECT_EQ(hits[i].id, expected[i].id);
    EXPECT_NEAR(hits[i].score, expected[i].score, 1e-9);
    EXPECT_NEAR(hits[i].bow_score, expected[i].bow_score, 1e-9);
    EXPECT_EQ(hits[i].inliers, expected[i].inliers);
    EXPECT_EQ(hits[i].verified, expected[i].verified);
    EXPECT_EQ(hits[i].homography.has_value(), hits[i].verified);
  }
}

// Two answers to one query from databases of the same images (sharded and whole): the same ranking.
void expectSameRanking(const std::vector<SearchHit>& a, const std::vector<SearchHit>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_NEAR(a[i].score, b[i].score, 1e-9);
    EXPECT_EQ(a[i].inliers, b[i].inliers);
  }
}

ImageSearch indexed(const std::vector<std::string>& images) {
  ImageSearch search = ImageSearch::create(vocabulary(), FeatureSpec::parse("surf"), withKeypoints());
  EXPECT_TRUE(search.add(images).empty());
  return search;
}

TEST(ImageSearch, AnswersAsTheLayersUnderneath) {
  const auto& set = imageSet();
  const Reference reference(set.good());
  const ImageSearch search = indexed(set.good());
  EXPECT_EQ(search.size(), set.good().size());
  // A database with keypoints ranks by Hamming embedding unless told otherwise.
  const ScoringOptions hamming{Scoring::Hamming, TermWeighting::Log, 1.0, 20};
  EXPECT_EQ(search.defaultScoring(), hamming);
  for (const std::string& query : {set.box, set.graf_crop}) {
    for (std::size_t verify : {std::size_t{0}, std::size_t{4}}) {
      for (const std::optional<ScoringOptions>& scoring :
           {std::optional<ScoringOptions>(), std::optional<ScoringOptions>(ScoringOptions{Scoring::Intersection})}) {
        SCOPED_TRACE(query + " verify " + std::to_string(verify) + (scoring ? " intersection" : " default"));
        SearchOptions options;
        options.top = 3;
        options.verify = verify;
        options.scoring = scoring;
        expectSame(search.search(query, options), reference.search(query, 3, verify, scoring.value_or(hamming)));
      }
    }
  }
  // The box's views verify against the box: a real geometric match, not a count.
  SearchOptions verified;
  verified.verify = 5;
  const auto hits = search.search(set.box_rotated, verified);
  ASSERT_GE(hits.size(), 2u);
  EXPECT_TRUE(hits[0].verified);
  EXPECT_GE(hits[0].inliers, 12);
}

TEST(ImageSearch, EveryEntryPointGivesTheSameAnswer) {
  const auto& set = imageSet();
  const ImageSearch search = indexed(set.good());
  SearchOptions options;
  options.top = 4;
  options.verify = 4;
  const std::vector<SearchHit> by_path = search.search(set.box_bright, options);
  // A decoded image (loadImage decodes as the pipeline does) and a batch of paths.
  const std::vector<SearchHit> by_image = search.search(loadImage(set.box_bright), options);
  std::vector<ImageFailure> failures;
  const std::vector<QueryResults> batch = search.search({set.missing, set.box_bright}, options, &failures);
  ASSERT_EQ(batch.size(), 1u);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].path, set.missing);
  EXPECT_EQ(batch[0].query, set.box_bright);
  ASSERT_TRUE(batch[0].verification.has_value());
  EXPECT_EQ(batch[0].verification->checked, 4u);
  for (const auto* other : {&by_image, &batch[0].hits}) {
    ASSERT_EQ(other->size(), by_path.size());
    for (std::size_t i = 0; i < by_path.size(); ++i) {
      EXPECT_EQ((*other)[i].name, by_path[i].name);
      EXPECT_NEAR((*other)[i].score, by_path[i].score, 1e-9);
      EXPECT_EQ((*other)[i].inliers, by_path[i].inliers);
    }
  }
}

TEST(ImageSearch, ExcludeQueryLeavesOutTheQueryFileOnly) {
  const auto& set = imageSet();
  const ImageSearch search = indexed(set.good());
  SearchOptions options;
  options.top = 3;
  const auto plain = search.search(set.texture, options);
  ASSERT_EQ(plain.front().name, set.texture);
  options.exclude_query = true;
  // Another path to the same file is the query too.
  const std::string other_path = (std::filesystem::path(set.texture).parent_path() / "." /
                                  std::filesystem::path(set.texture).filename()).string();
  const auto excluded = search.search(other_path, options);
  ASSERT_EQ(excluded.size(), 3u);
  SearchOptions four;
  four.top = 4;
  const auto with_query = search.search(set.texture, four);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(excluded[i].name, with_query.at(i + 1).name);
    EXPECT_NE(excluded[i].name, set.texture);
  }
}

// After adds and removes, every score is the one of a database indexed afresh from the final set.
// Each good image's top 10, the top 4 verified, from two databases of the same images: the same.
void expectSameVerifiedSearches(const ImageSearch& a, const ImageSearch& b) {
  SearchOptions options;
  options.top = 10;
  options.verify = 4;
  for (const std::string& query : imageSet().good()) {
    SCOPED_TRACE(query);
    expectSameRanking(a.search(query, options), b.search(query, options));
  }
}

TEST(ImageSearch, AddsAndRemovesRankAsAFreshIndex) {
  const auto& set = imageSet();
  ImageSearch changed = indexed({set.box, set.graf_crop, set.texture});
  EXPECT_TRUE(changed.add({set.box_rotated, set.box_bright}).empty());
  changed.remove(set.graf_crop);
  changed.add(set.graf_crop + "#again", loadImage(set.graf_crop));  // a decoded image under a name of its own
  changed.remove(set.box);
  const ImageSearch fresh = indexed({set.texture, set.box_rotated, set.box_bright});
  ImageSearch fresh_with_graf = indexed({set.texture, set.box_rotated, set.box_bright});
  fresh_with_graf.add(set.graf_crop + "#again", loadImage(set.graf_crop));
  SearchOptions options;
  options.top = 10;
  for (const std::string& query : set.good()) {
    const auto a = changed.search(query, options);
    const auto b = fresh_with_graf.search(query, options);
    ASSERT_EQ(a.size(), b.size()) << query;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name) << query;
      EXPECT_NEAR(a[i].score, b[i].score, 1e-9) << query;
    }
  }
  EXPECT_EQ(changed.size(), 4u);
  EXPECT_EQ(fresh.size(), 3u);
}

// put() of several images on a live database: one write, all or none, each name replaced as one put
// of it would replace it; the result ranks as a database indexed afresh from the final images.
TEST(ImageSearch, PutsOfSeveralImagesRankAsAFreshIndexAndAreAllOrNone) {
  const auto& set = imageSet();
  test::TempDir dir;
  ImageSearch live = ImageSearch::createLive(dir.file("live"), vocabulary(), FeatureSpec::parse("surf"), withKeypoints());
  EXPECT_TRUE(live.add({set.box, set.graf_crop}).empty());
  const auto words = [&](const std::string& path) { return live.words(loadImage(path)); };
  // A name twice: refused, nothing written.
  EXPECT_THROW(live.put({{"twice", words(set.texture)}, {"twice", words(set.box_rotated)}}), InvalidInput);
  EXPECT_EQ(live.size(), 2u);
  EXPECT_FALSE(live.contains("twice"));
  // One image replaced (box now holds box_bright's features), two new ones.
  const std::vector<ImageId> ids =
      live.put({{set.box, words(set.box_bright)}, {"texture", words(set.texture)}, {"rotated", words(set.box_rotated)}});
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_TRUE(live.put({}).empty());
  ImageSearch fresh = ImageSearch::create(vocabulary(), FeatureSpec::parse("surf"), withKeypoints());
  EXPECT_TRUE(fresh.add({set.graf_crop}).empty());
  fresh.add(set.box, loadImage(set.box_bright));
  fresh.add("texture", loadImage(set.texture));
  fresh.add("rotated", loadImage(set.box_rotated));
  EXPECT_EQ(live.size(), 4u);
  expectSameVerifiedSearches(live, fresh);
}

TEST(ImageSearch, ShardsAnswerAsOneDatabase) {
  const auto& set = imageSet();
  test::TempDir dir;
  const std::vector<std::string> images = set.good();
  // Two shards written with the layers underneath, and their manifest.
  std::vector<std::string> shard_files;
  for (int s = 0; s < 2; ++s) {
    const std::vector<std::string> part(images.begin() + (s == 0 ? 0 : 3), s == 0 ? images.begin() + 3 : images.end());
    const ImageSearch shard = indexed(part);
    shard_files.push_back("part-" + std::to_string(s) + ".bovwdb");
    shard.save(dir.file(shard_files.back()));
  }
  const ShardManifest manifest = ShardedDatabase::manifestFor(ImageDatabase::load(dir.file(shard_files[0])), shard_files);
  {
    std::ofstream out(dir.file("all.bovwshards"));
    manifest.write(out);
  }
  const ImageSearch sharded = ImageSearch::open(dir.file("all.bovwshards"));
  const ImageSearch whole = indexed(images);
  EXPECT_EQ(sharded.shardCount(), 2u);
  EXPECT_EQ(sharded.size(), images.size());
  SearchOptions options;
  options.top = 5;
  options.verify = 5;
  for (const std::string& query : {set.box_rotated, set.graf_crop}) {
    expectSameRanking(sharded.search(query, options), whole.search(query, options));
  }
  EXPECT_THROW(ImageSearch::open(dir.file("all.bovwshards")).remove(set.box), InvalidInput);
}

// A verified hit carries the homography that maps the query onto it: the box's rotated view was made
// by a known rotation and scale (retrieval_test_support.hpp's rotated()), which it must match.
TEST(ImageSearch, VerifiedHitsCarryTheHomographyOfTheQueryOntoThem) {
  const auto& set = imageSet();
  const ImageSearch search = indexed(set.good());
  SearchOptions options;
  options.top = 5;
  options.verify = 5;
  const std::vector<SearchHit> hits = search.search(set.box, options);
  const auto rotated = std::find_if(hits.begin(), hits.end(), [&](const SearchHit& h) { return h.name == set.box_rotated; });
  ASSERT_NE(rotated, hits.end());
  ASSERT_TRUE(rotated->verified);
  ASSERT_TRUE(rotated->homography.has_value());
  const cv::Mat box = loadImage(set.box);
  const cv::Mat made = cv::getRotationMatrix2D(cv::Point2f(box.cols / 2.0f, box.rows / 2.0f), 20, 0.9);
  // Points across the box image land where the rotation puts them, within a few pixels.
  for (const cv::Point2d p : {cv::Point2d(box.cols * 0.3, box.rows * 0.3), cv::Point2d(box.cols * 0.7, box.rows * 0.4),
                              cv::Point2d(box.cols * 0.5, box.rows * 0.7)}) {
    const cv::Vec3d mapped = *rotated->homography * cv::Vec3d(p.x, p.y, 1.0);
    const cv::Point2d expected(made.at<double>(0, 0) * p.x + made.at<double>(0, 1) * p.y + made.at<double>(0, 2),
                               made.at<double>(1, 0) * p.x + made.at<double>(1, 1) * p.y + made.at<double>(1, 2));
    EXPECT_LT(cv::norm(cv::Point2d(mapped[0] / mapped[2], mapped[1] / mapped[2]) - expected), 4.0) << p;
  }
  for (const SearchHit& hit : hits) EXPECT_EQ(hit.homography.has_value(), hit.verified) << hit.name;
}

// A live database opened to write (PostingMemory::Deferred, as bovw add opens it): its adds skip the
// names it holds, size, contains and images answer from its store, and a search then reads the index
// after all and ranks as a database indexed afresh from the same images.
TEST(ImageSearch, ALiveDatabaseOpenedToWriteAddsWithoutItsIndexAndSearchesAfterAll) {
  const auto& set = imageSet();
  test::TempDir dir;
  {
    ImageSearch live = ImageSearch::createLive(dir.file("live"), vocabulary(), FeatureSpec::parse("surf"), withKeypoints());
    EXPECT_TRUE(live.add({set.box, set.graf_crop}).empty());
  }
  ImageSearchOptions writing;
  writing.live_lists = PostingMemory::Deferred;
  ImageSearch live = ImageSearch::open(dir.file("live"), writing);
  const std::vector<ImageFailure> failures = live.add({set.box_rotated, set.box, set.texture});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].path, set.box);
  EXPECT_NE(failures[0].message.find("already indexed"), std::string::npos) << failures[0].message;
  EXPECT_EQ(live.size(), 4u);
  EXPECT_TRUE(live.contains(set.box_rotated));
  EXPECT_FALSE(live.contains(set.box_bright));
  std::vector<std::string> names;
  for (const IndexedImage& image : live.images()) names.push_back(image.name);
  EXPECT_EQ(names, (std::vector<std::string>{set.box, set.graf_crop, set.box_rotated, set.texture}));
  ImageSearch fresh = ImageSearch::create(vocabulary(), FeatureSpec::parse("surf"), withKeypoints());
  EXPECT_TRUE(fresh.add({set.box, set.graf_crop, set.box_rotated, set.texture}).empty());
  expectSameVerifiedSearches(live, fresh);
}

TEST(ImageSearch, ListsItsImagesAndAnswersHistograms) {
  const auto& set = imageSet();
  const ImageSearch search = indexed(set.good());
  const std::vector<IndexedImage> images = search.images();
  ASSERT_EQ(images.size(), set.good().size());
  for (std::size_t i = 0; i < images.size(); ++i) {
    EXPECT_EQ(images[i].name, set.good()[i]);
    EXPECT_EQ(images[i].shard, 0u);
  }
  // A query's histogram (counted here from its words) ranks as the query itself.
  const ImageHistograms queries = search.histograms({set.box_bright, set.missing}, true);
  ASSERT_EQ(queries.names, std::vector<std::string>{set.box_bright});
  ASSERT_EQ(queries.failures.size(), 1u);
  Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> counted =
      Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>::Zero(vocabulary().size());
  for (const std::int32_t word : queries.words[0].words) ++counted[word];
  EXPECT_EQ(counted, queries.histograms.row(0));
  // A histogram has no features: unless told otherwise it ranks by intersection, as the path does
  // when told so.
  SearchOptions options;
  options.top = 5;
  const auto by_histogram = search.search(counted, options);
  options.scoring = ScoringOptions{Scoring::Intersection};
  const auto by_path = search.search(set.box_bright, options);
  options.scoring.reset();
  ASSERT_EQ(by_histogram.size(), by_path.size());
  for (std::size_t i = 0; i < by_path.size(); ++i) {
    EXPECT_EQ(by_histogram[i].name, by_path[i].name);
    EXPECT_NEAR(by_histogram[i].score, by_path[i].score, 1e-12);
  }
  options.verify = 2;  // a histogram has no keypoints to verify with
  EXPECT_THROW(search.search(counted, options), InvalidInput);
  options.verify = 0;
  EXPECT_THROW(search.search(Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>::Zero(7), options), InvalidInput);
}

std::vector<unsigned char> bytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// indexImages (bovw index) in one process: the database that create, add and save make, byte for
// byte; with shards, a manifest that answers as that database; the unreadable images reported.
TEST(IndexImages, WritesTheDatabaseThatAddingMakes) {
  const auto& set = imageSet();
  test::TempDir dir;
  IndexOptions index;
  index.database = withKeypoints();
  std::vector<std::string> skipped;
  index.skipped = [&](const ImageFailure& f) { skipped.push_back(f.path); };
  const IndexSummary summary =
      indexImages(singleProcess(), set.mixed(), vocabulary(), FeatureSpec::parse("surf"), dir.file("job.bovwdb"), index);
  EXPECT_EQ(summary.images, 5);
  EXPECT_EQ(summary.failed, 3);
  EXPECT_EQ(skipped, (std::vector<std::string>{set.truncated, set.text_as_png, set.missing}));
  ImageSearch added = ImageSearch::create(vocabulary(), FeatureSpec::parse("surf"), withKeypoints());
  EXPECT_EQ(added.add(set.mixed()).size(), 3u);
  added.save(dir.file("added.bovwdb"));
  EXPECT_EQ(bytesOf(dir.file("job.bovwdb")), bytesOf(dir.file("added.bovwdb")));
  EXPECT_EQ(static_cast<std::uint64_t>(summary.postings),
            ImageDatabase::load(dir.file("added.bovwdb")).index().postingCount());

  index.shards = 3;
  indexImages(singleProcess(), set.mixed(), vocabulary(), FeatureSpec::parse("surf"), dir.file("job.bovwshards"), index);
  const ImageSearch sharded = ImageSearch::open(dir.file("job.bovwshards"));
  EXPECT_EQ(sharded.shardCount(), 3u);
  EXPECT_EQ(sharded.size(), 5u);
  SearchOptions options;
  options.top = 5;
  options.verify = 5;
  for (const std::string& query : {set.box_rotated, set.graf_crop}) {
    expectSameRanking(sharded.search(query, options), added.search(query, options));
  }
}

TEST(IndexImages, RefusesBeforeWritingAnything) {
  const auto& set = imageSet();
  test::TempDir dir;
  const FeatureSpec surf = FeatureSpec::parse("surf");
  EXPECT_THROW(indexImages(singleProcess(), {}, vocabulary(), surf, dir.file("a.bovwdb")), InvalidInput);
  EXPECT_THROW(indexImages(singleProcess(), {set.missing, set.text_as_png}, vocabulary(), surf, dir.file("a.bovwdb")),
               InvalidInput);
  IndexOptions sharded;
  sharded.shards = 2;  // a manifest's name must end in .bovwshards
  EXPECT_THROW(indexImages(singleProcess(), set.good(), vocabulary(), surf, dir.file("a.bovwdb"), sharded), InvalidInput);
  EXPECT_THROW(indexFolder(singleProcess(), dir.path(), vocabulary(), surf, dir.file("a.bovwdb")), InvalidInput);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// The words of several images at once against each image through the layers underneath: its
// features alone (the CPU's SURF), each descriptor's nearest word by the golden OpenMP path, and its
// signature; a featureless image and odd sizes among them. With SURF and the histograms on an OpenCL
// device (PoCL in CI) the images go through one device batch.
void expectBatchWordsAsEachImageAlone(const ImageSearchOptions& options) {
  const ImageSearch database = ImageSearch::create(vocabulary(), FeatureSpec::parse("surf"), {}, options);
  EXPECT_EQ(database.extractsInDeviceBatches(), options.extractor.surf_backend == SurfBackend::OpenCL);
  std::vector<cv::Mat> images;
  for (const std::string& path : imageSet().good()) images.push_back(loadImage(path));
  images.push_back(cv::Mat(37, 53, CV_8U, cv::Scalar(128)));  // no features
  images.push_back(images[1](cv::Rect(3, 5, 201, 131)).clone());
  std::swap(images[0], images[4]);
  const auto extractor = makeFeatureExtractor(FeatureSpec::parse("surf"));
  HistogrammerConfig golden;
  golden.backend = Backend::OpenMP;
  const auto nearest = makeHistogrammer(golden);

  const std::vector<ImageWords> batch = database.words(images);
  ASSERT_EQ(batch.size(), images.size());
  for (std::size_t i = 0; i < images.size(); ++i) {
    SCOPED_TRACE("image " + std::to_string(i));
    const ImageFeatures alone = extractor->extractFeatures(images[i]);
    const ImageWords& got = batch[i];
    EXPECT_EQ(got.image_size, images[i].size());
    ASSERT_EQ(got.words.size(), static_cast<std::size_t>(alone.descriptors.rows));
    ASSERT_EQ(got.points.size(), got.words.size());
    ASSERT_EQ(got.signatures.size(), got.words.size());
    if (alone.descriptors.rows == 0) continue;
    const Descriptors descriptors = toDescriptors(alone.descriptors);
    const std::vector<std::int32_t> words = nearest->assign(descriptors, vocabulary());
    EXPECT_EQ(got.words, words);
    for (std::size_t k = 0; k < words.size(); ++k) {
      EXPECT_EQ(got.points[k], alone.keypoints[k].pt);
      EXPECT_EQ(got.sizes[k], alone.keypoints[k].size);
      EXPECT_EQ(got.angles[k], alone.keypoints[k].angle);
      EXPECT_EQ(got.signatures[k],
                wordSignature(descriptors.row(static_cast<Eigen::Index>(k)).data(), vocabulary(), words[k]));
    }
    const ImageWords single = database.words(images[i]);
    EXPECT_EQ(single.words, got.words);
    EXPECT_EQ(single.signatures, got.signatures);
  }
  EXPECT_TRUE(database.words(std::vector<cv::Mat>{}).empty());
}

TEST(ImageSearch, WordsOfManyImagesAtOnceAreEachImagesWords) {
  ImageSearchOptions cpu;
  cpu.histogrammer.backend = Backend::OpenMPTiled;
  cpu.extractor.surf_backend = SurfBackend::Builtin;
  expectBatchWordsAsEachImageAlone(cpu);
}

TEST(ImageSearch, WordsOfManyImagesAtOnceAreEachImagesWordsOnADevice) {
  BOVW_REQUIRE_OPENCL();
  ImageSearchOptions device;
  device.histogrammer.backend = Backend::OpenCL;
  device.extractor.surf_backend = SurfBackend::OpenCL;
  expectBatchWordsAsEachImageAlone(device);
}

TEST(ImageSearch, RefusesWhatItCannotDo) {
  const auto& set = imageSet();
  const ImageSearch empty = ImageSearch::create(vocabulary(), FeatureSpec::parse("surf"));
  EXPECT_THROW(empty.search(set.box), InvalidInput);
  ImageSearch no_keypoints = ImageSearch::create(vocabulary(), FeatureSpec::parse("surf"));
  EXPECT_TRUE(no_keypoints.add({set.box}).empty());
  SearchOptions verify;
  verify.verify = 5;
  EXPECT_THROW(no_keypoints.search(set.box, verify), InvalidInput);
  EXPECT_THROW(no_keypoints.search(set.missing), Error);  // one path: its failure is thrown, naming it
  try {
    no_keypoints.search(set.text_as_png);
    ADD_FAILURE() << "a text file was searched";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(set.text_as_png), std::string::npos) << e.what();
  }
  // The truncated PNG, the text file and the missing path; and the box, which is indexed already.
  const auto failures = no_keypoints.add(set.mixed());
  ASSERT_EQ(failures.size(), 4u);
  EXPECT_EQ(failures.back().path, set.box);
  EXPECT_NE(failures.back().message.find("already indexed"), std::string::npos) << failures.back().message;
  EXPECT_EQ(no_keypoints.size(), 5u);  // the five good images, the box once
}

}  // namespace
}  // namespace bovw
