// FeatureExtractor: the descriptor types and widths vocabularies record, SURF and SIFT on real
// images, images without features, concurrent use, and the feature-kind names.
#include "retrieval/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/feature_extractor.hpp>

#include <cmath>
#include <thread>

namespace bovw::test {
namespace {

std::unique_ptr<FeatureExtractor> make(FeatureKind kind, bool extended = false) {
  SurfParams params;
  params.extended = extended;
  return FeatureExtractor::create(kind, params, SurfBackend::Builtin);
}

bool allFinite(const cv::Mat& m) { return cv::checkRange(m); }

TEST(FeatureExtractor, TypesAndWidths) {
  EXPECT_EQ(make(FeatureKind::Surf)->descriptorType(), "surf64");
  EXPECT_EQ(make(FeatureKind::Surf)->descriptorSize(), 64);
  EXPECT_EQ(make(FeatureKind::Surf, true)->descriptorType(), "surf128");
  EXPECT_EQ(make(FeatureKind::Surf, true)->descriptorSize(), 128);
  EXPECT_EQ(make(FeatureKind::Sift)->descriptorType(), "sift128");
  EXPECT_EQ(make(FeatureKind::Sift)->descriptorSize(), 128);
  // The default SURF backend (Auto) names the same type.
  EXPECT_EQ(FeatureExtractor::create(FeatureKind::Surf)->descriptorType(), "surf64");
}

TEST(FeatureExtractor, SurfAndSiftDescribeBoxPng) {
  const cv::Mat box = loadImage(dataFile("box.png"));
  for (const auto& [kind, extended] : {std::pair{FeatureKind::Surf, false}, std::pair{FeatureKind::Surf, true},
                                       std::pair{FeatureKind::Sift, false}}) {
    const auto extractor = make(kind, extended);
    SCOPED_TRACE(extractor->descriptorType());
    const cv::Mat d = extractor->extract(box);
    EXPECT_GT(d.rows, 50) << "box.png has hundreds of features";
    EXPECT_EQ(d.cols, extractor->descriptorSize());
    EXPECT_EQ(d.type(), CV_32F);
    EXPECT_TRUE(allFinite(d));
    // Deterministic: the same image gives the same descriptors.
    const cv::Mat again = extractor->extract(box);
    ASSERT_EQ(again.size(), d.size());
    EXPECT_EQ(cv::norm(again, d, cv::NORM_INF), 0.0);
  }
}

TEST(FeatureExtractor, SiftTakesSixteenBitImagesAsTheirEightBitScale) {
  const cv::Mat box = loadImage(dataFile("box.png"));
  cv::Mat box16;
  box.convertTo(box16, CV_16U, 257.0);  // 255 -> 65535: the 1/257 scaling maps it back exactly
  const auto sift = make(FeatureKind::Sift);
  const cv::Mat a = sift->extract(box), b = sift->extract(box16);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0.0);
}

TEST(FeatureExtractor, AnImageWithoutFeaturesGivesZeroRowsOfTheRightWidth) {
  const cv::Mat flat(200, 260, CV_8UC1, cv::Scalar(128));
  for (const auto& [kind, extended] : {std::pair{FeatureKind::Surf, false}, std::pair{FeatureKind::Surf, true},
                                       std::pair{FeatureKind::Sift, false}}) {
    const auto extractor = make(kind, extended);
    SCOPED_TRACE(extractor->descriptorType());
    const cv::Mat d = extractor->extract(flat);
    EXPECT_EQ(d.rows, 0);
    // feature_extractor.hpp: "N x descriptorSize() CV_32F descriptors (0 rows when it has no features)".
    EXPECT_EQ(d.cols, extractor->descriptorSize());
    EXPECT_EQ(d.type(), CV_32F);
  }
}

TEST(FeatureExtractor, ConcurrentCallsGiveTheSameDescriptors) {
  const cv::Mat box = loadImage(dataFile("box.png"));
  const cv::Mat graf = loadImage(dataFile("graf1_gray.png"))(cv::Rect(0, 0, 400, 300)).clone();
  for (FeatureKind kind : {FeatureKind::Surf, FeatureKind::Sift}) {
    const auto extractor = make(kind);
    SCOPED_TRACE(extractor->descriptorType());
    const cv::Mat box_alone = extractor->extract(box), graf_alone = extractor->extract(graf);
    cv::Mat results[4];
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] { results[t] = extractor->extract(t % 2 ? graf : box); });
    for (auto& t : threads) t.join();
    for (int t = 0; t < 4; ++t) {
      const cv::Mat& alone = t % 2 ? graf_alone : box_alone;
      ASSERT_EQ(results[t].size(), alone.size()) << "thread " << t;
      EXPECT_EQ(cv::norm(results[t], alone, cv::NORM_INF), 0.0) << "thread " << t;
    }
  }
}

TEST(FeatureExtractor, EmptyImageIsInvalidInput) {
  EXPECT_THROW(make(FeatureKind::Surf)->extract(cv::Mat()), InvalidInput);
  EXPECT_THROW(make(FeatureKind::Sift)->extract(cv::Mat()), InvalidInput);
}

TEST(FeatureKindNames, ParseAndName) {
  EXPECT_EQ(parseFeatureKind("surf"), FeatureKind::Surf);
  EXPECT_EQ(parseFeatureKind("sift"), FeatureKind::Sift);
  EXPECT_EQ(featureKindName(FeatureKind::Surf), "surf");
  EXPECT_EQ(featureKindName(FeatureKind::Sift), "sift");
  for (const char* bad : {"orb", "", "SURF", "sift128"}) {
    try {
      parseFeatureKind(bad);
      ADD_FAILURE() << "'" << bad << "' parsed";
    } catch (const InvalidInput& e) {
      EXPECT_TRUE(contains(e.what(), "surf") && contains(e.what(), "sift")) << "lists the valid names: " << e.what();
      if (*bad) {
        EXPECT_TRUE(contains(e.what(), bad)) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace bovw::test
