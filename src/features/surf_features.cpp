// SURF in the registry: its parameters (OpenCV's names and defaults), made as a SurfExtractor of the
// backend ExtractorOptions asks for; the registry is the only way applications make one.
#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>

#include "builtin_feature_kinds.hpp"
#include "surf_extractor.hpp"

namespace bovw {

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
            return surf::makeSurfExtractor(params, options.surf_backend, options.surf_device);
          }};
}

}  // namespace detail

}  // namespace bovw
