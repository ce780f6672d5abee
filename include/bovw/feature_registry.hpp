// The one place extractors are made: a registry of feature kinds, each with its parameters (name,
// type, default, range) and a factory. SURF, SIFT and ORB are registered; an application registers
// more (any cv::Feature2D through registerFeature2D, bovw/feature2d_extractor.hpp).
#pragma once

#include <bovw/feature_extractor.hpp>
#include <bovw/feature_spec.hpp>
#include <bovw/surf.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bovw {

// How to run an extractor, not what it extracts: nothing here changes the descriptors, so none of it
// is part of a FeatureSpec (a database made with OpenCV's SURF is searched with the built-in one).
struct ExtractorOptions {
  SurfBackend surf_backend = SurfBackend::Auto;
  std::string surf_device;                // SurfBackend::OpenCL's device (a HistogrammerConfig::device spec)
  std::int64_t max_pixels = 100'000'000;  // SURF refuses larger images (SurfParams::max_pixels)
};

struct FeatureParameter {
  enum class Type { Integer, Real, Flag };
  std::string name;
  Type type = Type::Integer;
  std::string default_value;       // canonical text (see FeatureSpec)
  double min = 0, max = 0;         // inclusive range of Integer and Real values
  std::string help;                // one line, for --help
};

struct FeatureKind {
  std::string name;                // "orb": the spec's kind and the descriptor family
  std::string description;         // one line, for --help
  std::vector<FeatureParameter> parameters;
  // Makes an extractor from a normalised spec (every parameter present and in range).
  std::function<std::unique_ptr<FeatureExtractor>(const FeatureSpec&, const ExtractorOptions&)> make;
};

// Adds a kind, or replaces the one of the same name. Thread-safe; call it before making extractors
// of that kind.
void registerFeatureKind(FeatureKind kind);

// The registered kinds' names, sorted: "orb", "sift", "surf", ...
std::vector<std::string> featureKindNames();

// Throws InvalidInput listing the registered kinds if `name` is not one.
FeatureKind featureKind(const std::string& name);

// The spec with every parameter of its kind present, each value in its canonical form
// (integers in decimal, reals in the shortest text that reads back to the same double, flags true
// or false), so that equal settings give equal specs. Throws InvalidInput for an unknown kind or
// parameter (listing the valid ones) and for a value of the wrong type or out of range.
FeatureSpec normalizeFeatureSpec(const FeatureSpec& spec);

// An extractor for normalizeFeatureSpec(spec).
std::unique_ptr<FeatureExtractor> makeFeatureExtractor(const FeatureSpec& spec, const ExtractorOptions& options = {});

// SURF's spec and parameters, both ways (max_pixels is not a feature parameter: ExtractorOptions).
FeatureSpec surfFeatureSpec(const SurfParams& params);
SurfParams surfParams(const FeatureSpec& spec);

}  // namespace bovw
