// Geometric verification: word correspondences against a brute-force pairing, a known homography
// recovered from an image and its warped view, a small object pasted into a cluttered scene found
// and located, chance and mirrors refused (these three with each homography estimator), the
// re-ranking's order, the shortlist matched on several threads as one by one, the
// keypoints a database keeps (round trip, malformed blocks, consistency with add/remove) and
// databases written before keypoints existed.
#include "support/resealing.hpp"
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/geometric_verification.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/vocabulary_io.hpp>

#include <opencv2/imgproc.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bitset>
#include <cstring>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <thread>

namespace bovw::test {
namespace {

const std::string kFormats = std::string(BOVW_TEST_DATA) + "/formats/";

// The default options with each estimator in turn: each must pass the tests that find a known
// geometry (the default's speed comes from OpenCV's preset, not from looser checks of ours).
std::vector<VerificationOptions> withEachEstimator() {
  std::vector<VerificationOptions> options(2);
  options[0].estimator = HomographyEstimator::UsacFast;
  options[1].estimator = HomographyEstimator::Magsac;
  return options;
}

std::string nameOf(HomographyEstimator estimator) {
  return estimator == HomographyEstimator::Magsac ? "magsac" : "usac-fast";
}

// A vocabulary trained on the images' own SURF descriptors (so their words are meaningful).
Vocabulary trainOn(const std::vector<std::string>& paths, int words) {
  const auto extractor = makeFeatureExtractor(FeatureSpec("surf"));
  const DescriptorSample sample = sampleDescriptors(paths, *extractor, 200000, 5);
  KMeansOptions options;
  options.words = words;
  options.seed = 9;
  options.max_iterations = 15;
  options.descriptor_type = extractor->descriptorType();
  return trainVocabulary(sample.descriptors, options);
}

// Every image's words, keypoints and signatures through the pipeline (PipelineOptions::keep_words).
ImageHistograms wordsOf(const std::vector<std::string>& paths, const Vocabulary& vocabulary) {
  const auto extractor = makeFeatureExtractor(FeatureSpec("surf"));
  auto histogrammer = makeHistogrammer();
  PipelineOptions options;
  options.keep_words = true;
  options.strict = true;
  return histogramImages(paths, *extractor, vocabulary, *histogrammer, options);
}

cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
  const cv::Vec3d v = h * cv::Vec3d(p.x, p.y, 1.0);
  return {v[0] / v[2], v[1] / v[2]};
}

// The largest distance between where `estimated` and `truth` send a 5 x 5 grid over `area`.
double gridError(const cv::Matx33d& estimated, const cv::Matx33d& truth, cv::Size area) {
  double worst = 0;
  for (int i = 0; i <= 4; ++i)
    for (int j = 0; j <= 4; ++j) {
      const cv::Point2d p(area.width * i / 4.0, area.height * j / 4.0);
      worst = std::max(worst, cv::norm(apply(estimated, p) - apply(truth, p)));
    }
  return worst;
}

TEST(MatchWords, PairsExactlyTheKeypointsOfSharedWordsWithCloseSignaturesOutsideBursts) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> word(0, 14), count(0, 40);
    std::uniform_real_distribution<float> coordinate(0.0f, 300.0f);
    auto randomImage = [&] {
      ImageWords image;
      image.image_size = {300, 300};
      const int n = count(rng);
      for (int i = 0; i < n; ++i) {
        image.points.emplace_back(coordinate(rng), coordinate(rng));
        image.words.push_back(word(rng));
        image.signatures.push_back(rng());
      }
      return image;
    };
    const ImageWords query = randomImage(), result = randomImage();
    VerificationOptions options;
    options.max_signature_distance = 30;  // random signatures differ in 32 bits on average: some pairs pass
    options.max_pairs_per_word = 4;

    // Brute force from the definition: every (i, j) of one word with close signatures, unless the
    // word pairs more than max_pairs_per_word keypoint pairs.
    std::map<int, std::pair<int, int>> occurrences;
    for (int w : query.words) ++occurrences[w].first;
    for (int w : result.words) ++occurrences[w].second;
    std::multiset<std::tuple<float, float, float, float>> expected;
    for (std::size_t i = 0; i < query.words.size(); ++i)
      for (std::size_t j = 0; j < result.words.size(); ++j) {
        const int w = query.words[i];
        if (w != result.words[j]) continue;
        if (occurrences[w].first * occurrences[w].second > options.max_pairs_per_word) continue;
        if (std::bitset<64>(query.signatures[i] ^ result.signatures[j]).count() > 30) continue;
        expected.emplace(query.points[i].x, query.points[i].y, result.points[j].x, result.points[j].y);
      }
    const WordCorrespondences pairs = matchWords(query, result, options);
    ASSERT_EQ(pairs.query_points.size(), pairs.result_points.size());
    std::multiset<std::tuple<float, float, float, float>> got;
    for (std::size_t k = 0; k < pairs.query_points.size(); ++k)
      got.emplace(pairs.query_points[k].x, pairs.query_points[k].y, pairs.result_points[k].x, pairs.result_points[k].y);
    EXPECT_EQ(got, expected) << "seed " << seed;
  }
}

