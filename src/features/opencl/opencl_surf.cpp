// SurfBackend::OpenCL: all five SURF stages on an OpenCL device. The image goes up once; the
// integral image, the scale space and the keypoint records stay on the device, and the host waits
// once in the middle (for the keypoint count, to size the launches); the keypoints and descriptors
// come back at the end, where the host puts them in OpenCV's order.
// Stage times are the device's own timestamps (profiling events), not host wall-clock. Several
// threads may extract at once: on a GPU each call borrows a queue of its own (same device, context and
// compiled programs), so one image's transfers and kernels overlap another's.
#include "device_keypoint.hpp"
#include "features/backends.hpp"
#include "features/extremum_detection.hpp"
#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"
#include "surf_describe.hpp"
#include "surf_detect.hpp"

#include <bovw/error.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <mutex>

namespace bovw::surf {
namespace {

// Device timestamps of completed commands, in milliseconds. Stage times are diagnostics: a device
// that withholds a timestamp (seen on NVIDIA's driver for a few percent of commands when several
// queues run at once) gives 0 for that stage rather than failing the image.
struct Timestamps {
  static double between(const cl::Event& first, const cl::Event& last) {
    try {
      if (first() == nullptr || last() == nullptr) return 0;
      const auto a = first.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      const auto b = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      return b > a ? static_cast<double>(b - a) * 1e-6 : 0.0;
    } catch (const cl::Error&) {
      return 0;
    }
  }
  static double of(const cl::Event& command) { return between(command, command); }
};

class OpenClSurf final : public SurfExtractor {
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
    idle_.push_back(std::move(first));
    buildKernels();
  }

 protected:
  void run(const cv::Mat& gray, const cv::Mat& mask, std::vector<cv::KeyPoint>& keypoints,
           bool use_provided_keypoints, cv::Mat* descriptors, SurfStageTimes& times) const override {
    std::unique_lock<std::mutex> serial(serial_, std::defer_lock);
    if (one_at_a_time_) serial.lock();
    detail::withOpenCLErrors([&] {
      std::unique_ptr<detail::DeviceContext> device = borrowQueue();
      runOnDevice(*device, gray, mask, keypoints, use_provided_keypoints, descriptors, times);
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.push_back(std::move(device));  // a call that threw drops its queue: it may hold unfinished work
    });
  }

 private:
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

  // An image on the device with its integral image, and the events that bound that stage.
  struct DeviceImage {
    cl::Buffer pixels, sum;
    cl::Event uploaded, integrated;
  };

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

  // `name`: which scratch buffers hold it (the image and its mask are on the device at once).
  static DeviceImage upload(detail::DeviceContext& device, const cv::Mat& image, const std::string& name) {
    const cv::Mat packed = image.isContinuous() ? image : image.clone();
    auto& queue = device.queue();
    DeviceImage d;
    d.pixels = device.scratch().get("surf." + name + ".pixels", packed.total());
    queue.enqueueWriteBuffer(d.pixels, CL_TRUE, 0, packed.total(), packed.data, nullptr, &d.uploaded);
    d.sum = device.scratch().get("surf." + name + ".sum",
                                 sizeof(cl_uint) * (image.rows + 1) * static_cast<std::size_t>(image.cols + 1));
    d.integrated = enqueueIntegralImage(device, d.pixels, image.size(), d.sum);
    return d;
  }

  void runOnDevice(detail::DeviceContext& device, const cv::Mat& gray, const cv::Mat& mask,
                   std::vector<cv::KeyPoint>& keypoints, bool use_provided_keypoints, cv::Mat* descriptors,
                   SurfStageTimes& times) const {
    const SurfParams& p = params();
    auto& queue = device.queue();
    const DeviceImage image = upload(device, gray, "image");
    // The keypoint records on the device: detected (unsorted: describing them does not depend on
    // their order, so the host sorts once, at the end), or the caller's.
    DeviceDetection detection;
    if (!use_provided_keypoints) {
      DeviceImage mask01;
      if (!mask.empty()) {
        cv::Mat ones;
        cv::min(mask, 1, ones);
        mask01 = upload(device, ones, "mask");
      }
      detection = detectOnDevice(device, image.sum, mask.empty() ? nullptr : &mask01.sum, gray.size(), p);
    } else if (!keypoints.empty()) {
      std::vector<DeviceKeypoint> given;
      for (const cv::KeyPoint& kp : keypoints) given.push_back(toDevice(kp));
      detection.records = cl::Buffer(device.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                     sizeof(DeviceKeypoint) * given.size(), given.data());
      detection.count = static_cast<int>(given.size());
    }
    const int n = detection.count;
    const int width = p.extended ? 128 : 64;
    std::vector<DeviceKeypoint> records(static_cast<std::size_t>(n));
    cv::Mat rows;  // descriptors in the records' order
    cl::Event oriented, described, downloaded;
    if (n > 0) {
      oriented = enqueueOrientations(device, image.sum, gray.size(), detection.records, n, p.upright);
      if (descriptors != nullptr) {
        rows.create(n, width, CV_32F);
        const cl::Buffer on_device = device.scratch().get("surf.descriptors", sizeof(float) * n * width);
        described = enqueueDescriptors(device, image.pixels, gray.size(), detection.records, n, p.extended, p.upright,
                                       on_device);
        queue.enqueueReadBuffer(on_device, CL_FALSE, 0, sizeof(float) * n * width, rows.ptr<float>(), nullptr,
                                &downloaded);
      }
      queue.enqueueReadBuffer(detection.records, CL_FALSE, 0, sizeof(DeviceKeypoint) * n, records.data());
    }
    queue.finish();

    const auto host_start = std::chrono::steady_clock::now();
    std::vector<cv::KeyPoint> found;
    found.reserve(records.size());
    for (const DeviceKeypoint& d : records) found.push_back(fromDevice(d));
    // Output order: OpenCV's (detected keypoints) or the caller's; then OpenCV's removals: keypoints
    // outside the mask, and those the orientation stage could not sample (size -1). Removing
    // elements leaves the others sorted, so sorting before the removals is as OpenCV does.
    std::vector<int> order(found.size());
    std::iota(order.begin(), order.end(), 0);
    if (!use_provided_keypoints)
      std::sort(order.begin(), order.end(), [&](int a, int b) { return keypointGreater(found[a], found[b]); });
    keypoints.clear();
    std::vector<int> kept;
    for (int i : order)
      if (found[i].size > 0 && (use_provided_keypoints || !maskedOut(mask, found[i]))) {
        keypoints.push_back(found[i]);
        kept.push_back(i);
      }
    if (descriptors != nullptr) {  // plain row copies: a cv::Mat header per row cost ~2 ms per 5,000 rows
      descriptors->create(static_cast<int>(kept.size()), width, CV_32F);
      const std::size_t row_bytes = sizeof(float) * width;
      for (std::size_t r = 0; r < kept.size(); ++r)
        std::memcpy(descriptors->ptr<float>(static_cast<int>(r)), rows.ptr<float>(kept[r]), row_bytes);
    }
    const double host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();

    times.prepare_ms += Timestamps::between(image.uploaded, image.integrated);
    times.hessian_ms += Timestamps::of(detection.hessian);
    times.extrema_ms += Timestamps::between(detection.first_extrema, detection.extrema) + host_ms;  // + the sort
    times.orientation_ms += Timestamps::of(oriented);
    times.descriptor_ms += Timestamps::between(described, downloaded);
  }

  std::string device_spec_;
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
