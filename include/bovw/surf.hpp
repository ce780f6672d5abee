// SURF's parameters and backends: a built-in implementation faithful to OpenCV's xfeatures2d SURF
// (which most OpenCV builds leave out as non-free), the same on an OpenCL device, and OpenCV's own
// where present. SURF extractors are made like every other by the registry (bovw/feature_registry.hpp):
// makeFeatureExtractor(surfFeatureSpec(params), options), the backend in ExtractorOptions.
#pragma once

#include <bovw/descriptor_type.hpp>
#include <bovw/descriptors.hpp>
#include <bovw/feature_extractor.hpp>

#include <opencv2/core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bovw {

// OpenCV SURF's parameters, with its defaults.
struct SurfParams {
  double hessian_threshold = 100.0;  // keep extrema whose Hessian determinant exceeds this
  int octaves = 4;                   // scale octaves (filter sizes double each octave)
  int octave_layers = 3;             // layers per octave where extrema are searched
  bool extended = false;             // 128-D descriptors instead of 64-D
  bool upright = false;              // skip orientation (angle 270 degrees, as OpenCV reports it)
  // Images larger than this many pixels are refused with CapacityError: the detector keeps about
  // 30 bytes per pixel of scale space, so an unbounded image can exhaust memory.
  std::int64_t max_pixels = 100'000'000;
};

// Builtin: bovw's own SURF (always available). OpenCV: cv::xfeatures2d::SURF, compiled in only when
// the OpenCV found at configure time provides xfeatures2d with the non-free algorithms. OpenCL: bovw's
// SURF with every stage on an OpenCL device (needs cl_khr_fp64; detection identical to Builtin's,
// descriptors within docs/SURF.md's bounds). Auto: OpenCL where the device a plain spec resolves to
// ($BOVW_DEVICE, else the first GPU) is a GPU, else OpenCV where available, else Builtin.
enum class SurfBackend { Builtin, OpenCV, OpenCL, Auto };

// "builtin", "opencv", "opencl", "auto".
std::string surfBackendName(SurfBackend backend);

// Parses "builtin" / "opencv" / "opencl" / "auto"; throws InvalidInput otherwise.
SurfBackend parseSurfBackend(const std::string& name);

// True when this build of bovw has OpenCV's SURF compiled in.
bool openCvSurfAvailable();

// Auto's choice when SURF stays on the CPU: OpenCV where this build has it, else Builtin (the same
// keypoints and descriptors either way).
SurfBackend cpuSurfBackend();

// Wall-clock milliseconds per stage of one detectAndCompute call (benchmarks, profiling).
// The OpenCV backend cannot split its work: it reports everything under hessian_ms.
struct SurfStageTimes {
  double prepare_ms = 0;      // gray / 8-bit conversion and the integral image
  double hessian_ms = 0;      // box-filter Hessian determinants of every layer
  double extrema_ms = 0;      // 3x3x3 non-maximum suppression, interpolation, sort
  double orientation_ms = 0;  // dominant orientation of each keypoint
  double descriptor_ms = 0;   // descriptor vectors
  double detectorMs() const { return prepare_ms + hessian_ms + extrema_ms; }
  double descriptorMs() const { return orientation_ms + descriptor_ms; }
};

// SURF's rules for images, for every backend: 8-bit or 16-bit, 1, 3 (BGR) or 4 (BGRA) channels. Colour
// goes to gray with cv::cvtColor(BGR2GRAY), as OpenCV's SURF does; 16-bit is scaled to 8-bit by 1/257
// (65535 -> 255, rounded), the conversion a caller of OpenCV's SURF (which accepts only 8-bit) would
// make first. Empty or unsupported images throw InvalidInput; an image above SurfParams::max_pixels
// throws CapacityError. An image smaller than the smallest filter, or without structure, gives zero
// keypoints.
// Throws InvalidInput naming the first SurfParams field out of range.
void validateSurfParams(const SurfParams& params);

// The image conversion SURF applies (exposed for tools that show what SURF sees):
// 8-bit single-channel gray. Throws InvalidInput for empty or unsupported images.
cv::Mat toSurfGray(cv::InputArray image);

// A zero-copy view of N x D CV_32F descriptors (any row stride) as the library's descriptor type;
// binds to DescriptorsRef. The cv::Mat must outlive the view. Throws InvalidInput unless the Mat is
// empty or single-channel CV_32F.
using DescriptorsMap = Eigen::Map<const Descriptors, Eigen::Unaligned, Eigen::OuterStride<>>;
DescriptorsMap viewDescriptors(const cv::Mat& descriptors);

// An owning copy of N x D CV_32F descriptors (an empty Mat gives 0 rows).
Descriptors toDescriptors(const cv::Mat& descriptors);

}  // namespace bovw