TEST(MatchWords, WithoutSignaturesEverySharedWordPairs) {
  ImageWords a{{10, 10}, {{1, 1}, {2, 2}, {3, 3}}, {4, 7, 4}, {}, {}, {}};
  ImageWords b{{10, 10}, {{5, 5}, {6, 6}}, {4, 9}, {}, {}, {}};
  VerificationOptions options;
  options.max_signature_distance = 0;
  EXPECT_EQ(matchWords(a, b, options).query_points.size(), 2u);  // both word-4 keypoints of a with b's one
  a.signatures = {0, 0};  // two signatures for three points
  EXPECT_THROW(matchWords(a, b, options), InvalidInput);
}

TEST(VerifyPair, RecoversAKnownHomographyBetweenAnImageAndItsWarpedView) {
  TempDir dir;
  const cv::Mat graf = readGray(dataFile("graf1_gray.png"));
  // A mild perspective change with rotation and scale, as between two photographs of one wall.
  const std::vector<cv::Point2f> from{{0, 0}, {float(graf.cols), 0}, {float(graf.cols), float(graf.rows)}, {0, float(graf.rows)}};
  const std::vector<cv::Point2f> to{{40, 30}, {float(graf.cols) - 60, 10}, {float(graf.cols) - 20, float(graf.rows) - 50},
                                    {20, float(graf.rows) - 10}};
  const cv::Matx33d truth(cv::getPerspectiveTransform(from, to));
  cv::Mat warped;
  cv::warpPerspective(graf, warped, truth, graf.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
  const std::vector<std::string> paths{dir.file("original.png"), dir.file("warped.png")};
  writeImage(paths[0], graf);
  writeImage(paths[1], warped);

  const Vocabulary vocabulary = trainOn(paths, 300);
  const ImageHistograms words = wordsOf(paths, vocabulary);
  ASSERT_EQ(words.words.size(), 2u);
  for (const VerificationOptions& options : withEachEstimator()) {
    SCOPED_TRACE(nameOf(options.estimator));
    const GeometricMatch match = verifyPair(words.words[0], words.words[1], options);
    ASSERT_TRUE(match.homography.has_value());
    EXPECT_GE(match.inliers, 100) << match.correspondences << " correspondences";
    EXPECT_LT(gridError(*match.homography, truth, graf.size()), 3.0);
    EXPECT_TRUE(verifies(match, options));
  }
}

// A scene of random clutter with box.png pasted into it, scaled and rotated: where the box's
// corners went is known.
struct PastedScene {
  cv::Mat image;
  cv::Matx33d box_to_scene;
};

PastedScene pasteBox(const cv::Mat& box, std::mt19937_64& rng) {
  PastedScene scene;
  scene.image = randomTexture(rng, 800, 600);
  cv::Matx33d placement = cv::Matx33d::eye();
  const cv::Mat rotation = cv::getRotationMatrix2D(cv::Point2f(box.cols / 2.0f, box.rows / 2.0f), 15, 0.8);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) placement(r, c) = rotation.at<double>(r, c);
  placement(0, 2) += 380;  // lower right of the scene, away from its centre
  placement(1, 2) += 260;
  cv::Mat warped, mask;
  cv::warpPerspective(box, warped, placement, scene.image.size());
  cv::warpPerspective(cv::Mat(box.size(), CV_8U, cv::Scalar(255)), mask, placement, scene.image.size(), cv::INTER_NEAREST);
  warped.copyTo(scene.image, mask);
  scene.box_to_scene = placement;
  return scene;
}

