// Query expansion from verified results (SearchOptions::expand, bovw/query_expansion.hpp) against
// references computed here with OpenCV: the features of a result inside the query's outline mapped
// by a homography (cv::perspectiveTransform of the corners, cv::pointPolygonTest), the expanded
// query's histogram and ranking from a database queried directly; a constructed collection where an
// image reachable only through a verified partner rises; no verified result = no expansion; the
// refusals (without verification, over the ranks of a job); and shards and a live database answering
// as one file.
#include "support/retrieval_test_support.hpp"
#include "support/thread_communicator.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_search.hpp>
#include <bovw/query_expansion.hpp>
#include <bovw/sharded_database.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <random>

namespace bovw::test {
namespace {

constexpr int kWords = 200;

// The query's outline in a view: its corners mapped by `h` (query -> view coordinates).
std::vector<cv::Point2f> mappedOutline(const cv::Matx33d& h, cv::Size query) {
  const std::vector<cv::Point2f> corners = {{0.0f, 0.0f},
                                            {static_cast<float>(query.width), 0.0f},
                                            {static_cast<float>(query.width), static_cast<float>(query.height)},
                                            {0.0f, static_cast<float>(query.height)}};
  std::vector<cv::Point2f> mapped;
  cv::perspectiveTransform(corners, mapped, cv::Mat(h));
  return mapped;
}

// Signed distance of `p` to the outline: positive inside.
double insideBy(const std::vector<cv::Point2f>& outline, cv::Point2f p) {
  return cv::pointPolygonTest(outline, p, true);
}

std::map<int, int> countWords(const std::vector<std::int32_t>& words) {
  std::map<int, int> counts;
  for (int w : words) ++counts[w];
  return counts;
}

// The reference expansion: the query's words and those of `view` inside the outline that `h` maps.
ImageWords referenceExpansion(const ImageWords& query, const ImageWords& view, const cv::Matx33d& h) {
  const std::vector<cv::Point2f> outline = mappedOutline(h, query.image_size);
  ImageWords expanded = query;
  for (std::size_t i = 0; i < view.points.size(); ++i) {
    if (insideBy(outline, view.points[i]) < 0) continue;
    expanded.points.push_back(view.points[i]);  // where, does not matter to the ranking
    expanded.words.push_back(view.words[i]);
    expanded.signatures.push_back(view.signatures[i]);
  }
  return expanded;
}

TEST(FeaturesInView, AreThoseInsideTheMappedOutlineMappedBack) {
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const cv::Size query(200 + static_cast<int>(rng() % 400), 200 + static_cast<int>(rng() % 400));
    const cv::Size view_size(900, 900);
    // A similarity about the view's centre, with a mild perspective: what verification accepts.
    const double angle = unit(rng) * 2 * M_PI, scale = 0.7 + 0.7 * unit(rng);
    const cv::Matx33d centre(1, 0, -query.width / 2.0, 0, 1, -query.height / 2.0, 0, 0, 1);
    const cv::Matx33d similarity(scale * std::cos(angle), -scale * std::sin(angle), 450 + 60 * (unit(rng) - 0.5),
                                 scale * std::sin(angle), scale * std::cos(angle), 450 + 60 * (unit(rng) - 0.5), 0, 0, 1);
    const cv::Matx33d tilt(1, 0, 0, 0, 1, 0, (unit(rng) - 0.5) * 4e-4, (unit(rng) - 0.5) * 4e-4, 1);
    const cv::Matx33d h = (trial % 2 ? -1.0 : 1.0) * (tilt * similarity * centre);  // either sign of scale
    const std::vector<cv::Point2f> outline = mappedOutline(h, query);
    VerifiedView view{{}, h};
    view.features.image_size = view_size;
    while (view.features.points.size() < 1000) {
      const cv::Point2f p(static_cast<float>(unit(rng) * view_size.width), static_cast<float>(unit(rng) * view_size.height));
      if (std::abs(insideBy(outline, p)) < 0.05) continue;  // on the border: either answer is right
      view.features.points.push_back(p);
      view.features.words.push_back(static_cast<std::int32_t>(rng() % 30));
      view.features.signatures.push_back(rng());
    }
    ImageWords expected;
    for (std::size_t i = 0; i < view.features.points.size(); ++i)
      if (insideBy(outline, view.features.points[i]) > 0) {
        expected.words.push_back(view.features.words[i]);
        expected.signatures.push_back(view.features.signatures[i]);
      }
    ASSERT_GT(expected.words.size(), 20u);  // some inside, some outside
    ASSERT_LT(expected.words.size(), 980u);

    const ImageWords inside = featuresInView(view, query);
    EXPECT_EQ(inside.image_size, query);
    EXPECT_EQ(inside.words, expected.words);  // the same features, in their order
    EXPECT_EQ(inside.signatures, expected.signatures);
    ASSERT_EQ(inside.points.size(), inside.words.size());
    // Each point is the back-projection of its view point: h maps it there, and it lies in the query.
    std::size_t next = 0;
    for (std::size_t i = 0; i < view.features.points.size() && next < inside.points.size(); ++i) {
      if (insideBy(outline, view.features.points[i]) < 0) continue;
      const cv::Vec3d there = h * cv::Vec3d(inside.points[next].x, inside.points[next].y, 1.0);
      EXPECT_LT(cv::norm(cv::Point2d(there[0] / there[2], there[1] / there[2]) - cv::Point2d(view.features.points[i])), 1e-3);
      EXPECT_TRUE(inside.points[next].x >= 0 && inside.points[next].y >= 0 && inside.points[next].x <= query.width &&
                  inside.points[next].y <= query.height);
      ++next;
    }
  }
}

TEST(FeaturesInView, ExpandQueryAddsEveryViewsFeaturesToTheQuerys) {
  std::mt19937_64 rng(7);
  ImageWords query;
  query.image_size = {300, 200};
  for (int i = 0; i < 20; ++i) {
    query.points.emplace_back(static_cast<float>(rng() % 300), static_cast<float>(rng() % 200));
    query.words.push_back(static_cast<std::int32_t>(rng() % 10));
    query.signatures.push_back(rng());
  }
  std::vector<VerifiedView> views;
  for (int v = 0; v < 3; ++v) {
    VerifiedView view{{}, cv::Matx33d(1.5, 0, 40.0 * v, 0, 1.5, 30, 0, 0, 1)};
    view.features.image_size = {700, 500};
    for (int i = 0; i < 100; ++i) {
      view.features.points.emplace_back(static_cast<float>(rng() % 700) + 0.5f, static_cast<float>(rng() % 500) + 0.5f);
      view.features.words.push_back(static_cast<std::int32_t>(rng() % 10));
      view.features.signatures.push_back(rng());
    }
    views.push_back(view);
  }
  ImageWords expected = query;
  for (const VerifiedView& view : views) expected = referenceExpansion(expected, view.features, view.homography);
  const ImageWords expanded = expandQuery(query, views);
  EXPECT_EQ(countWords(expanded.words), countWords(expected.words));
  EXPECT_EQ(expanded.words, expected.words);
  EXPECT_EQ(expanded.signatures, expected.signatures);
  EXPECT_GT(expanded.words.size(), query.words.size());
  // Without signatures in the query, the expansion has none either (all or none).
  ImageWords unsigned_query = query;
  unsigned_query.signatures.clear();
  const ImageWords plain = expandQuery(unsigned_query, views);
  EXPECT_EQ(plain.words, expected.words);
  EXPECT_TRUE(plain.signatures.empty());
  // A singular homography, or counts that differ, are refused.
  EXPECT_THROW(featuresInView({views[0].features, cv::Matx33d::zeros()}, query.image_size), InvalidInput);
  VerifiedView bad = views[0];
  bad.features.signatures.pop_back();
  EXPECT_THROW(expandQuery(query, {bad}), InvalidInput);
}

TEST(FeaturesInView, MapSizesAndAnglesIntoTheQuery) {
  // A similarity (query -> view): scale s, rotation t from +x towards +y. Seen from the query, a view
  // keypoint is s times smaller and turned back by t; its position does not matter to a similarity.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const cv::Size query{400, 300};
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const double t = unit(rng) * 2 * M_PI, scale = 0.5 + 1.5 * unit(rng);
    const cv::Matx33d h(scale * std::cos(t), -scale * std::sin(t), 500, scale * std::sin(t), scale * std::cos(t), 500,
                        0, 0, 1);
    VerifiedView view{{}, h};
    view.features.image_size = {1000, 1000};
    for (int i = 0; i < 200; ++i) {
      const cv::Vec3d p = h * cv::Vec3d(unit(rng) * query.width, unit(rng) * query.height, 1.0);  // inside
      view.features.points.emplace_back(static_cast<float>(p[0]), static_cast<float>(p[1]));
      view.features.words.push_back(static_cast<std::int32_t>(rng() % 30));
      view.features.sizes.push_back(static_cast<float>(5 + 60 * unit(rng)));
      view.features.angles.push_back(i % 10 == 0 ? -1.0f : static_cast<float>(unit(rng) * 359.9));
    }
    const ImageWords inside = featuresInView(view, query);
    ASSERT_EQ(inside.words.size(), 200u);
    ASSERT_EQ(inside.sizes.size(), 200u);
    ASSERT_EQ(inside.angles.size(), 200u);
    EXPECT_TRUE(inside.signatures.empty());
    for (std::size_t i = 0; i < 200; ++i) {
      EXPECT_NEAR(inside.sizes[i], view.features.sizes[i] / scale, 1e-4 * view.features.sizes[i]) << i;
      if (view.features.angles[i] < 0) {
        EXPECT_EQ(inside.angles[i], -1.0f) << i;
        continue;
      }
      EXPECT_GE(inside.angles[i], 0.0f);
      EXPECT_LT(inside.angles[i], 360.0f);
      const double expected = std::fmod(view.features.angles[i] - t * 180 / M_PI + 720.0, 360.0);
      const double off = std::abs(inside.angles[i] - expected);
      EXPECT_LT(std::min(off, 360 - off), 1e-3) << i;
    }
    // The expansion carries them when the query and every view have them, else none.
    ImageWords q;
    q.image_size = query;
    q.points = {{10.0f, 10.0f}};
    q.words = {1};
    q.sizes = {12.0f};
    q.angles = {45.0f};
    const ImageWords expanded = expandQuery(q, {view});
    ASSERT_EQ(expanded.sizes.size(), 201u);
    ASSERT_EQ(expanded.angles.size(), 201u);
    EXPECT_EQ(expanded.sizes[0], 12.0f);
    EXPECT_EQ(std::vector<float>(expanded.angles.begin() + 1, expanded.angles.end()), inside.angles);
    ImageWords bare = q;
    bare.sizes.clear();
    bare.angles.clear();
    const ImageWords without = expandQuery(bare, {view});
    EXPECT_EQ(without.words.size(), 201u);
    EXPECT_TRUE(without.sizes.empty() && without.angles.empty());
    VerifiedView bare_view = view;
    bare_view.features.sizes.clear();
    bare_view.features.angles.clear();
    const ImageWords mixed = expandQuery(q, {view, bare_view});
    EXPECT_EQ(mixed.words.size(), 401u);
    EXPECT_TRUE(mixed.sizes.empty() && mixed.angles.empty());
    // Sizes without angles, or counts that differ, are refused.
    VerifiedView bad = view;
    bad.features.angles.clear();
    EXPECT_THROW(featuresInView(bad, query), InvalidInput);
    bad = view;
    bad.features.sizes.pop_back();
    bad.features.angles.pop_back();
    EXPECT_THROW(featuresInView(bad, query), InvalidInput);
  }
}

