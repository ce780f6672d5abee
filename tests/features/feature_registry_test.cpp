// The feature registry and specs: normalisation, canonical text, errors naming what is valid; the
// cv::Feature2D entry (a kind registered here); ORB's unpacked bits against OpenCV's own Hamming
// distance, in the histogram core too.
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/feature2d_extractor.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/histogrammer.hpp>

#include <algorithm>

namespace bovw::test {
namespace {

std::string failure(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidInput& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidInput";
  return "";
}

TEST(FeatureSpec, CanonicalTextRoundTrips) {
  FeatureSpec spec("orb");
  spec.setInteger("nfeatures", 1000).setReal("scale_factor", 1.5).setFlag("upright", true);
  EXPECT_EQ(spec.toString(), "orb nfeatures=1000 scale_factor=1.5 upright=true");
  EXPECT_EQ(FeatureSpec::parse(spec.toString()), spec);
  EXPECT_EQ(FeatureSpec::parse("  orb   upright=true nfeatures=1000  scale_factor=1.5 "), spec);
  EXPECT_EQ(FeatureSpec::parse("surf").toString(), "surf");
  EXPECT_EQ(spec.integer("nfeatures"), 1000);
  EXPECT_EQ(spec.real("scale_factor"), 1.5);
  EXPECT_TRUE(spec.flag("upright"));
}

TEST(FeatureSpec, RealsAreWrittenShortestAndReadBackExactly) {
  for (double value : {100.0, 0.1, 1.2, 1e-7, 321.5, 1.0 / 3.0, 6.02214076e23}) {
    const std::string text = canonicalReal(value);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
  }
  EXPECT_EQ(canonicalReal(100.0), "100");
  EXPECT_EQ(canonicalReal(0.1), "0.1");
  EXPECT_EQ(canonicalReal(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(canonicalReal(1e-7), "1e-07");
}

TEST(FeatureSpec, MalformedTextIsRefused) {
  for (const char* bad : {"", "   ", "ORB", "orb nfeatures", "orb nfeatures=", "orb =5", "orb n=1 n=2",
                          "orb nfeatures=1,000", "orb x=a=b", "2orb"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_THROW(FeatureSpec::parse(bad), InvalidInput);
  }
  EXPECT_THROW(FeatureSpec("orb").set("n", "1 2"), InvalidInput);
  EXPECT_THROW(FeatureSpec("orb").setReal("x", std::numeric_limits<double>::infinity()), InvalidInput);
  const FeatureSpec spec = FeatureSpec::parse("orb a=1.5 b=yes c=12x");
  EXPECT_THROW(spec.integer("a"), InvalidInput);
  EXPECT_THROW(spec.flag("b"), InvalidInput);
  EXPECT_THROW(spec.real("c"), InvalidInput);
  EXPECT_TRUE(contains(failure([&] { spec.value("d"); }), "'d'"));
}

TEST(FeatureRegistry, BuiltInKinds) {
  const std::vector<std::string> names = featureKindNames();
  for (const char* kind : {"orb", "sift", "surf"})
    EXPECT_NE(std::find(names.begin(), names.end(), kind), names.end()) << kind;
  const std::string message = failure([] { makeFeatureExtractor(FeatureSpec("brief")); });
  EXPECT_TRUE(contains(message, "'brief'") && contains(message, "orb") && contains(message, "surf")) << message;
}

TEST(FeatureRegistry, NormalisingFillsDefaultsInCanonicalForm) {
  EXPECT_EQ(normalizeFeatureSpec(FeatureSpec()).toString(),
            "surf extended=false hessian_threshold=100 octave_layers=3 octaves=4 upright=false");
  EXPECT_EQ(normalizeFeatureSpec(FeatureSpec::parse("surf hessian_threshold=250.000 extended=1")).toString(),
            "surf extended=true hessian_threshold=250 octave_layers=3 octaves=4 upright=false");
  EXPECT_EQ(normalizeFeatureSpec(FeatureSpec::parse("orb nfeatures=1000")).toString(),
            "orb edge_threshold=31 fast_threshold=20 nfeatures=1000 nlevels=8 patch_size=31 scale_factor=1.2");
  // SurfParams and the spec, both ways.
  SurfParams params;
  params.hessian_threshold = 321.5;
  params.octaves = 3;
  params.upright = true;
  const SurfParams back = surfParams(surfFeatureSpec(params));
  EXPECT_EQ(back.hessian_threshold, 321.5);
  EXPECT_EQ(back.octaves, 3);
  EXPECT_EQ(back.octave_layers, 3);
  EXPECT_TRUE(back.upright);
  EXPECT_FALSE(back.extended);
}

TEST(FeatureRegistry, BadParametersNameWhatIsValid) {
  std::string message = failure([] { normalizeFeatureSpec(FeatureSpec::parse("orb n_features=10")); });
  EXPECT_TRUE(contains(message, "n_features") && contains(message, "nfeatures")) << message;
  message = failure([] { normalizeFeatureSpec(FeatureSpec::parse("orb nlevels=0")); });
  EXPECT_TRUE(contains(message, "nlevels=0") && contains(message, "range")) << message;
  message = failure([] { normalizeFeatureSpec(FeatureSpec::parse("surf octaves=2.5")); });
  EXPECT_TRUE(contains(message, "octaves=2.5") && contains(message, "integer")) << message;
  message = failure([] { normalizeFeatureSpec(FeatureSpec::parse("surf upright=maybe")); });
  EXPECT_TRUE(contains(message, "upright")) << message;
  EXPECT_THROW(normalizeFeatureSpec(FeatureSpec::parse("surf hessian_threshold=-1")), InvalidInput);
  EXPECT_THROW(surfParams(FeatureSpec("orb")), InvalidInput);
}

TEST(Feature2DExtractor, OneRegistrationMakesANewKind) {
  // KAZE (float32, 64-D) through the generic entry: after one call it is a kind like the others.
  registerFeature2D(
      "kaze", "KAZE, OpenCV's", {{"threshold", FeatureParameter::Type::Real, "0.001", 0, 1, "detector response"}},
      [](const FeatureSpec& spec) { return cv::KAZE::create(false, false, static_cast<float>(spec.real("threshold"))); },
      DescriptorConversion::Float32);
  const auto kaze = makeFeatureExtractor(FeatureSpec("kaze"));
  EXPECT_EQ(kaze->descriptorType().toString(), "kaze64");
  const cv::Mat box = loadImage(dataFile("box.png"));
  const cv::Mat d = kaze->extract(box);
  EXPECT_GT(d.rows, 10);
  EXPECT_EQ(d.cols, 64);
  EXPECT_EQ(d.type(), CV_32F);
  // The same detector run directly gives the same descriptors.
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat direct;
  cv::KAZE::create(false, false, 0.001f)->detectAndCompute(box, cv::noArray(), keypoints, direct);
  ASSERT_EQ(direct.size(), d.size());
  EXPECT_EQ(cv::norm(direct, d, cv::NORM_INF), 0.0);
  // A conversion that does not fit the detector's descriptors is refused when made.
  EXPECT_THROW(Feature2DExtractor("kaze", [] { return cv::KAZE::create(); }, DescriptorConversion::UnpackBits),
               InvalidInput);
  EXPECT_THROW(Feature2DExtractor("orb", [] { return cv::ORB::create(); }, DescriptorConversion::Float32), InvalidInput);
}

TEST(UnpackBinaryDescriptors, LeastSignificantBitFirst) {
  const cv::Mat packed = (cv::Mat_<unsigned char>(2, 2) << 0x05, 0x80, 0xFF, 0x00);
  const cv::Mat unpacked = unpackBinaryDescriptors(packed);
  ASSERT_EQ(unpacked.size(), cv::Size(16, 2));
  ASSERT_EQ(unpacked.type(), CV_32F);
  const float row0[16] = {1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(unpacked.at<float>(0, c), row0[c]) << c;
    EXPECT_EQ(unpacked.at<float>(1, c), c < 8 ? 1.0f : 0.0f) << c;
  }
  EXPECT_THROW(unpackBinaryDescriptors(cv::Mat(2, 2, CV_32F, cv::Scalar(0))), InvalidInput);
  EXPECT_EQ(unpackBinaryDescriptors(cv::Mat()).rows, 0);
}

// OpenCV's own ORB on a real image: the reference packed descriptors.
cv::Mat openCvOrb(const cv::Mat& image) {
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat packed;
  cv::ORB::create()->detectAndCompute(image, cv::noArray(), keypoints, packed);
  return packed;
}

TEST(OrbFeatures, SquaredL2OfTheUnpackedBitsIsOpenCvsHammingDistance) {
  const cv::Mat box = loadImage(dataFile("box.png"));
  const cv::Mat packed = openCvOrb(box);
  ASSERT_GT(packed.rows, 100);
  ASSERT_EQ(packed.cols, 32);
  const cv::Mat unpacked = makeFeatureExtractor(FeatureSpec("orb"))->extract(box);
  ASSERT_EQ(unpacked.rows, packed.rows);
  ASSERT_EQ(unpacked.cols, 256);
  EXPECT_EQ(cv::norm(unpacked, unpackBinaryDescriptors(packed), cv::NORM_INF), 0.0);
  int differing_pairs = 0;
  for (int i = 0; i < 60; ++i) {
    for (int j = 0; j < packed.rows; j += 7) {
      const double hamming = cv::norm(packed.row(i), packed.row(j), cv::NORM_HAMMING);
      float squared = 0;  // in float, as the core sums: every partial sum is a small integer, exact
      for (int c = 0; c < 256; ++c) {
        const float d = unpacked.at<float>(i, c) - unpacked.at<float>(j, c);
        squared += d * d;
      }
      ASSERT_EQ(static_cast<double>(squared), hamming) << "rows " << i << ", " << j;
      differing_pairs += hamming > 0;
    }
  }
  EXPECT_GT(differing_pairs, 1000);  // real distances, not only zeros
}

TEST(OrbFeatures, TheFloatCoreAssignsEachDescriptorToItsNearestWordByHamming) {
  const cv::Mat packed = openCvOrb(loadImage(dataFile("graf1_gray.png")));
  ASSERT_GT(packed.rows, 200);
  const int words = 40;
  const Descriptors unpacked = toDescriptors(unpackBinaryDescriptors(packed));
  const Vocabulary vocabulary(unpacked.topRows(words), DescriptorType("orb", 256, DescriptorElement::BinaryUnpacked));
  const Descriptors queries = unpacked.bottomRows(unpacked.rows() - words);
  for (Backend backend : {Backend::OpenMP, Backend::OpenMPTiled}) {
    HistogrammerConfig config;
    config.backend = backend;
    const std::vector<std::int32_t> assigned = makeHistogrammer(config)->assign(queries, vocabulary);
    ASSERT_EQ(assigned.size(), static_cast<std::size_t>(queries.rows()));
    for (int q = 0; q < queries.rows(); ++q) {
      // OpenCV's Hamming distances; ties to the lower word, bovw's rule.
      int best = 0;
      double best_distance = 1e9;
      for (int w = 0; w < words; ++w) {
        const double d = cv::norm(packed.row(words + q), packed.row(w), cv::NORM_HAMMING);
        if (d < best_distance) best_distance = d, best = w;
      }
      ASSERT_EQ(assigned[static_cast<std::size_t>(q)], best) << toString(backend) << ", descriptor " << q;
    }
  }
}

}  // namespace
}  // namespace bovw::test
