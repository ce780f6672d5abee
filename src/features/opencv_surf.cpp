// The OpenCV backend: cv::xfeatures2d::SURF, compiled only where OpenCV was built with
// opencv_contrib's xfeatures2d and OPENCV_ENABLE_NONFREE (BOVW_HAVE_OPENCV_SURF, set by CMake).
#include "backends.hpp"

#include <bovw/error.hpp>

#ifdef BOVW_HAVE_OPENCV_SURF
#include <opencv2/xfeatures2d/nonfree.hpp>

#include <chrono>
#endif

namespace bovw::surf {

#ifdef BOVW_HAVE_OPENCV_SURF
namespace {

class OpenCvSurf final : public SurfExtractor {
 public:
  explicit OpenCvSurf(const SurfParams& p)
      : SurfExtractor(p, SurfBackend::OpenCV),
        surf_(cv::xfeatures2d::SURF::create(p.hessian_threshold, p.octaves, p.octave_layers, p.extended, p.upright)) {}

 protected:
  void run(const cv::Mat& gray, const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints,
           bool use_provided_keypoints, cv::Mat* descriptors, SurfStageTimes& times) const override {
    const auto start = std::chrono::steady_clock::now();
    if (descriptors != nullptr) {
      surf_->detectAndCompute(gray, mask, keypoints, *descriptors, use_provided_keypoints);
      if (descriptors->empty()) descriptors->create(0, descriptorSize(), CV_32F);
    } else {
      surf_->detectAndCompute(gray, mask, keypoints, cv::noArray(), use_provided_keypoints);
    }
    times.hessian_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  cv::Ptr<cv::xfeatures2d::SURF> surf_;
};

}  // namespace

std::unique_ptr<SurfExtractor> makeOpenCvSurf(const SurfParams& params) {
  return std::make_unique<OpenCvSurf>(params);
}
#else
std::unique_ptr<SurfExtractor> makeOpenCvSurf(const SurfParams&) {
  throw InvalidInput(
      "SURF backend 'opencv' is not available: this bovw was built against an OpenCV without "
      "xfeatures2d's non-free SURF (opencv_contrib with OPENCV_ENABLE_NONFREE); use the builtin backend");
}
#endif

}  // namespace bovw::surf