// A constructed collection. The query Q (400 x 400) has 60 features of words 0-59. B shows Q larger
// and rotated (kToB) with Q's features where kToB puts them, 40 more features of words 60-99 inside
// Q's outline (what Q did not see) and 40 of words 100-139 outside it (other scene). C shares B's 40
// inside words and 1 of Q's; D shares B's 40 outside words and 2 of Q's; fillers have one of Q's
// words and their own. Q verifies B only; expanded with B, it should find C, and not D.
struct Collection {
  Vocabulary vocabulary;
  ImageWords query;
  std::vector<std::pair<std::string, ImageWords>> images;
};

const cv::Matx33d kToB(1.2 * std::cos(0.26), -1.2 * std::sin(0.26), 150, 1.2 * std::sin(0.26), 1.2 * std::cos(0.26), 120,
                       0, 0, 1);

Collection constructed() {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> in_query(20.0f, 380.0f), anywhere(0.0f, 399.0f), in_b(0.0f, 799.0f);
  Collection c{Vocabulary(randomMatrix(rng, kWords, 64), DescriptorType::parse("surf64")), {}, {}};
  auto feature = [](ImageWords& image, cv::Point2f p, std::int32_t word, std::uint64_t signature) {
    image.points.push_back(p);
    image.words.push_back(word);
    image.signatures.push_back(signature);
  };
  auto toB = [](cv::Point2f p) {
    const cv::Vec3d q = kToB * cv::Vec3d(p.x, p.y, 1.0);
    return cv::Point2f(static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2]));
  };
  c.query.image_size = {400, 400};
  for (int w = 0; w < 60; ++w) feature(c.query, {in_query(rng), in_query(rng)}, w, rng());
  ImageWords b, cc, d;
  b.image_size = {800, 800};
  cc.image_size = d.image_size = {400, 400};
  for (std::size_t i = 0; i < c.query.words.size(); ++i)
    feature(b, toB(c.query.points[i]), c.query.words[i], c.query.signatures[i]);
  const std::vector<cv::Point2f> outline = mappedOutline(kToB, c.query.image_size);
  for (int w = 60; w < 100; ++w) {
    const std::uint64_t signature = rng();
    feature(b, toB({in_query(rng), in_query(rng)}), w, signature);
    feature(cc, {anywhere(rng), anywhere(rng)}, w, signature);
  }
  for (int w = 100; w < 140;) {
    const cv::Point2f p(in_b(rng), in_b(rng));
    if (insideBy(outline, p) > -10) continue;
    const std::uint64_t signature = rng();
    feature(b, p, w, signature);
    feature(d, {anywhere(rng), anywhere(rng)}, w, signature);
    ++w;
  }
  feature(cc, {anywhere(rng), anywhere(rng)}, 0, c.query.signatures[0]);
  for (int w = 2; w < 4; ++w) feature(d, {anywhere(rng), anywhere(rng)}, w, c.query.signatures[w]);
  for (int i = 0; i < 10; ++i) {
    feature(cc, {anywhere(rng), anywhere(rng)}, 140 + static_cast<std::int32_t>(rng() % 60), rng());
    feature(d, {anywhere(rng), anywhere(rng)}, 140 + static_cast<std::int32_t>(rng() % 60), rng());
  }
  c.images = {{"B", b}, {"C", cc}, {"D", d}};
  for (int f = 0; f < 10; ++f) {
    ImageWords filler;
    filler.image_size = {400, 400};
    feature(filler, {anywhere(rng), anywhere(rng)}, 4 + f, c.query.signatures[4 + f]);
    for (int i = 0; i < 30; ++i) feature(filler, {anywhere(rng), anywhere(rng)}, 140 + static_cast<std::int32_t>(rng() % 60), rng());
    c.images.push_back({"F" + std::to_string(f), filler});
  }
  return c;
}

