// FeatureExtractor: the descriptor types and widths vocabularies record, SURF, SIFT and ORB on real
// images, images without features, concurrent use.
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>

#include <cmath>
#include <thread>

namespace bovw::test {
namespace {

std::unique_ptr<FeatureExtractor> make(const std::string& kind, bool extended = false) {
  FeatureSpec spec(kind);
  if (extended) spec.set("extended", "true");
  ExtractorOptions options;
  options.surf_backend = SurfBackend::Builtin;
  return makeFeatureExtractor(spec, options);
}

// Every built-in kind, SURF also extended.
const std::vector<std::pair<std::string, bool>> kAllKinds = {{"surf", false}, {"surf", true}, {"sift", false}, {"orb", false}};

bool allFinite(const cv::Mat& m) { return cv::checkRange(m); }

TEST(FeatureExtractor, TypesAndWidths) {
  EXPECT_EQ(make("surf")->descriptorType(), DescriptorType("surf", 64));
  EXPECT_EQ(make("surf")->descriptorSize(), 64);
  EXPECT_EQ(make("surf", true)->descriptorType(), DescriptorType("surf", 128));
  EXPECT_EQ(make("surf", true)->descriptorSize(), 128);
  EXPECT_EQ(make("sift")->descriptorType(), DescriptorType("sift", 128));
  EXPECT_EQ(make("sift")->descriptorSize(), 128);
  EXPECT_EQ(make("orb")->descriptorType(), DescriptorType("orb", 256, DescriptorElement::BinaryUnpacked));
  EXPECT_EQ(make("orb")->descriptorSize(), 256);
  // The names files record: those of earlier versions for SURF and SIFT.
  EXPECT_EQ(make("surf")->descriptorType().toString(), "surf64");
  EXPECT_EQ(make("surf", true)->descriptorType().toString(), "surf128");
  EXPECT_EQ(make("sift")->descriptorType().toString(), "sift128");
  EXPECT_EQ(make("orb")->descriptorType().toString(), "orb256-binary");
  // The default SURF backend (Auto) names the same type as the builtin one above.
  EXPECT_EQ(makeFeatureExtractor(FeatureSpec())->descriptorType(), DescriptorType("surf", 64));
}

TEST(FeatureExtractor, EveryKindDescribesBoxPng) {
  const cv::Mat box = loadImage(dataFile("box.png"));
  for (const auto& [kind, extended] : kAllKinds) {
    const auto extractor = make(kind, extended);
    SCOPED_TRACE(extractor->descriptorType().toString());
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
  const auto sift = make("sift");
  const cv::Mat a = sift->extract(box), b = sift->extract(box16);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0.0);
}

TEST(FeatureExtractor, AnImageWithoutFeaturesGivesZeroRowsOfTheRightWidth) {
  const cv::Mat flat(200, 260, CV_8UC1, cv::Scalar(128));
  for (const auto& [kind, extended] : kAllKinds) {
    const auto extractor = make(kind, extended);
    SCOPED_TRACE(extractor->descriptorType().toString());
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
  for (const auto& [kind, extended] : kAllKinds) {
    const auto extractor = make(kind, extended);
    SCOPED_TRACE(extractor->descriptorType().toString());
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
  for (const auto& [kind, extended] : kAllKinds) EXPECT_THROW(make(kind, extended)->extract(cv::Mat()), InvalidInput) << kind;
}

}  // namespace
}  // namespace bovw::test
