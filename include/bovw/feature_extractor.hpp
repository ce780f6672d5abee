// The interface of every feature extractor: descriptors of an image as float32 rows, with the
// DescriptorType that vocabularies record and check, and where in the image each was found (what
// geometric verification needs). Extractors are made from a FeatureSpec by the registry
// (bovw/feature_registry.hpp).
#pragma once

#include <bovw/descriptor_type.hpp>

#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace bovw {

class FeatureExtractor;

namespace detail {
// The device seam (src/features/opencl/device_features.hpp): what an extractor whose features are
// computed on an OpenCL device offers the fused images-to-histograms route. Internal to bovw.
class DeviceFeatures;
const DeviceFeatures* deviceFeaturesOf(const FeatureExtractor& extractor);
}  // namespace detail

// One image's features: descriptor row i was computed at keypoints[i].
struct ImageFeatures {
  cv::Mat descriptors;                  // N x descriptorSize() CV_32F (0 rows: no features)
  std::vector<cv::KeyPoint> keypoints;  // N, in the pixel coordinates of the image given
};

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;

  // surf64, surf128 (extended), sift128, orb256-binary, ...: recorded in vocabularies and indexes.
  // Its width is descriptorSize().
  virtual DescriptorType descriptorType() const = 0;
  virtual int descriptorSize() const = 0;

  // Features of an 8- or 16-bit gray or colour image. Safe to call from several threads at once.
  virtual ImageFeatures extractFeatures(const cv::Mat& image) const = 0;

  // Features of several images, each as extractFeatures gives it. SURF on an OpenCL device runs them
  // as one batch (one launch per stage for all of them, so that small images still fill a GPU:
  // docs/SURF.md); by default the images are taken one after another.
  virtual std::vector<ImageFeatures> extractFeaturesBatch(const std::vector<cv::Mat>& images) const;

  // The descriptors alone.
  cv::Mat extract(const cv::Mat& image) const { return extractFeatures(image).descriptors; }

  // Human-readable: what extracts and how ("SURF backend opencl"); by default descriptorType()'s name.
  virtual std::string description() const;

 private:
  // The device seam, asked for through detail::deviceFeaturesOf: null unless the features are
  // computed on an OpenCL device.
  friend const detail::DeviceFeatures* detail::deviceFeaturesOf(const FeatureExtractor& extractor);
  virtual const detail::DeviceFeatures* deviceFeatures() const { return nullptr; }
};

}  // namespace bovw