ImageSearch searchOf(const Collection& c) {
  ImageSearch search = ImageSearch::create(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (const auto& [name, words] : c.images) search.add(name, words);
  return search;
}

ImageDatabase databaseOf(const Collection& c) {
  ImageDatabase database(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (const auto& [name, words] : c.images) database.add(name, words);
  return database;
}

std::size_t rankOf(const std::vector<SearchHit>& hits, const std::string& name) {
  const auto at = std::find_if(hits.begin(), hits.end(), [&](const SearchHit& h) { return h.name == name; });
  return at == hits.end() ? hits.size() : static_cast<std::size_t>(at - hits.begin());
}

SearchOptions expandOptions(const std::string& scoring, std::size_t expand) {
  SearchOptions options;
  options.top = 20;
  options.verify = 20;
  options.expand = expand;
  options.scoring = parseScoringOptions(scoring);
  return options;
}

void expectSameHits(const std::vector<SearchHit>& a, const std::vector<SearchHit>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("result " + std::to_string(i));
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].shard, b[i].shard);
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].score, b[i].score);
    EXPECT_EQ(a[i].bow_score, b[i].bow_score);
    EXPECT_EQ(a[i].inliers, b[i].inliers);
    EXPECT_EQ(a[i].verified, b[i].verified);
    ASSERT_EQ(a[i].homography.has_value(), b[i].homography.has_value());
    if (a[i].homography) {
      EXPECT_EQ(cv::norm(cv::Mat(*a[i].homography), cv::Mat(*b[i].homography), cv::NORM_INF), 0);
    }
  }
}

