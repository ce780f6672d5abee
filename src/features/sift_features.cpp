// SIFT in the registry: OpenCV's cv::SIFT (in every OpenCV since 4.4), 128 float32 values.
#include <bovw/feature2d_extractor.hpp>

#include "builtin_feature_kinds.hpp"

namespace bovw::detail {

FeatureKind siftFeatureKind() {
  using Type = FeatureParameter::Type;
  // OpenCV's names and defaults; nfeatures 0 keeps every keypoint.
  return feature2DKind(
      "sift", "SIFT (128-D), OpenCV's",
      {{"nfeatures", Type::Integer, "0", 0, 1e9, "keep the best N keypoints (0: all)"},
       {"octave_layers", Type::Integer, "3", 1, 64, "layers per octave"},
       {"contrast_threshold", Type::Real, "0.04", 0, 1e9, "drop low-contrast keypoints"},
       {"edge_threshold", Type::Real, "10", 0, 1e9, "drop edge-like keypoints"},
       {"sigma", Type::Real, "1.6", 0.01, 100, "Gaussian of octave 0"}},
      [](const FeatureSpec& spec) -> cv::Ptr<cv::Feature2D> {
        return cv::SIFT::create(static_cast<int>(spec.integer("nfeatures")), static_cast<int>(spec.integer("octave_layers")),
                                spec.real("contrast_threshold"), spec.real("edge_threshold"), spec.real("sigma"));
      },
      DescriptorConversion::Float32);
}

}  // namespace bovw::detail