TEST(VerifyRanking, FindsASmallObjectPastedIntoClutterAndRanksItFirst) {
  TempDir dir;
  std::mt19937_64 rng(31);
  const cv::Mat box = readGray(dataFile("box.png"));
  const PastedScene scene = pasteBox(box, rng);
  std::vector<std::string> indexed;
  for (int i = 0; i < 4; ++i) {
    indexed.push_back(dir.file("clutter_" + std::to_string(i) + ".png"));
    writeImage(indexed.back(), randomTexture(rng, 800, 600));
  }
  indexed.push_back(dir.file("scene_with_box.png"));
  writeImage(indexed.back(), scene.image);
  const std::string query_path = dir.file("box.png");
  writeImage(query_path, box);

  std::vector<std::string> training = indexed;
  training.push_back(query_path);
  const Vocabulary vocabulary = trainOn(training, 400);
  ImageDatabase database(vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  const ImageHistograms images = wordsOf(indexed, vocabulary);
  for (std::size_t i = 0; i < images.names.size(); ++i) database.add(images.names[i], images.words[i]);
  const ImageHistograms query = wordsOf({query_path}, vocabulary);

  const auto ranking = database.index().query(query.histograms.row(0), indexed.size(), Scoring::Intersection);
  for (const VerificationOptions& options : withEachEstimator()) {
    SCOPED_TRACE(nameOf(options.estimator));
    VerificationReport report;
    const auto verified = database.verify(query.words[0], ranking, options, &report);
    ASSERT_EQ(verified.size(), ranking.size());
    EXPECT_EQ(fileName(verified[0].name), "scene_with_box.png");
    EXPECT_TRUE(verified[0].verified);
    EXPECT_GE(verified[0].inliers, 20);
    EXPECT_DOUBLE_EQ(verified[0].score, verified[0].inliers + verified[0].bow_score);
    for (std::size_t i = 1; i < verified.size(); ++i) EXPECT_FALSE(verified[i].verified) << verified[i].name;
    EXPECT_EQ(report.checked, ranking.size());
    EXPECT_EQ(report.verified, 1u);

    // The fitted homography puts the box where it was pasted.
    const GeometricMatch match = verifyPair(query.words[0], *database.keypoints(verified[0].id), options);
    ASSERT_TRUE(match.homography.has_value());
    EXPECT_LT(gridError(*match.homography, scene.box_to_scene, box.size()), 3.0);
  }
}

SearchResult result(ImageId id, double score) { return {id, "image_" + std::to_string(id), score}; }

TEST(VerifyRanking, ReordersOnlyTheShortlistAndKeepsTheRestInOrder) {
  // Image 2 and 3 carry the query's pattern (same words, the points moved by a translation); the
  // others have no shared word. The ranking puts them 3rd and 4th; with a shortlist of 3 only image
  // 2 (3rd) can move up.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> coordinate(0.0f, 400.0f);
  ImageWords query{{500, 500}, {}, {}, {}, {}, {}};
  for (int i = 0; i < 60; ++i) {
    query.points.emplace_back(coordinate(rng), coordinate(rng));
    query.words.push_back(i);
    query.signatures.push_back(rng());
  }
  ImageWords copy = query;
  for (auto& p : copy.points) p += cv::Point2f(50, 20);
  const ImageWords unrelated{{500, 500}, {{1, 1}}, {99}, {0}, {}, {}};
  auto lookup = [&](ImageId id) -> std::optional<ImageWords> {
    if (id == 4) return std::nullopt;  // no keypoints stored for it
    return id == 2 || id == 3 ? copy : unrelated;
  };
  const std::vector<SearchResult> ranking{result(0, 0.9), result(1, 0.8), result(2, 0.7), result(3, 0.6), result(4, 0.5)};
  VerificationOptions options;
  options.shortlist = 3;
  VerificationReport report;
  const auto verified = verifyRanking(query, ranking, lookup, options, &report);
  const std::vector<ImageId> order{verified[0].id, verified[1].id, verified[2].id, verified[3].id, verified[4].id};
  EXPECT_EQ(order, (std::vector<ImageId>{2, 0, 1, 3, 4}));
  EXPECT_EQ(verified[0].inliers, 60);
  EXPECT_EQ(verified[1].inliers, 0);
  EXPECT_EQ(verified[3].inliers, -1);  // beyond the shortlist: not checked
  EXPECT_DOUBLE_EQ(verified[3].score, 0.6);
  EXPECT_EQ(report.checked, 3u);
  EXPECT_EQ(report.verified, 1u);
  EXPECT_TRUE(verifyRanking(query, {}, lookup, options).empty());
}

// The shortlist is matched on the calling thread's OpenMP team: on any number of threads each result's
// match is the one verifyPair gives for it alone (the same homography bits), the results without
// keypoints are not checked, and a result whose keypoints cannot be read fails the call with the
// first such result's error, whichever thread met it first. The candidates: the query's points under
// a random homography with a few outliers (verifiable), unrelated points over the query's words and
// signatures (pairs enough for a fit that finds nothing), and odd shortlist sizes.
TEST(MatchShortlist, OnAnyNumberOfThreadsEachResultIsMatchedAsAlone) {
  BOVW_SEEDED_RNG(rng);
  std::uniform_real_distribution<float> coordinate(0.0f, 600.0f), jitter(-0.3f, 0.3f), tilt(-1e-4f, 1e-4f);
  ImageWords query{{640, 640}, {}, {}, {}, {}, {}};
  for (int i = 0; i < 90; ++i) {
    query.points.emplace_back(coordinate(rng), coordinate(rng));
    query.words.push_back(static_cast<std::int32_t>(rng() % 40));
    query.signatures.push_back(rng());
  }
  const int candidates = 23 + static_cast<int>(rng() % 9);
  std::vector<std::optional<ImageWords>> stored(static_cast<std::size_t>(candidates));
  for (int c = 0; c < candidates; ++c) {
    if (c % 7 == 3) continue;  // no keypoints stored for it
    ImageWords image = query;
    if (c % 2 == 0) {
      const cv::Matx33d h(0.9 + 0.2 * (rng() % 100) / 100.0, tilt(rng), 30.0 + rng() % 50, tilt(rng),
                          0.9 + 0.2 * (rng() % 100) / 100.0, 20.0 + rng() % 50, tilt(rng), tilt(rng), 1.0);
      for (std::size_t i = 0; i < image.points.size(); ++i) {
        const cv::Point2d p = apply(h, image.points[i]);
        image.points[i] = i % 9 == 0 ? cv::Point2f(coordinate(rng), coordinate(rng))
                                     : cv::Point2f(static_cast<float>(p.x) + jitter(rng), static_cast<float>(p.y) + jitter(rng));
      }
    } else {
      for (auto& p : image.points) p = cv::Point2f(coordinate(rng), coordinate(rng));
    }
    stored[static_cast<std::size_t>(c)] = image;
  }
  std::vector<SearchResult> ranking;
  for (int c = 0; c < candidates; ++c) ranking.push_back(result(static_cast<ImageId>(c), 1.0 / (1 + c)));
  const KeypointLookup lookup = [&](ImageId id) { return stored.at(id); };
  VerificationOptions options;
  options.shortlist = static_cast<std::size_t>(candidates - 2);

  const int threads = omp_get_max_threads();
  std::size_t verifiable = 0;
  for (const int t : {1, 2, 3, 5}) {
    SCOPED_TRACE(std::to_string(t) + " threads");
    omp_set_num_threads(t);
    const auto matches = matchShortlist(query, ranking, lookup, options);
    ASSERT_EQ(matches.size(), options.shortlist);
    for (std::size_t c = 0; c < matches.size(); ++c) {
      SCOPED_TRACE("result " + std::to_string(c));
      ASSERT_EQ(matches[c].has_value(), stored[c].has_value());
      if (!stored[c]) continue;
      const GeometricMatch alone = verifyPair(query, *stored[c], options);
      EXPECT_EQ(matches[c]->correspondences, alone.correspondences);
      EXPECT_EQ(matches[c]->inliers, alone.inliers);
      ASSERT_EQ(matches[c]->homography.has_value(), alone.homography.has_value());
      if (alone.homography) {
        EXPECT_EQ(std::memcmp(matches[c]->homography->val, alone.homography->val, sizeof(alone.homography->val)), 0);
      }
      if (t == 1 && c % 2 == 0) verifiable += alone.inliers >= options.min_inliers ? 1 : 0;
    }
  }
  EXPECT_GE(verifiable, options.shortlist / 2 - options.shortlist / 7 - 1);  // the warped copies verify

  // Results 5 and 9 cannot be read: the call fails with result 5's error on every thread count.
  const KeypointLookup failing = [&](ImageId id) -> std::optional<ImageWords> {
    if (id == 5 || id == 9) throw InvalidInput("keypoints of result " + std::to_string(id) + " are damaged");
    return stored.at(id);
  };
  for (const int t : {1, 4}) {
    omp_set_num_threads(t);
    try {
      matchShortlist(query, ranking, failing, options);
      ADD_FAILURE() << "no error on " << t << " threads";
    } catch (const InvalidInput& e) {
      EXPECT_STREQ(e.what(), "keypoints of result 5 are damaged") << t << " threads";
    }
  }
  omp_set_num_threads(threads);
}

// The a-contrario count against its definition recomputed here in float64 from factorials, and
// its behaviour: more inliers or fewer tentative pairs make chance less likely; 4 inliers never count.
TEST(MatchEvidence, FalseAlarmsFollowTheirDefinition) {
  auto log10Factorial = [](int n) {
    double sum = 0;
    for (int i = 2; i <= n; ++i) sum += std::log10(static_cast<double>(i));
    return sum;
  };
  auto binomial = [&](int n, int k) { return log10Factorial(n) - log10Factorial(k) - log10Factorial(n - k); };
  const double area = 640.0 * 480.0, error = 8;
  for (const auto& [n, k] : {std::pair{20, 12}, {300, 13}, {1000, 40}, {57, 57}, {5, 5}}) {
    const double alpha = 3.14159265358979323846 * error * error / area;
    const double expected = std::log10(n - 4.0) + binomial(n, k) + binomial(k, 4) + (k - 4) * std::log10(alpha);
    EXPECT_NEAR(log10FalseAlarms(n, k, error, area), expected, 1e-9) << n << " pairs, " << k << " inliers";
  }
  EXPECT_LT(log10FalseAlarms(300, 30, error, area), log10FalseAlarms(300, 13, error, area));
  EXPECT_LT(log10FalseAlarms(30, 13, error, area), log10FalseAlarms(300, 13, error, area));
  EXPECT_GT(log10FalseAlarms(2000, 13, error, area), 0);  // 13 of 2,000 pairs: chance explains it
  EXPECT_LT(log10FalseAlarms(20, 13, error, area), -10);  // 13 of 20: it does not
  EXPECT_TRUE(std::isinf(log10FalseAlarms(100, 4, error, area)));
  EXPECT_TRUE(std::isinf(log10FalseAlarms(3, 3, error, area)));
  EXPECT_TRUE(std::isinf(log10FalseAlarms(100, 10, error, 0)));
}

// Homographies of real view changes are plausible; mirrors, folds, extreme scales and squeezes are
// not, each with its reason.
TEST(MatchEvidence, ImplausibleHomographiesAreNamed) {
  const cv::Size query(640, 480);
  const double c = std::cos(0.5), s = std::sin(0.5);
  EXPECT_EQ(implausibleHomography(cv::Matx33d::eye(), query, 8), "");
  EXPECT_EQ(implausibleHomography(cv::Matx33d(2 * c, -2 * s, 100, 2 * s, 2 * c, -50, 0, 0, 1), query, 8), "");
  // graf1 -> graf3 of OpenCV's samples: a strong but real viewpoint change.
  EXPECT_EQ(implausibleHomography(cv::Matx33d(7.6285898e-01, -2.9922929e-01, 2.2567123e+02, 3.3443473e-01,
                                              1.0143901e+00, -7.6999973e+01, 3.4663091e-04, -1.4364524e-05, 1),
                                  cv::Size(800, 640), 8),
            "");
  EXPECT_EQ(implausibleHomography(cv::Matx33d(-1, 0, 640, 0, 1, 0, 0, 0, 1), query, 8), "it mirrors the image");
  EXPECT_EQ(implausibleHomography(cv::Matx33d(0.05, 0, 0, 0, 0.05, 0, 0, 0, 1), query, 8),
            "it changes the scale by more than 8.00x");
  EXPECT_EQ(implausibleHomography(cv::Matx33d(12, 0, 0, 0, 12, 0, 0, 0, 1), query, 8),
            "it changes the scale by more than 8.00x");
  EXPECT_EQ(implausibleHomography(cv::Matx33d(4, 0, 0, 0, 0.3, 0, 0, 0, 1), query, 8),
            "it squeezes one direction against the other (near-singular)");
  EXPECT_EQ(implausibleHomography(cv::Matx33d(1, 0, 0, 0, 1, 0, -0.004, 0, 1), query, 8),
            "it sends part of the query image to infinity");
}

// verifyPair on constructed keypoints: a true homography pair verifies; random pairs with as many
// tentative matches do not, whatever inliers RANSAC scrapes together; a mirrored copy does not.
TEST(MatchEvidence, ChanceAndMirrorsDoNotVerify) {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<float> x(0, 640), y(0, 480), noise(-1, 1);
  const cv::Matx33d truth(0.9, -0.2, 40, 0.15, 0.95, 10, 1e-4, -5e-5, 1);
  ImageWords query, viewed, unrelated, mirrored;
  query.image_size = viewed.image_size = unrelated.image_size = mirrored.image_size = {640, 480};
  for (std::int32_t word = 0; word < 400; ++word) {
    const cv::Point2f p(x(rng), y(rng));
    query.points.push_back(p);
    query.words.push_back(word);
    // 150 of the 400 keypoints are seen again in the view, the rest are other scene points.
    const cv::Point2d seen = apply(truth, p);
    viewed.points.push_back(word < 150 ? cv::Point2f(static_cast<float>(seen.x) + noise(rng), static_cast<float>(seen.y) + noise(rng))
                                      : cv::Point2f(x(rng), y(rng)));
    viewed.words.push_back(word);
    unrelated.points.emplace_back(x(rng), y(rng));
    unrelated.words.push_back(word);
    mirrored.points.emplace_back(640 - p.x, p.y);
    mirrored.words.push_back(word);
  }
  for (VerificationOptions options : withEachEstimator()) {
    SCOPED_TRACE(nameOf(options.estimator));
    const GeometricMatch real = verifyPair(query, viewed, options);
    ASSERT_TRUE(real.homography.has_value());
    EXPECT_GE(real.inliers, 140);
    EXPECT_LT(gridError(*real.homography, truth, query.image_size), 3.0);
    EXPECT_LT(real.log10_false_alarms, -100);
    EXPECT_EQ(real.implausible, "");
    EXPECT_TRUE(verifies(real, options));
    const GeometricMatch chance = verifyPair(query, unrelated, options);
    EXPECT_EQ(chance.correspondences, 400);
    EXPECT_FALSE(verifies(chance, options)) << chance.inliers << " inliers, log10 NFA " << chance.log10_false_alarms;
    // OpenCV's USAC itself refuses samples whose orientation flips; whatever it returns for a mirror
    // image, it does not verify.
    const GeometricMatch mirror = verifyPair(query, mirrored, options);
    EXPECT_TRUE(!mirror.homography || mirror.implausible == "it mirrors the image") << mirror.implausible;
    EXPECT_FALSE(verifies(mirror, options));
    options.min_inliers = 4;  // the inlier count alone lets chance through; the a-contrario test does not
    EXPECT_FALSE(verifies(chance, options)) << chance.inliers << " inliers, log10 NFA " << chance.log10_false_alarms;
  }
}

TEST(VerificationOptions, OutOfRangeValuesAreRefusedByName) {
  auto refused = [](auto change, const std::string& name) {
    VerificationOptions options;
    change(options);
    try {
      validateVerificationOptions(options);
      ADD_FAILURE() << name << " accepted";
    } catch (const InvalidInput& e) {
      EXPECT_TRUE(contains(e.what(), name)) << e.what();
    }
  };
  refused([](VerificationOptions& o) { o.shortlist = 0; }, "shortlist");
  refused([](VerificationOptions& o) { o.min_inliers = 3; }, "min_inliers");
  refused([](VerificationOptions& o) { o.max_error_px = 0; }, "max_error_px");
  refused([](VerificationOptions& o) { o.max_error_px = std::nan(""); }, "max_error_px");
  refused([](VerificationOptions& o) { o.max_signature_distance = 65; }, "max_signature_distance");
  refused([](VerificationOptions& o) { o.max_pairs_per_word = 0; }, "max_pairs_per_word");
  refused([](VerificationOptions& o) { o.max_iterations = 0; }, "max_iterations");
  refused([](VerificationOptions& o) { o.max_log10_false_alarms = std::nan(""); }, "max_log10_false_alarms");
  refused([](VerificationOptions& o) { o.max_scale_change = 1; }, "max_scale_change");
  refused([](VerificationOptions& o) { o.estimator = static_cast<HomographyEstimator>(7); }, "estimator");
}

// A small database with keypoints: the test images, their words and keypoints. The vocabulary and
// words are made once per program (extraction and training dominate the run time).
struct KeypointDatabase {
  Vocabulary vocabulary;
  ImageHistograms images;
  ImageDatabase database;
};

KeypointDatabase keypointDatabase() {
  static const std::vector<std::string> paths{imageSet().box, imageSet().box_rotated, imageSet().graf_crop};
  static const Vocabulary vocabulary = trainOn(paths, 50);
  static const ImageHistograms images = wordsOf(paths, vocabulary);
  ImageDatabase database(vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (std::size_t i = 0; i < images.names.size(); ++i) database.add(images.names[i], images.words[i]);
  return {vocabulary, images, std::move(database)};
}

// An image's keypoints are kept in word order, those of one word in the order given (the stable sort
// is the reference), both where the vocabulary is small next to the image (a counting sort) and where
// it is large (a sort of packed keys); every point comes back with its own word, signature and place.
TEST(KeypointDatabase, KeepsKeypointsInWordOrderAndTiesInTheirOrder) {
  std::mt19937_64 rng(seedForCurrentTest());
  for (const int words : {7, 50'000}) {
    Descriptors centroids(words, 64);
    centroids.setRandom();
    DatabaseOptions options;
    options.store_keypoints = true;
    ImageDatabase db(Vocabulary(centroids, DescriptorType("surf", 64)), FeatureSpec("surf"), options);
    ImageWords image;
    image.image_size = cv::Size(1000, 700);
    const int n = 301;  // odd, and many keypoints per word when words = 7
    for (int k = 0; k < n; ++k) {
      image.words.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(words)));
      image.points.emplace_back(static_cast<float>(k * 3), static_cast<float>(rng() % 700));
      image.signatures.push_back(rng());
    }
    const ImageId id = db.add("image.png", image);
    const auto stored = db.keypoints(id);
    ASSERT_TRUE(stored.has_value());
    std::vector<int> order(n);
    for (int k = 0; k < n; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return image.words[a] < image.words[b]; });
    ASSERT_EQ(stored->words.size(), static_cast<std::size_t>(n)) << words << " words";
    for (int k = 0; k < n; ++k) {
      const int from = order[k];
      EXPECT_EQ(stored->words[k], image.words[from]) << words << " words, keypoint " << k;
      EXPECT_EQ(stored->signatures[k], image.signatures[from]) << words << " words, keypoint " << k;
      EXPECT_NEAR(stored->points[k].x, image.points[from].x, 0.02) << words << " words, keypoint " << k;
    }
  }
}