TEST(QueryExpansion, FindsWhatOnlyAVerifiedPartnerShares) {
  const Collection c = constructed();
  const ImageSearch search = searchOf(c);
  const ImageDatabase reference = databaseOf(c);
  for (const std::string scoring : {"intersection", "cosine", "hamming20+log"}) {
    SCOPED_TRACE(scoring);
    const std::vector<SearchHit> plain = search.search(c.query, expandOptions(scoring, 0));
    const std::vector<SearchHit> expanded = search.search(c.query, expandOptions(scoring, 3));
    ASSERT_EQ(plain.size(), c.images.size());
    ASSERT_EQ(expanded.size(), c.images.size());
    // Q verifies B, and nothing else (the others share at most 2 of its words).
    ASSERT_EQ(plain[0].name, "B");
    ASSERT_TRUE(plain[0].verified);
    EXPECT_FALSE(plain[1].verified);
    EXPECT_GT(rankOf(plain, "C"), 1u);
    // Expanded with B's features inside Q's outline, C comes right after B; D, which shares B's
    // outside features only, stays below it.
    EXPECT_EQ(expanded[0].name, "B");
    EXPECT_TRUE(expanded[0].verified);
    EXPECT_EQ(expanded[1].name, "C");
    EXPECT_FALSE(expanded[1].verified);  // verified against Q itself: C shares too little with it
    EXPECT_GT(rankOf(expanded, "D"), 1u);
    EXPECT_GT(expanded[1].bow_score, 2 * plain[rankOf(plain, "C")].bow_score);

    // The expanded ranking is the reference database's for the query plus B's features inside the
    // outline that B's verified homography maps (computed here with OpenCV's polygon test).
    const ImageWords b = *reference.keypoints(*reference.index().find("B"));
    const ImageWords query = referenceExpansion(c.query, b, *plain[0].homography);
    EXPECT_EQ(countWords(query.words).size(), 100u);  // Q's 60 words and B's 40 inside ones
    const std::vector<SearchResult> ranking =
        reference.query(query, c.images.size(), parseScoringOptions(scoring));
    std::map<std::string, double> expected;
    for (const SearchResult& r : ranking) expected[r.name] = r.score;
    for (const SearchHit& hit : expanded) {
      ASSERT_TRUE(expected.count(hit.name)) << hit.name;
      EXPECT_NEAR(hit.bow_score, expected[hit.name], 1e-12) << hit.name;
      EXPECT_EQ(hit.score, hit.verified ? hit.inliers + hit.bow_score : hit.bow_score) << hit.name;
    }
    EXPECT_EQ(expanded[0].inliers, plain[0].inliers);  // B verified against Q again, on the same pairs
  }
}

