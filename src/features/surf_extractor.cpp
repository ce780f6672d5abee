// SurfExtractor's shared part (non-virtual interface): parameter and input validation, conversion to
// 8-bit gray, timing and output, so that each backend supplies only its run().
#include <bovw/device.hpp>
#include <bovw/error.hpp>
#include <bovw/surf.hpp>

#include "backends.hpp"
#include "surf_extractor.hpp"

#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cmath>
#include <sstream>

namespace bovw {
namespace {

std::string describeMat(const cv::Mat& m) {
  std::ostringstream s;
  s << m.cols << "x" << m.rows << " " << cv::typeToString(m.type());
  return s.str();
}

}  // namespace

void validateSurfParams(const SurfParams& p) {
  auto fail = [](const std::string& what) { throw InvalidInput("SURF parameters: " + what); };
  if (!std::isfinite(p.hessian_threshold) || p.hessian_threshold < 0)
    fail("hessian_threshold must be finite and >= 0, got " + std::to_string(p.hessian_threshold));
  // Filter sizes grow as (9 + 6 layers) << octaves: beyond these bounds they exceed any image.
  if (p.octaves < 1 || p.octaves > 16) fail("octaves must be in [1, 16], got " + std::to_string(p.octaves));
  if (p.octave_layers < 1 || p.octave_layers > 64)
    fail("octave_layers must be in [1, 64], got " + std::to_string(p.octave_layers));
  if (p.max_pixels < 1) fail("max_pixels must be positive, got " + std::to_string(p.max_pixels));
}

std::string surfBackendName(SurfBackend backend) {
  switch (backend) {
    case SurfBackend::Builtin: return "builtin";
    case SurfBackend::OpenCV: return "opencv";
    case SurfBackend::OpenCL: return "opencl";
    case SurfBackend::Auto: return "auto";
  }
  return "unknown";
}

SurfBackend parseSurfBackend(const std::string& name) {
  if (name == "builtin") return SurfBackend::Builtin;
  if (name == "opencv") return SurfBackend::OpenCV;
  if (name == "opencl") return SurfBackend::OpenCL;
  if (name == "auto") return SurfBackend::Auto;
  throw InvalidInput("unknown SURF backend '" + name + "' (expected builtin, opencv, opencl or auto)");
}

bool openCvSurfAvailable() {
#ifdef BOVW_HAVE_OPENCV_SURF
  return true;
#else
  return false;
#endif
}

SurfBackend cpuSurfBackend() { return openCvSurfAvailable() ? SurfBackend::OpenCV : SurfBackend::Builtin; }

namespace {

// Auto's first choice: the device a plain spec resolves to, when that is a GPU.
bool defaultDeviceIsGpu(const std::string& device) {
  try {
    return selectDevice(device).type == "GPU";
  } catch (const Error&) {
    return false;  // no OpenCL platform, or no device matches: not an error for Auto
  }
}

}  // namespace

std::unique_ptr<SurfExtractor> surf::makeSurfExtractor(const SurfParams& params, SurfBackend backend,
                                                       const std::string& device) {
  validateSurfParams(params);
  if (backend == SurfBackend::Auto) {
    if (defaultDeviceIsGpu(device)) {
      try {
        return surf::makeOpenClSurf(params, device);
      } catch (const Error&) {
        // A GPU without double precision, or whose compiler rejects the kernels: Auto goes on to the
        // CPU backends (SurfBackend::OpenCL, asked for by name, reports the error instead).
      }
    }
    backend = cpuSurfBackend();
  }
  if (backend == SurfBackend::OpenCV) return surf::makeOpenCvSurf(params);
  if (backend == SurfBackend::OpenCL) return surf::makeOpenClSurf(params, device);
  return surf::makeBuiltinSurf(params);
}

cv::Mat toSurfGray(cv::InputArray image) {
  if (image.empty()) throw InvalidInput("SURF: the image is empty");
  cv::Mat img = image.getMat();
  const int depth = img.depth(), cn = img.channels();
  if ((depth != CV_8U && depth != CV_16U) || (cn != 1 && cn != 3 && cn != 4))
    throw InvalidInput("SURF: unsupported image " + describeMat(img) +
                       " (expected 8-bit or 16-bit with 1, 3 or 4 channels)");
  if (depth == CV_16U) {
    // 65535 -> 255 with rounding: the 8-bit image a caller of OpenCV's SURF would have to pass.
    cv::Mat eight;
    img.convertTo(eight, CV_8U, 1.0 / 257.0);
    img = eight;
  }
  if (cn == 3) {
    cv::Mat gray;
    cv::cvtColor(img, gray, cv::COLOR_BGR2GRAY);
    return gray;
  }
  if (cn == 4) {
    cv::Mat gray;
    cv::cvtColor(img, gray, cv::COLOR_BGRA2GRAY);
    return gray;
  }
  return img;
}

cv::Mat SurfExtractor::checkedGray(cv::InputArray image) const {
  if (image.empty()) throw InvalidInput("SURF: the image is empty");
  const cv::Size size = image.size();
  const auto pixels = static_cast<std::int64_t>(size.width) * size.height;
  if (pixels > params_.max_pixels)
    throw CapacityError("SURF: the image has " + std::to_string(size.width) + "x" + std::to_string(size.height) +
                        " = " + std::to_string(pixels) + " pixels, above the limit of " +
                        std::to_string(params_.max_pixels) + " (SurfParams::max_pixels)");
  return toSurfGray(image);
}

void SurfExtractor::runChecked(cv::InputArray image, cv::InputArray mask, std::vector<cv::KeyPoint>& keypoints,
                               bool use_provided_keypoints, cv::OutputArray descriptors,
                               SurfStageTimes* times) const {
  const auto start = std::chrono::steady_clock::now();
  const cv::Mat gray = checkedGray(image);
  cv::Mat m;
  if (!mask.empty()) {
    m = mask.getMat();
    if (m.type() != CV_8UC1 || m.size() != gray.size())
      throw InvalidInput("SURF: the mask must be CV_8UC1 of the image's size " + std::to_string(gray.cols) + "x" +
                         std::to_string(gray.rows) + ", got " + describeMat(m));
  }
  SurfStageTimes local;
  local.prepare_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  if (!use_provided_keypoints) keypoints.clear();
  if (descriptors.needed()) {
    cv::Mat d;
    run(gray, m, keypoints, use_provided_keypoints, &d, local);
    CV_Assert(d.type() == CV_32F && d.rows == static_cast<int>(keypoints.size()) &&
              (d.rows == 0 || d.cols == descriptorSize()));
    if (descriptors.kind() == cv::_InputArray::MAT)
      descriptors.assign(d);  // no copy
    else
      d.copyTo(descriptors);
  } else {
    run(gray, m, keypoints, use_provided_keypoints, nullptr, local);
  }
  if (times != nullptr) *times = local;
}

std::vector<ImageFeatures> SurfExtractor::detectAndComputeBatch(const std::vector<cv::Mat>& images,
                                                                SurfStageTimes* times) const {
  const auto start = std::chrono::steady_clock::now();
  std::vector<cv::Mat> grays;
  for (const cv::Mat& image : images) grays.push_back(checkedGray(image));
  SurfStageTimes local;
  local.prepare_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::vector<ImageFeatures> features = grays.empty() ? std::vector<ImageFeatures>() : runBatch(grays, local);
  if (times != nullptr) *times = local;
  return features;
}

std::vector<ImageFeatures> SurfExtractor::runBatch(const std::vector<cv::Mat>& grays, SurfStageTimes& times) const {
  std::vector<ImageFeatures> features(grays.size());
  for (std::size_t i = 0; i < grays.size(); ++i) {
    cv::Mat descriptors;
    run(grays[i], cv::Mat(), features[i].keypoints, false, &descriptors, times);
    features[i].descriptors = descriptors;
  }
  return features;
}

void SurfExtractor::detectAndCompute(cv::InputArray image, cv::InputArray mask, std::vector<cv::KeyPoint>& keypoints,
                                     cv::OutputArray descriptors, SurfStageTimes* times) const {
  runChecked(image, mask, keypoints, false, descriptors, times);
}

void SurfExtractor::detect(cv::InputArray image, std::vector<cv::KeyPoint>& keypoints, cv::InputArray mask) const {
  runChecked(image, mask, keypoints, false, cv::noArray(), nullptr);
}

void SurfExtractor::compute(cv::InputArray image, std::vector<cv::KeyPoint>& keypoints,
                            cv::OutputArray descriptors) const {
  runChecked(image, cv::noArray(), keypoints, true, descriptors, nullptr);
}

ImageFeatures SurfExtractor::extractFeatures(const cv::Mat& image) const {
  ImageFeatures features;
  detectAndCompute(image, cv::noArray(), features.keypoints, features.descriptors);
  return features;
}

std::vector<ImageFeatures> SurfExtractor::extractFeaturesBatch(const std::vector<cv::Mat>& images) const {
  return detectAndComputeBatch(images);
}

DescriptorsMap viewDescriptors(const cv::Mat& descriptors) {
  if (descriptors.empty()) return DescriptorsMap(nullptr, 0, descriptors.cols, Eigen::OuterStride<>(descriptors.cols));
  if (descriptors.type() != CV_32FC1 || descriptors.dims != 2)
    throw InvalidInput("descriptors must be a 2-D CV_32FC1 matrix, got " + describeMat(descriptors));
  return DescriptorsMap(descriptors.ptr<float>(), descriptors.rows, descriptors.cols,
                        Eigen::OuterStride<>(static_cast<Eigen::Index>(descriptors.step1())));
}

Descriptors toDescriptors(const cv::Mat& descriptors) {
  return Descriptors(viewDescriptors(descriptors));
}

}  // namespace bovw