TEST(KeypointDatabase, SavesAndLoadsEveryKeypointWithinItsQuantisation) {
  TempDir dir;
  const KeypointDatabase made = keypointDatabase();
  made.database.save(dir.file("db.bovwdb"));
  const ImageDatabase loaded = ImageDatabase::load(dir.file("db.bovwdb"));
  ASSERT_TRUE(loaded.storesKeypoints());
  for (std::size_t i = 0; i < made.images.names.size(); ++i) {
    const ImageWords& original = made.images.words[i];
    const auto stored = loaded.keypoints(*loaded.index().find(made.images.names[i]));
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->image_size, original.image_size);
    ASSERT_EQ(stored->points.size(), original.points.size());
    // Stored in word order: match each stored keypoint with an original one of the same word and
    // signature within the quantisation step (1/65535 of the side).
    std::multimap<std::pair<int, std::uint64_t>, cv::Point2f> by_key;
    for (std::size_t k = 0; k < original.points.size(); ++k)
      by_key.emplace(std::make_pair(original.words[k], original.signatures[k]), original.points[k]);
    EXPECT_TRUE(std::is_sorted(stored->words.begin(), stored->words.end()));
    const double step_x = original.image_size.width / 65535.0, step_y = original.image_size.height / 65535.0;
    for (std::size_t k = 0; k < stored->points.size(); ++k) {
      const auto [begin, end] = by_key.equal_range({stored->words[k], stored->signatures[k]});
      const bool found = std::any_of(begin, end, [&](const auto& entry) {
        return std::abs(entry.second.x - stored->points[k].x) <= step_x &&
               std::abs(entry.second.y - stored->points[k].y) <= step_y;
      });
      EXPECT_TRUE(found) << "keypoint " << k << " of " << made.images.names[i];
    }
  }
  // The same query verifies the same way before and after the round trip.
  const auto ranking = made.database.index().query(made.images.histograms.row(1), 3);
  const auto before = made.database.verify(made.images.words[1], ranking, VerificationOptions());
  const auto after = loaded.verify(made.images.words[1], loaded.index().query(made.images.histograms.row(1), 3),
                                   VerificationOptions());
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].name, after[i].name);
    EXPECT_NEAR(before[i].inliers, after[i].inliers, 2);  // quantisation may move a borderline pair
  }
}