TEST(QueryExpansion, WithNoVerifiedResultIsNoExpansion) {
  const Collection c = constructed();
  const ImageSearch search = searchOf(c);
  // C's features as a query: it shares words with B and D, but none where they lie there.
  const ImageWords query = c.images[1].second;
  for (const std::string scoring : {"intersection", "hamming20+log"}) {
    SCOPED_TRACE(scoring);
    const std::vector<SearchHit> plain = search.search(query, expandOptions(scoring, 0));
    for (const SearchHit& hit : plain)
      if (hit.name != "C") {
        EXPECT_FALSE(hit.verified) << hit.name;
      }
    // C is indexed: left out, nothing verifies and the answer is the unexpanded one, exactly.
    SearchOptions without = expandOptions(scoring, 0), with = expandOptions(scoring, 5);
    without.exclude_query = with.exclude_query = true;
    expectSameHits(search.search(query, with, "C"), search.search(query, without, "C"));
  }
}

// The query's own image, indexed too, verifies first; expansion passes it over when it is named
// (expanding with it would add the query's features again, and only 1 is asked for here).
TEST(QueryExpansion, PassesTheQuerysOwnImageOver) {
  Collection c = constructed();
  c.images.push_back({"Q", c.query});
  const ImageSearch search = searchOf(c);
  const std::vector<SearchHit> named = search.search(c.query, expandOptions("intersection", 1), "Q");
  ASSERT_GE(named.size(), 3u);
  EXPECT_EQ(named[0].name, "Q");
  EXPECT_EQ(named[1].name, "B");
  EXPECT_EQ(named[2].name, "C");
  const std::vector<SearchHit> unnamed = search.search(c.query, expandOptions("intersection", 1));
  EXPECT_EQ(unnamed[0].name, "Q");
  EXPECT_GT(rankOf(unnamed, "C"), 2u);  // expanded with Q itself: nothing new to find C by
}

