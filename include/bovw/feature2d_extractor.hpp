// Any OpenCV cv::Feature2D as a bovw feature extractor, with the conversion that brings its
// descriptors to the float32 rows the histogram core takes. SIFT and ORB are registered this way;
// an application adds another detector with one registerFeature2D call.
#pragma once

#include <bovw/feature_registry.hpp>

#include <opencv2/features2d.hpp>

#include <functional>
#include <string>
#include <vector>

namespace bovw {

enum class DescriptorConversion {
  Float32,     // CV_32F descriptors, taken as they are (SIFT, KAZE)
  UnpackBits,  // CV_8U binary descriptors (ORB, BRISK, AKAZE's MLDB): each byte to 8 floats of 0 or 1
};

// Binary descriptors (N x B CV_8U) unpacked to N x 8B CV_32F: bit j (least significant first) of byte
// b becomes column 8b + j, 1.0f where set, else 0.0f. The squared L2 distance of two unpacked rows is
// then the Hamming distance of the packed ones, exactly (a sum of at most 8B ones, exact in float).
// Throws InvalidInput unless `packed` is empty or single-channel CV_8U.
cv::Mat unpackBinaryDescriptors(const cv::Mat& packed);

class Feature2DExtractor final : public FeatureExtractor {
 public:
  // `make` returns a new detector on every call (each extractFeatures() uses its own, as OpenCV does not
  // promise that one Feature2D serves concurrent calls). Its descriptors must match `conversion`
  // (CV_32F for Float32, CV_8U for UnpackBits): checked here, throwing InvalidInput.
  Feature2DExtractor(std::string family, std::function<cv::Ptr<cv::Feature2D>()> make, DescriptorConversion conversion);

  DescriptorType descriptorType() const override;
  int descriptorSize() const override { return width_; }
  // Runs detectAndCompute on the image as 8-bit gray (toSurfGray: colour and 16-bit are converted).
  ImageFeatures extractFeatures(const cv::Mat& image) const override;

 private:
  std::string family_;
  std::function<cv::Ptr<cv::Feature2D>()> make_;
  DescriptorConversion conversion_;
  int width_ = 0;  // floats per descriptor after conversion
};

// A registry entry for a cv::Feature2D: `make` builds the detector from a normalised spec.
using Feature2DFactory = std::function<cv::Ptr<cv::Feature2D>(const FeatureSpec&)>;
FeatureKind feature2DKind(std::string name, std::string description, std::vector<FeatureParameter> parameters,
                          Feature2DFactory make, DescriptorConversion conversion);

// registerFeatureKind(feature2DKind(...)): after it, makeFeatureExtractor(FeatureSpec(name)) and
// `bovw train --features NAME` (in a program that registers it) use the detector.
void registerFeature2D(std::string name, std::string description, std::vector<FeatureParameter> parameters,
                       Feature2DFactory make, DescriptorConversion conversion);

}  // namespace bovw