TEST(KeypointDatabase, AddAndRemoveKeepKeypointsWithTheirImagesAndRefuseBadWords) {
  KeypointDatabase made = keypointDatabase();
  ImageDatabase& database = made.database;
  const std::string name = made.images.names[0];
  const ImageId id = *database.index().find(name);
  ASSERT_TRUE(database.keypoints(id).has_value());

  // A histogram alone would leave the image without keypoints.
  EXPECT_THROW(database.add("histogram_only.png", made.images.histograms.row(0)), InvalidInput);
  ImageWords bad = made.images.words[0];
  bad.words[0] = made.vocabulary.size();  // one past the last word
  EXPECT_THROW(database.add("bad_word.png", bad), InvalidInput);
  bad = made.images.words[0];
  bad.signatures.pop_back();
  EXPECT_THROW(database.add("bad_signatures.png", bad), InvalidInput);
  bad = made.images.words[0];
  bad.points[0] = cv::Point2f(-50, 3);
  EXPECT_THROW(database.add("outside.png", bad), InvalidInput);
  EXPECT_EQ(database.index().size(), 3u);  // nothing half-added
  EXPECT_FALSE(database.index().find("bad_word.png").has_value());

  database.remove(name);
  EXPECT_FALSE(database.keypoints(id).has_value());
  const ImageId again = database.add(name, made.images.words[0]);
  EXPECT_NE(again, id);  // ids are never reused
  EXPECT_TRUE(database.keypoints(again).has_value());
}

