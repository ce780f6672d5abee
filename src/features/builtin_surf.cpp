// bovw's own SURF: the five stages in OpenCV SURF's order, timed separately. Each stage works on
// plain cv::Mat / KeyPoint data, so any of them can move to an OpenCL device without the others
// changing.
#include "backends.hpp"
#include "extremum_detection.hpp"
#include "hessian_pyramid.hpp"
#include "integral_image.hpp"
#include "orientation.hpp"
#include "surf_descriptor.hpp"

#include <chrono>

namespace bovw::surf {
namespace {

class Stopwatch {
 public:
  // Milliseconds since construction or the previous lap.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

class BuiltinSurf final : public SurfExtractor {
 public:
  explicit BuiltinSurf(const SurfParams& params) : SurfExtractor(params, SurfBackend::Builtin) {}

 protected:
  void run(const cv::Mat& gray, const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints,
           bool use_provided_keypoints, cv::Mat* descriptors, SurfStageTimes& times) const override {
    const SurfParams& p = params();
    Stopwatch clock;
    const cv::Mat sum = integralImage(gray);
    cv::Mat mask_sum;
    if (!mask.empty() && !use_provided_keypoints) {
      cv::Mat mask01;
      cv::min(mask, 1, mask01);
      mask_sum = integralImage(mask01);
    }
    times.prepare_ms += clock.lap();

    if (!use_provided_keypoints) {
      HessianPyramid pyramid = planHessianPyramid(gray.size(), p.octaves, p.octave_layers);
      computeHessianDeterminants(sum, pyramid);
      times.hessian_ms += clock.lap();
      keypoints = findHessianExtrema(sum, mask_sum, pyramid, static_cast<float>(p.hessian_threshold));
      removeMaskedKeypoints(mask, keypoints);
      times.extrema_ms += clock.lap();
    }

    assignOrientations(sum, keypoints, p.upright);
    times.orientation_ms += clock.lap();

    const int n = static_cast<int>(keypoints.size());
    const int width = p.extended ? 128 : 64;
    if (descriptors != nullptr) {
      descriptors->create(n, width, CV_32F);
      if (n > 0) computeDescriptors(gray, keypoints, p.extended, p.upright, *descriptors);
    }
    removeUnorientedKeypoints(keypoints, descriptors);
    times.descriptor_ms += clock.lap();
  }
};

}  // namespace

std::unique_ptr<SurfExtractor> makeBuiltinSurf(const SurfParams& params) {
  return std::make_unique<BuiltinSurf>(params);
}

}  // namespace bovw::surf
