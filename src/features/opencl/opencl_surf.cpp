// SurfBackend::OpenCL: all five SURF stages on an OpenCL device, an image being a batch of one
// (surf_batch.hpp). The image goes up once; the integral image, the scale space and the keypoint
// records stay on the device, and the host waits once in the middle (for the keypoint count, to size
// the launches); the keypoints and descriptors come back at the end, where the host puts them in
// OpenCV's order. Several threads may extract at once: on a GPU each call borrows a queue of its own
// (same device, context and compiled programs), so one image's transfers and kernels overlap another's.
#include "device_features.hpp"
#include "features/backends.hpp"
#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"
#include "device_layers.hpp"
#include "surf_batch.hpp"

#include <bovw/error.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <mutex>

namespace bovw::surf {
namespace {

class OpenClSurf final : public SurfExtractor, public detail::DeviceFeatures {
 public:
  OpenClSurf(const SurfParams& params, const std::string& device)
      : SurfExtractor(params, SurfBackend::OpenCL), device_spec_(device) {
    auto first = detail::withOpenCLErrors([&] { return std::make_unique<detail::DeviceContext>(device); });
    const std::string extensions = first->device().getInfo<CL_DEVICE_EXTENSIONS>();
    if (extensions.find("cl_khr_fp64") == std::string::npos)
      throw InvalidInput("SURF backend opencl: device '" + first->info().name +
                         "' lacks cl_khr_fp64, which the box filters need to round as OpenCV does");
    // On a CPU device (PoCL) one image at a time: the device already spreads each launch over every
    // core, and PoCL 3.1 aborts when several queues run the same kernels at once (an assertion on a
    // reference count in its binary cache, about one run in ten of a four-thread test).
    one_at_a_time_ = first->info().type != "GPU";
    device_ = first->device();
    idle_.push_back(std::move(first));
    buildKernels();
  }

  // The device seam: the fused route's batches, on another owner's queue of the same device.
  bool runsOn(const detail::DeviceContext& device) const override { return device.device()() == device_(); }
  cv::Mat prepare(const cv::Mat& image) const override { return toSurfGray(image); }
  SurfOnDevice start(detail::DeviceContext& device, const SurfBatchInput& input) const override {
    return startSurf(device, input, params());
  }
  void finish(detail::DeviceContext& device, const SurfBatchInput& input, SurfOnDevice& batch) const override {
    finishSurf(device, input, params(), batch);
  }
  std::vector<ImageFeatures> extract(const SurfBatchInput& input) const override {
    SurfStageTimes ignored;
    return runOnDevice(input, ignored);
  }
  std::int64_t batchPixelLimit(const detail::DeviceContext& device) const override {
    return surf::batchPixelLimit(params().octaves, params().octave_layers,
                                 device.device().getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(),
                                 device.device().getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>());
  }
  std::unique_ptr<detail::DeviceContext> newQueue() const override {
    return detail::withOpenCLErrors([&] { return std::make_unique<detail::DeviceContext>(device_spec_); });
  }

 protected:
  void run(const cv::Mat& gray, const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints,
           bool use_provided_keypoints, cv::Mat* descriptors, SurfStageTimes& times) const override {
    SurfBatchInput input;
    input.grays = {gray};
    if (!mask.empty()) input.masks = {mask};
    if (use_provided_keypoints) input.given = &keypoints;
    input.describe = descriptors != nullptr;
    ImageFeatures features = std::move(runOnDevice(input, times)[0]);
    keypoints = std::move(features.keypoints);
    if (descriptors != nullptr) *descriptors = features.descriptors;
  }

  // Batches of up to kMaxBatchImages images, each one launch sequence.
  std::vector<ImageFeatures> runBatch(const std::vector<cv::Mat>& grays, SurfStageTimes& times) const override {
    std::vector<ImageFeatures> features;
    for (std::size_t first = 0; first < grays.size(); first += kMaxBatchImages) {
      SurfBatchInput input;
      input.grays.assign(grays.begin() + first, grays.begin() + std::min(grays.size(), first + kMaxBatchImages));
      for (ImageFeatures& f : runOnDevice(input, times)) features.push_back(std::move(f));
    }
    return features;
  }

 private:
  const detail::DeviceFeatures* deviceFeatures() const override { return this; }

  // Builds every kernel now, with the options the calls use, by extracting a small generated image
  // (blobs of several sizes, so that every stage runs): a device whose compiler rejects them fails
  // here, once, with the compiler's log (KernelBuildError), rather than on every image, and
  // SurfBackend::Auto can fall back to the CPU.
  void buildKernels() const {
    cv::Mat noise(96, 96, CV_8U), image;
    cv::RNG(1).fill(noise, cv::RNG::UNIFORM, 0, 256);
    cv::GaussianBlur(noise, image, cv::Size(0, 0), 2.0);
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
    SurfStageTimes ignored;
    run(image, cv::Mat(), keypoints, false, &descriptors, ignored);
  }

  std::unique_ptr<detail::DeviceContext> borrowQueue() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        auto device = std::move(idle_.back());
        idle_.pop_back();
        return device;
      }
    }
    return std::make_unique<detail::DeviceContext>(device_spec_);
  }

  // One batch on a queue of its own (borrowed, and returned unless the call threw: it may then
  // hold unfinished work).
  std::vector<ImageFeatures> runOnDevice(const SurfBatchInput& input, SurfStageTimes& times) const {
    std::unique_lock<std::mutex> serial(serial_, std::defer_lock);
    if (one_at_a_time_) serial.lock();
    return detail::withOpenCLErrors([&] {
      std::unique_ptr<detail::DeviceContext> device = borrowQueue();
      // A batch's working buffers are needed by every batch: keep them (up to 1 GiB; a single image's
      // stay under the default bound, so that a huge image's scale space is not kept on every queue).
      device->scratch().retainUpTo(
          std::min(std::size_t{1} << 30, detail::ScratchBuffers::kRetainLimit * input.grays.size()));
      const SurfOnDevice batch = enqueueSurf(*device, input, params());
      std::vector<ImageFeatures> features = readFeatures(*device, batch, input, &times);
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.push_back(std::move(device));
      return features;
    });
  }

  std::string device_spec_;
  cl::Device device_;
  bool one_at_a_time_ = false;
  mutable std::mutex serial_;  // held for a whole call when one_at_a_time_
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<detail::DeviceContext>> idle_;  // queues no call is using
};

}  // namespace

std::unique_ptr<SurfExtractor> makeOpenClSurf(const SurfParams& params, const std::string& device) {
  return std::make_unique<OpenClSurf>(params, device);
}

}  // namespace bovw::surf