TEST(KeypointDatabase, VerificationFromSeveralThreadsWhileImagesComeAndGo) {
  // verify() reads the keypoints under a shared lock; add/remove write them: the answers for the
  // images that stay must not change while others are added and removed.
  KeypointDatabase made = keypointDatabase();
  ImageDatabase& database = made.database;
  const auto ranking = database.index().query(made.images.histograms.row(1), 3);
  const auto expected = database.verify(made.images.words[1], ranking, VerificationOptions());
  std::atomic<bool> writing{true};
  std::atomic<int> mismatches{0}, calls{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t)
    readers.emplace_back([&] {
      while (writing.load()) {
        const auto got = database.verify(made.images.words[1], ranking, VerificationOptions());
        bool same = got.size() == expected.size();
        for (std::size_t i = 0; same && i < got.size(); ++i)
          same = got[i].id == expected[i].id && got[i].inliers == expected[i].inliers;
        if (!same) mismatches.fetch_add(1);
        calls.fetch_add(1);
      }
    });
  for (int round = 0; round < 30; ++round) {
    const std::string name = "copy_" + std::to_string(round) + ".png";
    database.add(name, made.images.words[2]);
    if (round % 2 == 1) database.remove(name);
  }
  while (calls.load() < 6) std::this_thread::yield();
  writing.store(false);
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(database.index().size(), 3u + 15u);
}

