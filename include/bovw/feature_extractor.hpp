// The descriptors an image pipeline extracts: SURF (bovw's own or OpenCV's) or SIFT (OpenCV's,
// in every OpenCV build since 4.4), behind one small interface that names its descriptor type so
// vocabularies can refuse descriptors of another kind.
#pragma once

#include <bovw/surf.hpp>

#include <opencv2/core.hpp>

#include <memory>
#include <string>

namespace bovw {

enum class FeatureKind { Surf, Sift };

// "surf", "sift"; parse throws InvalidInput listing the valid names.
std::string featureKindName(FeatureKind kind);
FeatureKind parseFeatureKind(const std::string& name);

class FeatureExtractor {
 public:
  // SURF uses `surf` (and its backend); SIFT uses OpenCV's defaults.
  static std::unique_ptr<FeatureExtractor> create(FeatureKind kind, const SurfParams& surf = SurfParams(),
                                                  SurfBackend surf_backend = SurfBackend::Auto);
  virtual ~FeatureExtractor() = default;

  // "surf64", "surf128" (extended) or "sift128": recorded in vocabularies and indexes.
  virtual std::string descriptorType() const = 0;
  virtual int descriptorSize() const = 0;

  // N x descriptorSize() CV_32F descriptors of a gray 8- or 16-bit image (0 rows when it has no
  // features). Safe to call from several threads at once.
  virtual cv::Mat extract(const cv::Mat& image) const = 0;
};

}  // namespace bovw
