// SURF in the registry: its parameters (OpenCV's names and defaults) and the extractor over
// SurfExtractor.
#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>

#include "backends.hpp"
#include "builtin_feature_kinds.hpp"

namespace bovw {

namespace {

class SurfFeatures final : public FeatureExtractor {
 public:
  SurfFeatures(const SurfParams& params, SurfBackend backend, const std::string& device)
      : surf_(SurfExtractor::create(params, backend, device)) {}
  DescriptorType descriptorType() const override { return surf_->descriptorType(); }
  int descriptorSize() const override { return surf_->descriptorSize(); }
  const SurfExtractor& surf() const { return *surf_; }
  ImageFeatures extractFeatures(const cv::Mat& image) const override {
    ImageFeatures features;
    surf_->detectAndCompute(image, cv::noArray(), features.keypoints, features.descriptors);
    return features;
  }

 private:
  std::unique_ptr<SurfExtractor> surf_;
};

}  // namespace

namespace surf {

const SurfExtractor* surfExtractorOf(const FeatureExtractor& extractor) {
  const auto* features = dynamic_cast<const SurfFeatures*>(&extractor);
  return features ? &features->surf() : nullptr;
}

}  // namespace surf

FeatureSpec surfFeatureSpec(const SurfParams& params) {
  FeatureSpec spec("surf");
  spec.setReal("hessian_threshold", params.hessian_threshold);
  spec.setInteger("octaves", params.octaves);
  spec.setInteger("octave_layers", params.octave_layers);
  spec.setFlag("extended", params.extended);
  spec.setFlag("upright", params.upright);
  return normalizeFeatureSpec(spec);
}

SurfParams surfParams(const FeatureSpec& spec) {
  const FeatureSpec full = normalizeFeatureSpec(spec);
  if (full.kind() != "surf") throw InvalidInput("not a SURF specification: " + full.toString());
  SurfParams params;
  params.hessian_threshold = full.real("hessian_threshold");
  params.octaves = static_cast<int>(full.integer("octaves"));
  params.octave_layers = static_cast<int>(full.integer("octave_layers"));
  params.extended = full.flag("extended");
  params.upright = full.flag("upright");
  return params;
}

namespace detail {

FeatureKind surfFeatureKind() {
  using Type = FeatureParameter::Type;
  // The ranges are validateSurfParams's.
  return {"surf",
          "SURF (64-D; 128-D with extended), bovw's own or OpenCV's",
          {{"hessian_threshold", Type::Real, "100", 0, 1e300, "keep extrema whose Hessian determinant exceeds this"},
           {"octaves", Type::Integer, "4", 1, 16, "scale octaves"},
           {"octave_layers", Type::Integer, "3", 1, 64, "layers per octave"},
           {"extended", Type::Flag, "false", 0, 1, "128-D descriptors"},
           {"upright", Type::Flag, "false", 0, 1, "no orientation"}},
          [](const FeatureSpec& spec, const ExtractorOptions& options) -> std::unique_ptr<FeatureExtractor> {
            SurfParams params = surfParams(spec);
            params.max_pixels = options.max_pixels;
            return std::make_unique<SurfFeatures>(params, options.surf_backend, options.surf_device);
          }};
}

}  // namespace detail

}  // namespace bovw
