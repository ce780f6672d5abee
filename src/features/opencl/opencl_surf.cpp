// SurfBackend::OpenCL: all five SURF stages on an OpenCL device. The image goes up once; the
// integral image, the scale space and the descriptors stay on the device; only the keypoints (to be
// sorted into OpenCV's order between detection and description) and the descriptors come back.
// Stage times are the device's own timestamps (profiling events), not host wall-clock.
#include "device_keypoint.hpp"
#include "features/backends.hpp"
#include "features/extremum_detection.hpp"
#include "features/orientation.hpp"
#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"
#include "surf_describe.hpp"
#include "surf_detect.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>

namespace bovw::surf {
namespace {

using detail::elapsedMs;

// Device milliseconds from the end of one command to the end of a later one on the same queue.
double msBetween(const cl::Event& earlier_end, const cl::Event& later_end) {
  const auto a = earlier_end.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  const auto b = later_end.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return b > a ? static_cast<double>(b - a) * 1e-6 : 0.0;
}

cl::Event marker(cl::CommandQueue& queue) {
  cl::Event event;
  queue.enqueueMarkerWithWaitList(nullptr, &event);
  return event;
}

class OpenClSurf final : public SurfExtractor {
 public:
  OpenClSurf(const SurfParams& params, const std::string& device)
      : SurfExtractor(params, SurfBackend::OpenCL), device_(withOpenCL([&] {
          return std::make_unique<detail::DeviceContext>(device);
        })) {
    const std::string extensions = device_->device().getInfo<CL_DEVICE_EXTENSIONS>();
    if (extensions.find("cl_khr_fp64") == std::string::npos)
      throw InvalidInput("SURF backend opencl: device '" + device_->info().name +
                         "' lacks cl_khr_fp64, which the box filters need to round as OpenCV does");
  }

 protected:
  void run(const cv::Mat& gray, const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints,
           bool use_provided_keypoints, cv::Mat* descriptors, SurfStageTimes& times) const override {
    // One image at a time per extractor: the queue is shared and the stage events are per call.
    std::lock_guard<std::mutex> lock(mutex_);
    withOpenCL([&] { runOnDevice(gray, mask, keypoints, use_provided_keypoints, descriptors, times); });
  }

 private:
  template <typename Function>
  static decltype(auto) withOpenCL(Function&& function) {
    return detail::withOpenCLErrors(std::forward<Function>(function));
  }

  // An image on the device with its integral image, and the events that bound that stage.
  struct DeviceImage {
    cl::Buffer pixels, sum;
    cl::Event uploaded, integrated;
  };

  DeviceImage upload(const cv::Mat& image) const {
    const cv::Mat packed = image.isContinuous() ? image : image.clone();
    auto& queue = device_->queue();
    DeviceImage d;
    d.pixels = cl::Buffer(device_->context(), CL_MEM_READ_ONLY, packed.total());
    queue.enqueueWriteBuffer(d.pixels, CL_TRUE, 0, packed.total(), packed.data, nullptr, &d.uploaded);
    d.sum = cl::Buffer(device_->context(), CL_MEM_READ_WRITE,
                       sizeof(cl_uint) * (image.rows + 1) * static_cast<std::size_t>(image.cols + 1));
    d.integrated = enqueueIntegralImage(*device_, d.pixels, image.size(), d.sum);
    return d;
  }

  void runOnDevice(const cv::Mat& gray, const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints,
                   bool use_provided_keypoints, cv::Mat* descriptors, SurfStageTimes& times) const {
    const SurfParams& p = params();
    auto& queue = device_->queue();
    const DeviceImage image = upload(gray);
    if (!use_provided_keypoints) {
      DeviceImage mask01;
      if (!mask.empty()) {
        cv::Mat ones;
        cv::min(mask, 1, ones);
        mask01 = upload(ones);
      }
      DetectionEvents events;
      const auto host_start = std::chrono::steady_clock::now();
      keypoints = detectKeypoints(*device_, image.sum, mask.empty() ? nullptr : &mask01.sum, gray.size(), p, &events);
      removeMaskedKeypoints(mask, keypoints);
      const double host_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();
      const double device_ms = msBetween(image.integrated, events.extrema);
      times.hessian_ms += msBetween(image.integrated, events.hessian);
      // Extrema: the kernel, the keypoints' trip to the host and their sort.
      times.extrema_ms += msBetween(events.hessian, events.extrema) + std::max(0.0, host_ms - device_ms);
    }
    times.prepare_ms += msBetween(image.uploaded, image.integrated) + elapsedMs(image.uploaded);

    const int n = static_cast<int>(keypoints.size());
    const int width = p.extended ? 128 : 64;
    if (n == 0) {
      if (descriptors != nullptr) descriptors->create(0, width, CV_32F);
      return;
    }
    std::vector<DeviceKeypoint> records(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) records[i] = toDevice(keypoints[i]);
    const cl::Buffer on_device(device_->context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof(DeviceKeypoint) * records.size(), records.data());
    const cl::Event before_orientation = marker(queue);
    enqueueOrientations(*device_, image.sum, gray.size(), on_device, n, p.upright);
    const cl::Event oriented = marker(queue);
    if (descriptors != nullptr) {
      descriptors->create(n, width, CV_32F);
      const cl::Buffer rows(device_->context(), CL_MEM_WRITE_ONLY, sizeof(float) * n * width);
      enqueueDescriptors(*device_, image.pixels, gray.size(), on_device, n, p.extended, p.upright, rows);
      queue.enqueueReadBuffer(rows, CL_FALSE, 0, sizeof(float) * n * width, descriptors->ptr<float>());
    }
    queue.enqueueReadBuffer(on_device, CL_TRUE, 0, sizeof(DeviceKeypoint) * records.size(), records.data());
    const cl::Event described = marker(queue);
    queue.finish();
    times.orientation_ms += msBetween(before_orientation, oriented);
    times.descriptor_ms += msBetween(oriented, described);
    for (int i = 0; i < n; ++i) {
      keypoints[i].angle = records[i].angle;
      keypoints[i].size = records[i].size;  // -1 where the orientation could not be sampled
    }
    removeUnorientedKeypoints(keypoints, descriptors);
  }

  std::unique_ptr<detail::DeviceContext> device_;
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<SurfExtractor> makeOpenClSurf(const SurfParams& params, const std::string& device) {
  return std::make_unique<OpenClSurf>(params, device);
}

}  // namespace bovw::surf
