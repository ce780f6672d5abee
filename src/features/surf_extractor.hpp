// SurfExtractor: SURF as the registry's "surf" kind makes it (surf_features.cpp), a FeatureExtractor
// with OpenCV Feature2D's finer calls (masks, given keypoints, per-stage times) that bovw's own tests
// and benchmarks use. Internal: applications make SURF through makeFeatureExtractor, the one factory.
#pragma once

#include <bovw/feature_extractor.hpp>
#include <bovw/surf.hpp>

#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace bovw {

// Const and stateless after construction: one instance may serve several threads. Images, masks
// and errors as bovw/surf.hpp says; a mask is empty, or CV_8U of the image's size, and keypoints are
// kept only where it is non-zero.
class SurfExtractor : public FeatureExtractor {
 public:
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

  // FeatureExtractor: detectAndCompute without a mask, and detectAndComputeBatch.
  ImageFeatures extractFeatures(const cv::Mat& image) const final;
  std::vector<ImageFeatures> extractFeaturesBatch(const std::vector<cv::Mat>& images) const final;
  // surf64 or surf128; the descriptors are CV_32F.
  DescriptorType descriptorType() const final { return DescriptorType("surf", descriptorSize()); }
  int descriptorSize() const final { return params_.extended ? 128 : 64; }
  std::string description() const override { return "SURF backend " + surfBackendName(backend_); }

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

namespace surf {

// The registry's SURF (what makeFeatureExtractor(surfFeatureSpec(params), options) makes), typed for
// bovw's tests and benchmarks. Throws InvalidInput for out-of-range parameters or an unavailable
// backend. `device` picks the OpenCL device (a HistogrammerConfig::device spec; "" = $BOVW_DEVICE, else
// the first GPU, else the first CPU device); the other backends ignore it. Auto: OpenCL where that
// device is a GPU (and builds the kernels), else OpenCV where available, else Builtin.
std::unique_ptr<SurfExtractor> makeSurfExtractor(const SurfParams& params = SurfParams(),
                                                 SurfBackend backend = SurfBackend::Auto,
                                                 const std::string& device = "");

}  // namespace surf

}  // namespace bovw
