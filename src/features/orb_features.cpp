// ORB in the registry: OpenCV's cv::ORB, 256-bit binary descriptors unpacked to 256 floats of 0 or 1,
// so that the float core's squared L2 distance is their Hamming distance and nothing else changes.
#include <bovw/feature2d_extractor.hpp>

#include "builtin_feature_kinds.hpp"

namespace bovw::detail {

FeatureKind orbFeatureKind() {
  using Type = FeatureParameter::Type;
  // OpenCV's names and defaults. WTA_K stays 2: its other values make descriptors compared with
  // NORM_HAMMING2, not the Hamming distance the unpacked bits give.
  return feature2DKind(
      "orb", "ORB (256 bits, unpacked to 256 floats of 0/1), OpenCV's",
      {{"nfeatures", Type::Integer, "500", 1, 1e9, "keep the best N keypoints"},
       {"scale_factor", Type::Real, "1.2", 1.001, 4, "pyramid scale between levels"},
       {"nlevels", Type::Integer, "8", 1, 32, "pyramid levels"},
       {"edge_threshold", Type::Integer, "31", 0, 1000, "border where no keypoint is detected"},
       {"patch_size", Type::Integer, "31", 2, 1000, "patch of the oriented BRIEF descriptor"},
       {"fast_threshold", Type::Integer, "20", 1, 255, "FAST corner threshold"}},
      [](const FeatureSpec& spec) -> cv::Ptr<cv::Feature2D> {
        return cv::ORB::create(static_cast<int>(spec.integer("nfeatures")), static_cast<float>(spec.real("scale_factor")),
                               static_cast<int>(spec.integer("nlevels")), static_cast<int>(spec.integer("edge_threshold")), 0, 2, cv::ORB::HARRIS_SCORE,
                               static_cast<int>(spec.integer("patch_size")),
                               static_cast<int>(spec.integer("fast_threshold")));
      },
      DescriptorConversion::UnpackBits);
}

}  // namespace bovw::detail