TEST(KeypointDatabase, MalformedKeypointBlocksAreInvalidInputNamingThem) {
  TempDir dir;
  const KeypointDatabase made = keypointDatabase();
  made.database.save(dir.file("db.bovwdb"));
  const std::vector<char> bytes = readBytes(dir.file("db.bovwdb"));
  // Layout: ... u64 keypoint block length, block, u64 checksum. The block starts with u32 slots,
  // then the first image's u32 keypoint count.
  std::uint64_t block_length = 0;
  std::size_t block_offset = 0;
  for (std::size_t offset = 16; offset + 8 <= bytes.size(); ++offset) {
    std::uint64_t length;
    std::memcpy(&length, bytes.data() + offset, 8);
    if (offset + 8 + length + 8 == bytes.size()) {
      block_length = length;
      block_offset = offset + 8;
    }
  }
  ASSERT_GT(block_length, 0u);
  auto loadForged = [&](std::size_t offset, std::uint32_t value) {
    std::vector<char> forged = bytes;
    std::memcpy(forged.data() + offset, &value, 4);
    writeBytes(dir.file("forged.bovwdb"), resealed(forged));
    ImageDatabase::load(dir.file("forged.bovwdb"));
  };
  for (const auto& [offset, value] : std::vector<std::pair<std::size_t, std::uint32_t>>{
           {block_offset, 0x7fffffffu},     // more image slots than bytes
           {block_offset + 4, 0x7ffffffeu},  // more keypoints than bytes
           {block_offset + 16, 0xffffffu}}) {  // the first keypoint's word beyond K
    try {
      loadForged(offset, value);
      ADD_FAILURE() << "forged value " << value << " at " << offset << " accepted";
    } catch (const InvalidInput& e) {
      EXPECT_TRUE(contains(e.what(), "keypoint")) << e.what();
      EXPECT_TRUE(contains(e.what(), "forged.bovwdb")) << e.what();
    }
  }
  // Every truncation of the file is refused, none crashes.
  for (std::size_t size = 0; size < bytes.size(); size += 7) {
    writeBytes(dir.file("cut.bovwdb"), bytes.data(), size);
    EXPECT_THROW(ImageDatabase::load(dir.file("cut.bovwdb")), InvalidInput) << size << " bytes";
  }
}

