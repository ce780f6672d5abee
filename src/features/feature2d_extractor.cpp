// Feature2DExtractor: a cv::Feature2D behind the FeatureExtractor interface, and its registration.
#include <bovw/error.hpp>
#include <bovw/feature2d_extractor.hpp>

namespace bovw {

namespace {

int expectedDepth(DescriptorConversion conversion) {
  return conversion == DescriptorConversion::UnpackBits ? CV_8U : CV_32F;
}

}  // namespace

cv::Mat unpackBinaryDescriptors(const cv::Mat& packed) {
  if (packed.empty()) return cv::Mat(0, 0, CV_32F);
  if (packed.type() != CV_8UC1)
    throw InvalidInput("binary descriptors must be single-channel CV_8U, got " + cv::typeToString(packed.type()));
  cv::Mat unpacked(packed.rows, packed.cols * 8, CV_32F);
  for (int r = 0; r < packed.rows; ++r) {
    const unsigned char* in = packed.ptr<unsigned char>(r);
    float* out = unpacked.ptr<float>(r);
    for (int b = 0; b < packed.cols; ++b)
      for (int j = 0; j < 8; ++j) out[8 * b + j] = static_cast<float>((in[b] >> j) & 1);
  }
  return unpacked;
}

Feature2DExtractor::Feature2DExtractor(std::string family, std::function<cv::Ptr<cv::Feature2D>()> make,
                                       DescriptorConversion conversion)
    : family_(std::move(family)), make_(std::move(make)), conversion_(conversion) {
  const cv::Ptr<cv::Feature2D> probe = make_ ? make_() : nullptr;
  if (!probe) throw InvalidInput(family_ + " features: the factory made no detector");
  if (probe->descriptorType() != expectedDepth(conversion_))
    throw InvalidInput(family_ + " features: descriptors of type " + cv::typeToString(probe->descriptorType()) +
                       ", but the conversion expects " + cv::typeToString(expectedDepth(conversion_)));
  width_ = probe->descriptorSize() * (conversion_ == DescriptorConversion::UnpackBits ? 8 : 1);
  if (width_ < 1) throw InvalidInput(family_ + " features: the detector reports no descriptor size");
}

DescriptorType Feature2DExtractor::descriptorType() const {
  return DescriptorType(family_, width_,
                        conversion_ == DescriptorConversion::UnpackBits ? DescriptorElement::BinaryUnpacked
                                                                        : DescriptorElement::Float32);
}

ImageFeatures Feature2DExtractor::extractFeatures(const cv::Mat& image) const {
  const cv::Mat gray = toSurfGray(image);  // validates the image; detectors want 8-bit gray
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
  make_()->detectAndCompute(gray, cv::noArray(), keypoints, descriptors);
  if (descriptors.empty()) return {cv::Mat(0, width_, CV_32F), {}};
  if (conversion_ == DescriptorConversion::UnpackBits) descriptors = unpackBinaryDescriptors(descriptors);
  if (descriptors.type() != CV_32FC1 || descriptors.cols != width_)
    throw InvalidInput(family_ + " features: the detector returned " + std::to_string(descriptors.cols) + " " +
                       cv::typeToString(descriptors.type()) + " columns, not " + std::to_string(width_));
  if (keypoints.size() != static_cast<std::size_t>(descriptors.rows))
    throw InvalidInput(family_ + " features: the detector returned " + std::to_string(descriptors.rows) +
                       " descriptors for " + std::to_string(keypoints.size()) + " keypoints");
  return {descriptors, std::move(keypoints)};
}

FeatureKind feature2DKind(std::string name, std::string description, std::vector<FeatureParameter> parameters,
                          Feature2DFactory make, DescriptorConversion conversion) {
  std::string family = name;
  auto factory = [family, make = std::move(make), conversion](const FeatureSpec& spec, const ExtractorOptions&) {
    return std::make_unique<Feature2DExtractor>(family, [make, spec] { return make(spec); }, conversion);
  };
  return {std::move(name), std::move(description), std::move(parameters), std::move(factory)};
}

void registerFeature2D(std::string name, std::string description, std::vector<FeatureParameter> parameters,
                       Feature2DFactory make, DescriptorConversion conversion) {
  registerFeatureKind(
      feature2DKind(std::move(name), std::move(description), std::move(parameters), std::move(make), conversion));
}

}  // namespace bovw
