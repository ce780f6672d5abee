// SURF feature extraction in the OpenCV style: a built-in implementation faithful to OpenCV's
// xfeatures2d SURF (which most OpenCV builds leave out as non-free), and OpenCV's own where present.
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

// A SURF detector and descriptor extractor (OpenCV's Feature2D shape). Const and stateless after
// construction: one instance may serve several threads.
//
// Images: 8-bit or 16-bit, 1, 3 (BGR) or 4 (BGRA) channels. Colour goes to gray with
// cv::cvtColor(BGR2GRAY), as OpenCV's SURF does; 16-bit is scaled to 8-bit by 1/257 (65535 -> 255,
// rounded), the conversion a caller of OpenCV's SURF (which accepts only 8-bit) would make first.
// Mask: empty, or CV_8U of the image's size; keypoints are kept only where the mask is non-zero.
// Errors: empty or unsupported images and masks throw InvalidInput; an image above
// SurfParams::max_pixels throws CapacityError. An image smaller than the smallest filter, or
// without structure, gives zero keypoints.
// Throws InvalidInput naming the first SurfParams field out of range (what create() checks).
void validateSurfParams(const SurfParams& params);

class SurfExtractor {
 public:
  // Throws InvalidInput for out-of-range parameters or an unavailable backend. `device` picks the
  // OpenCL device (a HistogrammerConfig::device spec; "" = $BOVW_DEVICE, else the first GPU, else
  // the first CPU device); the other backends ignore it.
  static std::unique_ptr<SurfExtractor> create(const SurfParams& params = SurfParams(),
                                               SurfBackend backend = SurfBackend::Auto,
                                               const std::string& device = "");
  virtual ~SurfExtractor() = default;

  // Detects keypoints (strongest response first) and computes one descriptor row per keypoint
  // (N x descriptorSize() CV_32F; pass cv::noArray() to skip descriptors, keeping orientations).
  void detectAndCompute(cv::InputArray image, cv::InputArray mask, std::vector<cv::KeyPoint>& keypoints,
                        cv::OutputArray descriptors, SurfStageTimes* times = nullptr) const;

  void detect(cv::InputArray image, std::vector<cv::KeyPoint>& keypoints,
              cv::InputArray mask = cv::noArray()) const;

  // Descriptors at given keypoints (pt and size used; angle recomputed unless upright). As in
  // OpenCV, keypoints too close to the border for an orientation are removed from the vector.
  void compute(cv::InputArray image, std::vector<cv::KeyPoint>& keypoints, cv::OutputArray descriptors) const;

  // Keypoints and descriptors of several images at once, each image's as detectAndCompute gives
  // them. The OpenCL backend runs the images as one batch (one launch per stage for all of them, so
  // that small images still fill a GPU: docs/SURF.md); the CPU backends take them one after another.
  // Errors as detectAndCompute's, for the first bad image; a batch too large for the device's
  // memory is a CapacityError (split it). `times`: the batch's stage times, summed.
  std::vector<ImageFeatures> detectAndComputeBatch(const std::vector<cv::Mat>& images,
                                                   SurfStageTimes* times = nullptr) const;

  int descriptorSize() const { return params_.extended ? 128 : 64; }
  // surf64 or surf128; the descriptors are CV_32F.
  DescriptorType descriptorType() const { return DescriptorType("surf", descriptorSize()); }
  const SurfParams& params() const { return params_; }
  SurfBackend backend() const { return backend_; }  // never Auto

 protected:
  SurfExtractor(const SurfParams& params, SurfBackend backend) : params_(params), backend_(backend) {}

  // What a backend supplies: `gray` is validated CV_8UC1, `mask` empty or CV_8UC1 of its size.
  // With use_provided_keypoints the detector is skipped. `descriptors` may be null.
  virtual void run(const cv::Mat& gray, const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints,
                   bool use_provided_keypoints, cv::Mat* descriptors, SurfStageTimes& times) const = 0;
  // detectAndComputeBatch's work on validated CV_8UC1 images; by default run() on each.
  virtual std::vector<ImageFeatures> runBatch(const std::vector<cv::Mat>& grays, SurfStageTimes& times) const;

 private:
  void runChecked(cv::InputArray image, cv::InputArray mask, std::vector<cv::KeyPoint>& keypoints,
                  bool use_provided_keypoints, cv::OutputArray descriptors, SurfStageTimes* times) const;
  // The image as 8-bit gray, after the empty and size checks.
  cv::Mat checkedGray(cv::InputArray image) const;

  SurfParams params_;
  SurfBackend backend_;
};

// The image conversion SurfExtractor applies (exposed for tools that show what SURF sees):
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
