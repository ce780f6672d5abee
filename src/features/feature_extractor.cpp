// FeatureExtractor's defaults, and the accessor of its device seam.
#include <bovw/feature_extractor.hpp>

namespace bovw {

std::vector<ImageFeatures> FeatureExtractor::extractFeaturesBatch(const std::vector<cv::Mat>& images) const {
  std::vector<ImageFeatures> features;
  features.reserve(images.size());
  for (const cv::Mat& image : images) features.push_back(extractFeatures(image));
  return features;
}

std::string FeatureExtractor::description() const {
  return descriptorType().toString();
}

namespace detail {

const DeviceFeatures* deviceFeaturesOf(const FeatureExtractor& extractor) {
  return extractor.deviceFeatures();
}

}  // namespace detail

}  // namespace bovw