TEST(QueryExpansion, IsRefusedWithoutVerification) {
  const Collection c = constructed();
  const ImageSearch search = searchOf(c);
  SearchOptions options = expandOptions("intersection", 3);
  options.verify = 0;
  try {
    search.search(c.query, options);
    ADD_FAILURE() << "expand without verify was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "verify")) << e.what();
  }
  const auto histogram = histogramOf(c.query, kWords, "the query");
  EXPECT_THROW(search.search(HistogramRef(histogram), options), InvalidInput);
}

TEST(QueryExpansion, ShardsAndALiveDatabaseAnswerAsOneFile) {
  const Collection c = constructed();
  const ImageSearch whole = searchOf(c);
  TempDir dir;
  std::vector<std::string> files;
  for (int s = 0; s < 2; ++s) {
    ImageDatabase shard(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
    for (std::size_t i = static_cast<std::size_t>(s); i < c.images.size(); i += 2)
      shard.add(c.images[i].first, c.images[i].second);
    files.push_back("part-" + std::to_string(s) + ".bovwdb");
    shard.save(dir.file(files.back()));
  }
  {
    std::ofstream out(dir.file("all.bovwshards"));
    ShardedDatabase::manifestFor(ImageDatabase::load(dir.file(files[0])), files).write(out);
  }
  const ImageSearch sharded = ImageSearch::open(dir.file("all.bovwshards"));
  ImageSearch live = ImageSearch::createLive(dir.file("live"), c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (const auto& [name, words] : c.images) live.add(name, words);
  for (const std::string scoring : {"intersection", "hamming20+log"}) {
    SCOPED_TRACE(scoring);
    const std::vector<SearchHit> expected = whole.search(c.query, expandOptions(scoring, 3));
    ASSERT_EQ(expected[1].name, "C");
    for (const ImageSearch* other : {&sharded, static_cast<const ImageSearch*>(&live)}) {
      const std::vector<SearchHit> hits = other->search(c.query, expandOptions(scoring, 3));
      ASSERT_EQ(hits.size(), expected.size());
      EXPECT_EQ(hits[0].name, "B");
      EXPECT_EQ(hits[1].name, "C");
      // The fillers tie, and ties go by id, which shards number apart: compare by name.
      std::map<std::string, const SearchHit*> by_name;
      for (const SearchHit& hit : hits) by_name[hit.name] = &hit;
      for (const SearchHit& hit : expected) {
        ASSERT_TRUE(by_name.count(hit.name)) << hit.name;
        EXPECT_NEAR(by_name[hit.name]->bow_score, hit.bow_score, 1e-9) << hit.name;
        EXPECT_EQ(by_name[hit.name]->inliers, hit.inliers) << hit.name;
      }
    }
  }
  // Over the ranks of a job, a result's keypoints may lie on another rank: refused on every rank, by
  // name, before any ranking.
  std::atomic<int> refused{0};
  runOnRanks(2, [&](Communicator& ranks) {
    const ImageSearch spread = ImageSearch::open(ranks, dir.file("all.bovwshards"));
    try {
      spread.search(c.query, expandOptions("intersection", 3));
      ADD_FAILURE() << "expansion over 2 ranks was accepted";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), "spread over 2 ranks")) << e.what();
      ++refused;
    }
    SearchOptions plain = expandOptions("intersection", 0);
    const std::vector<SearchHit> hits = spread.search(c.query, plain);  // without expansion it answers
    if (ranks.rank() == 0) {
      EXPECT_EQ(hits.front().name, "B");
    }
  });
  EXPECT_EQ(refused.load(), 2);
}

}  // namespace
}  // namespace bovw::test
