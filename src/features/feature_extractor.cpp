// FeatureExtractor: SURF through SurfExtractor, SIFT through OpenCV's cv::SIFT.
#include <bovw/error.hpp>
#include <bovw/feature_extractor.hpp>

#include <opencv2/features2d.hpp>

namespace bovw {

namespace {

class SurfFeatures final : public FeatureExtractor {
 public:
  SurfFeatures(const SurfParams& params, SurfBackend backend) : surf_(SurfExtractor::create(params, backend)) {}
  std::string descriptorType() const override { return "surf" + std::to_string(descriptorSize()); }
  int descriptorSize() const override { return surf_->descriptorSize(); }
  cv::Mat extract(const cv::Mat& image) const override {
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
    surf_->detectAndCompute(image, cv::noArray(), keypoints, descriptors);
    return descriptors;
  }

 private:
  std::unique_ptr<SurfExtractor> surf_;
};

class SiftFeatures final : public FeatureExtractor {
 public:
  std::string descriptorType() const override { return "sift128"; }
  int descriptorSize() const override { return 128; }
  cv::Mat extract(const cv::Mat& image) const override {
    // A cv::SIFT object is not documented as safe for concurrent calls: one per call (cheap).
    auto sift = cv::SIFT::create();
    cv::Mat gray = toSurfGray(image);  // SIFT wants 8-bit gray too
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
    sift->detectAndCompute(gray, cv::noArray(), keypoints, descriptors);
    if (descriptors.empty()) return cv::Mat(0, 128, CV_32F);
    return descriptors;
  }
};

}  // namespace

std::string featureKindName(FeatureKind kind) { return kind == FeatureKind::Surf ? "surf" : "sift"; }

FeatureKind parseFeatureKind(const std::string& name) {
  if (name == "surf") return FeatureKind::Surf;
  if (name == "sift") return FeatureKind::Sift;
  throw InvalidInput("unknown feature kind '" + name + "'; valid: surf, sift");
}

std::unique_ptr<FeatureExtractor> FeatureExtractor::create(FeatureKind kind, const SurfParams& surf,
                                                           SurfBackend surf_backend) {
  if (kind == FeatureKind::Sift) return std::make_unique<SiftFeatures>();
  return std::make_unique<SurfFeatures>(surf, surf_backend);
}

}  // namespace bovw
