// The interface of every feature extractor: descriptors of an image as float32 rows, with the
// DescriptorType that vocabularies record and check. Extractors are made from a FeatureSpec by the
// registry (bovw/feature_registry.hpp).
#pragma once

#include <bovw/descriptor_type.hpp>

#include <opencv2/core.hpp>

namespace bovw {

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;

  // surf64, surf128 (extended), sift128, orb256-binary, ...: recorded in vocabularies and indexes.
  // Its width is descriptorSize().
  virtual DescriptorType descriptorType() const = 0;
  virtual int descriptorSize() const = 0;

  // N x descriptorSize() CV_32F descriptors of an 8- or 16-bit gray or colour image (0 rows when it
  // has no features). Safe to call from several threads at once.
  virtual cv::Mat extract(const cv::Mat& image) const = 0;
};

}  // namespace bovw