TEST(DatabaseWithoutKeypoints, VerificationIsRefusedWithTheReason) {
  const KeypointDatabase made = keypointDatabase();
  ImageDatabase plain(made.vocabulary, FeatureSpec("surf"));
  EXPECT_FALSE(plain.storesKeypoints());
  plain.add(made.images.names[0], made.images.words[0]);  // words make the histogram
  EXPECT_FALSE(plain.keypoints(0).has_value());
  try {
    plain.verify(made.images.words[0], plain.index().query(made.images.histograms.row(0), 1), VerificationOptions());
    ADD_FAILURE() << "verified without keypoints";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "stores no keypoints")) << e.what();
  }
}

TEST(DatabaseWithoutKeypoints, AVersion3FileWrittenBeforeKeypointsLoadsAndSearchesAsANewOne) {
  // tests/data/formats/README.md: v3.bovwdb indexes box.png and graf1_gray.png with v3_words.bovw.
  const ImageDatabase old = ImageDatabase::load(kFormats + "v3.bovwdb");
  EXPECT_FALSE(old.storesKeypoints());
  const Vocabulary vocabulary = loadVocabulary(kFormats + "v3_words.bovw");
  old.index().checkVocabulary(vocabulary);
  const std::vector<std::string> paths{dataFile("box.png"), dataFile("graf1_gray.png")};
  const ImageHistograms images = wordsOf(paths, vocabulary);
  ImageDatabase fresh(vocabulary, FeatureSpec("surf"));
  for (std::size_t i = 0; i < images.names.size(); ++i) fresh.add(images.names[i], images.histograms.row(i));
  for (std::size_t q = 0; q < images.names.size(); ++q)
    for (Scoring scoring : {Scoring::Cosine, Scoring::Intersection}) {
      const auto a = old.index().query(images.histograms.row(static_cast<Eigen::Index>(q)), 2, scoring);
      const auto b = fresh.index().query(images.histograms.row(static_cast<Eigen::Index>(q)), 2, scoring);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t r = 0; r < a.size(); ++r) {
        EXPECT_EQ(fileName(a[r].name), fileName(b[r].name));
        EXPECT_NEAR(a[r].score, b[r].score, 1e-12);
      }
    }
}

}  // namespace
}  // namespace bovw::test
