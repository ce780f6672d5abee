// The OpenCL orientation and descriptor stages (src/features/opencl/surf_describe.hpp) against the
// CPU stages they port (assignOrientations, computeDescriptors with the reference patch path), on the
// keypoints the CPU detector finds in real images (tests/data/surf, Debian's opencv-doc images where
// installed) and in generated ones of odd sizes, and on placed keypoints: at and beyond the borders,
// at axis angles, at window sizes that take cv::resize's integer-scale path, larger than the image.
// Both stages must agree bit for bit: angles and removals, and every descriptor row (the issue's
// target, median L2 distance <= 0.01, is checked and reported as well). That rests on the device
// rounding as the host's OpenCV and C library do (docs/SURF.md, "OpenCL orientation and descriptor
// stages"); the OpenCLSurfDeviceMath tests check those two points directly.
#include <bovw/device.hpp>
#include <bovw/image_io.hpp>

#include "features/extremum_detection.hpp"
#include "features/hessian_pyramid.hpp"
#include "features/integral_image.hpp"
#include "features/opencl/device_keypoint.hpp"
#include "features/opencl/opencv_atan_rounding.hpp"
#include "features/opencl/program_options.hpp"
#include "features/opencl/surf_describe.hpp"
#include "features/orientation.hpp"
#include "features/surf_descriptor.hpp"
#include "opencl/program_cache.hpp"
#include "surf_test_support.hpp"
#include "support/test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

namespace bovw::test {
namespace {

using surf::DeviceKeypoint;

constexpr float kUntouched = -7.f;  // descriptor rows the CPU does not write


// The CPU detector's keypoints (angle -1), as the orientation stage receives them.
std::vector<cv::KeyPoint> detectedKeypoints(const cv::Mat& gray, const cv::Mat& sum) {
  surf::HessianPyramid pyramid = surf::planHessianPyramid(gray.size(), 4, 3);
  surf::computeHessianDeterminants(sum, pyramid);
  return surf::findHessianExtrema(sum, cv::Mat(), pyramid, 100.f);
}

struct Scene {
  std::string name;
  cv::Mat gray, sum;
  std::vector<cv::KeyPoint> keypoints;  // detected, not yet oriented
};

Scene scene(const std::string& name, const cv::Mat& gray) {
  Scene s{name, gray, surf::integralImage(gray), {}};
  s.keypoints = detectedKeypoints(s.gray, s.sum);
  return s;
}

// The images: the golden ones, odd-sized generated ones, and a few of opencv-doc's where installed.
std::vector<Scene> scenes() {
  std::vector<Scene> all;
  all.push_back(scene("box.png", loadImage(surfData("box.png"))));
  all.push_back(scene("graf1_gray.png", loadImage(surfData("graf1_gray.png"))));
  all.push_back(scene("textured 331x257", texturedImage(331, 257, 7)));
  all.push_back(scene("textured 97x61", texturedImage(97, 61, 3)));
  for (const char* name : {"building.jpg", "box_in_scene.png", "butterfly.jpg"})
    if (std::filesystem::exists(opencvDocImage(name))) all.push_back(scene(name, loadImage(opencvDocImage(name))));
  return all;
}

class OpenCLSurfDescribe : public ::testing::Test {
 protected:
  void SetUp() override {
    if (listDevices().empty()) GTEST_SKIP() << "no OpenCL platform installed (Debian: apt install pocl-opencl-icd)";
    device_ = std::make_unique<detail::DeviceContext>("");
    if (device_->device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") == std::string::npos)
      GTEST_SKIP() << device_->info().name << " has no cl_khr_fp64; the SURF stages need double";
  }

  cl::Buffer upload(const void* data, std::size_t bytes) {
    return cl::Buffer(device_->context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, const_cast<void*>(data));
  }

  cl::Buffer uploadKeypoints(const std::vector<cv::KeyPoint>& keypoints) {
    std::vector<DeviceKeypoint> records;
    for (const cv::KeyPoint& k : keypoints) records.push_back(surf::toDevice(k));
    return upload(records.data(), sizeof(DeviceKeypoint) * records.size());
  }

  std::vector<cv::KeyPoint> downloadKeypoints(const cl::Buffer& buffer, std::size_t n) {
    std::vector<DeviceKeypoint> records(n);
    device_->queue().enqueueReadBuffer(buffer, CL_TRUE, 0, sizeof(DeviceKeypoint) * n, records.data());
    std::vector<cv::KeyPoint> keypoints;
    for (const DeviceKeypoint& r : records) keypoints.push_back(surf::fromDevice(r));
    return keypoints;
  }

  // assignOrientations on the device.
  std::vector<cv::KeyPoint> orientOnDevice(const Scene& s, const std::vector<cv::KeyPoint>& keypoints, bool upright) {
    if (keypoints.empty()) return {};
    const surf::DeviceImages image = surf::uploadImages(*device_, {s.gray}, "image");
    const cl::Buffer kp_buffer = uploadKeypoints(keypoints);
    surf::enqueueOrientations(*device_, image, kp_buffer, static_cast<int>(keypoints.size()), upright);
    return downloadKeypoints(kp_buffer, keypoints.size());
  }

  // computeDescriptors on the device.
  cv::Mat describeOnDevice(const cv::Mat& gray, const std::vector<cv::KeyPoint>& keypoints, bool extended,
                           bool upright) {
    cv::Mat desc(static_cast<int>(keypoints.size()), extended ? 128 : 64, CV_32F, cv::Scalar(kUntouched));
    if (keypoints.empty()) return desc;
    const surf::DeviceImages image = surf::uploadImages(*device_, {gray}, "image");
    const cl::Buffer kp_buffer = uploadKeypoints(keypoints);
    const cl::Buffer desc_buffer = upload(desc.data, desc.total() * sizeof(float));
    surf::enqueueDescriptors(*device_, image, kp_buffer, static_cast<int>(keypoints.size()), extended, upright,
                             desc_buffer);
    device_->queue().enqueueReadBuffer(desc_buffer, CL_TRUE, 0, desc.total() * sizeof(float), desc.data);
    return desc;
  }

  std::unique_ptr<detail::DeviceContext> device_;
};

// Every field bit for bit (angle and the size -1 mark are the stage's output; the rest must pass
// through). Returns the number of keypoints that differ.
int countDifferent(const std::vector<cv::KeyPoint>& a, const std::vector<cv::KeyPoint>& b, const std::string& what) {
  EXPECT_EQ(a.size(), b.size()) << what;
  int different = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const DeviceKeypoint x = surf::toDevice(a[i]), y = surf::toDevice(b[i]);
    if (std::memcmp(&x, &y, sizeof x) != 0) {
      if (different < 5)
        ADD_FAILURE() << what << ": keypoint " << i << " at (" << a[i].pt.x << ", " << a[i].pt.y << ") size "
                      << a[i].size << ": CPU angle " << a[i].angle << " size " << a[i].size << ", device angle "
                      << b[i].angle << " size " << b[i].size;
      ++different;
    }
  }
  return different;
}

struct DescriptorAgreement {
  int rows = 0, compared = 0, identical = 0;
  double max_abs = 0, median_l2 = 0;
};

std::ostream& operator<<(std::ostream& os, const DescriptorAgreement& d) {
  return os << d.identical << " of " << d.compared << " rows identical (" << d.rows << " keypoints), max |diff| "
            << d.max_abs << ", median L2 " << d.median_l2;
}

// CPU (reference patch path) against device, row by row; rows of removed keypoints must be zeros.
DescriptorAgreement agreement(const cv::Mat& cpu, const cv::Mat& device, const std::vector<cv::KeyPoint>& keypoints) {
  DescriptorAgreement a;
  a.rows = cpu.rows;
  std::vector<double> l2;
  for (int i = 0; i < cpu.rows; ++i) {
    if (keypoints[i].size <= 0) {  // the device writes zeros, so that a histogram search may read the row
      EXPECT_EQ(cv::countNonZero(device.row(i) != 0), 0) << "row " << i << " of a removed keypoint is not zeros";
      continue;
    }
    ++a.compared;
    a.identical += std::memcmp(cpu.ptr(i), device.ptr(i), cpu.cols * sizeof(float)) == 0;
    l2.push_back(cv::norm(cpu.row(i), device.row(i), cv::NORM_L2));
    a.max_abs = std::max(a.max_abs, cv::norm(cpu.row(i), device.row(i), cv::NORM_INF));
  }
  if (!l2.empty()) {
    std::nth_element(l2.begin(), l2.begin() + l2.size() / 2, l2.end());
    a.median_l2 = l2[l2.size() / 2];
  }
  return a;
}

cv::Mat describeOnCpu(const cv::Mat& gray, const std::vector<cv::KeyPoint>& keypoints, bool extended, bool upright) {
  cv::Mat desc(static_cast<int>(keypoints.size()), extended ? 128 : 64, CV_32F, cv::Scalar(kUntouched));
  surf::computeDescriptors(gray, keypoints, extended, upright, desc, surf::PatchPath::Reference);
  return desc;
}

void expectIdentical(const DescriptorAgreement& a, const std::string& what) {
  EXPECT_GT(a.compared, 0) << what;
  EXPECT_EQ(a.identical, a.compared) << what << ": " << a;
  EXPECT_LE(a.median_l2, 0.01) << what << ": " << a;  // the issue's target
}

TEST_F(OpenCLSurfDescribe, OrientationsOfDetectedKeypointsAreIdentical) {
  for (const Scene& s : scenes()) {
    ASSERT_FALSE(s.keypoints.empty()) << s.name;
    for (bool upright : {false, true}) {
      std::vector<cv::KeyPoint> cpu = s.keypoints;
      surf::assignOrientations(s.sum, cpu, upright);
      const std::vector<cv::KeyPoint> device = orientOnDevice(s, s.keypoints, upright);
      const int different = countDifferent(cpu, device, s.name + (upright ? " upright" : ""));
      EXPECT_EQ(different, 0) << s.name;
      std::cout << s.name << (upright ? " upright" : "") << ": " << s.keypoints.size() - different << " of "
                << s.keypoints.size() << " orientations identical\n";
    }
  }
}

// Keypoints the orientation removes (wavelet wider than the image, no sample inside) or samples only
// partly: at and beyond every border, and of every size up to the image's.
TEST_F(OpenCLSurfDescribe, OrientationsAtBordersAndRemovalsAreIdentical) {
  const Scene s{"textured 61x45", texturedImage(61, 45, 5), {}, {}};
  Scene with_sum = s;
  with_sum.sum = surf::integralImage(s.gray);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  std::vector<cv::KeyPoint> keypoints;
  for (float size = 9.f; size < 160.f; size += 1.7f) {
    keypoints.emplace_back(-30.f + unit(rng) * 121.f, -30.f + unit(rng) * 105.f, size);
    keypoints.emplace_back(unit(rng) < 0.5f ? 0.f : 60.f, unit(rng) * 44.f, size);
  }
  keypoints.emplace_back(-80.f, -80.f, 12.f);   // no sample inside
  keypoints.emplace_back(30.f, 22.f, 400.f);    // wavelet wider than the image
  std::vector<cv::KeyPoint> cpu = keypoints;
  surf::assignOrientations(with_sum.sum, cpu, false);
  const int removed = static_cast<int>(std::count_if(cpu.begin(), cpu.end(), [](const cv::KeyPoint& k) { return k.size < 0; }));
  EXPECT_GT(removed, 2) << "the placed keypoints should include removed ones";
  EXPECT_EQ(countDifferent(cpu, orientOnDevice(with_sum, keypoints, false), "placed keypoints"), 0);
  std::vector<cv::KeyPoint> cpu_upright = keypoints;
  surf::assignOrientations(with_sum.sum, cpu_upright, true);
  EXPECT_EQ(countDifferent(cpu_upright, orientOnDevice(with_sum, keypoints, true), "placed keypoints, upright"), 0);
}

TEST_F(OpenCLSurfDescribe, DescriptorsOfDetectedKeypointsMatch) {
  for (const Scene& s : scenes()) {
    for (bool upright : {false, true}) {
      std::vector<cv::KeyPoint> oriented = s.keypoints;
      surf::assignOrientations(s.sum, oriented, upright);
      for (bool extended : {false, true}) {
        const std::string what = s.name + (extended ? " extended" : "") + (upright ? " upright" : "");
        const DescriptorAgreement a = agreement(describeOnCpu(s.gray, oriented, extended, upright),
                                                describeOnDevice(s.gray, oriented, extended, upright), oriented);
        expectIdentical(a, what);
        std::cout << what << ": " << a << "\n";
      }
    }
  }
}

// Window sizes 25..~700 (cv::resize's general and integer-scale tables: sizes 15, 22.5, 30, ... give
// windows of 21k pixels), windows inside, across and beyond the border, axis and arbitrary angles.
TEST_F(OpenCLSurfDescribe, DescriptorsOfPlacedKeypointsMatch) {
  const cv::Mat img = texturedImage(331, 257, 11);
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  const float axis_angles[] = {0.f, 90.f, 180.f, 270.f, 45.f, 359.99f, 0.0001f, 90.0001f};
  std::vector<cv::KeyPoint> keypoints;
  for (float size = 9.f; size < 250.f; size += 0.77f) {
    const float x = -20.f + unit(rng) * (img.cols + 40.f), y = -20.f + unit(rng) * (img.rows + 40.f);
    const float angle = keypoints.size() % 3 == 0 ? axis_angles[keypoints.size() / 3 % 8] : unit(rng) * 360.f;
    keypoints.emplace_back(x, y, size, angle);
  }
  for (int k = 1; k <= 12; ++k)  // s = 1.2 size / 9 = k: window 21k, the "area fast" path
    keypoints.emplace_back(40.f + 20 * unit(rng), 60.f + 20 * unit(rng), 7.5f * k, unit(rng) * 360.f);
  for (int i = 0; i < 120; ++i) {  // small keypoints on the edges, at axis angles
    const float x = i % 2 ? 20.f + unit(rng) * (img.cols - 40.f) : (i % 4 == 0 ? 0.f : img.cols - 1.f);
    keypoints.emplace_back(x, unit(rng) * (img.rows - 1.f), 9.f + unit(rng) * 30.f, axis_angles[i % 8]);
  }
  keypoints.emplace_back(100.f, 100.f, -1.f, 0.f);  // removed by the orientation stage: row of zeros
  keypoints.emplace_back(10.f, 10.f, 0.f, 0.f);
  for (bool upright : {false, true})
    for (bool extended : {false, true}) {
      const std::string what = std::string("placed") + (extended ? " extended" : "") + (upright ? " upright" : "");
      const DescriptorAgreement a = agreement(describeOnCpu(img, keypoints, extended, upright),
                                              describeOnDevice(img, keypoints, extended, upright), keypoints);
      expectIdentical(a, what);
      std::cout << what << ": " << a << "\n";
    }
}

// Both stages chained on the device, as the backend runs them, against the CPU chain.
TEST_F(OpenCLSurfDescribe, DeviceChainMatchesCpuChain) {
  const Scene s = scene("graf1_gray.png", loadImage(surfData("graf1_gray.png")));
  std::vector<cv::KeyPoint> cpu = s.keypoints;
  surf::assignOrientations(s.sum, cpu, false);
  const std::vector<cv::KeyPoint> device = orientOnDevice(s, s.keypoints, false);
  ASSERT_EQ(countDifferent(cpu, device, "chain"), 0);
  const DescriptorAgreement a = agreement(describeOnCpu(s.gray, cpu, true, false),
                                          describeOnDevice(s.gray, device, true, false), cpu);
  expectIdentical(a, "chain");
}

// n = 0 enqueues nothing (and touches no buffer).
TEST_F(OpenCLSurfDescribe, EmptyKeypointListIsANoOp) {
  const cv::Mat img = texturedImage(40, 30, 1);
  const cv::Mat sum = surf::integralImage(img);
  const DeviceKeypoint sentinel{1, 2, 3, 4, 5, 6, 7, 0};
  const cl::Buffer kp_buffer = upload(&sentinel, sizeof sentinel);
  const float marker = kUntouched;
  const cl::Buffer desc_buffer = upload(&marker, sizeof marker);
  const surf::DeviceImages image = surf::uploadImages(*device_, {img}, "image");
  surf::enqueueOrientations(*device_, image, kp_buffer, 0, false);
  surf::enqueueDescriptors(*device_, image, kp_buffer, 0, false, false, desc_buffer);
  DeviceKeypoint after{};
  float marker_after = 0;
  device_->queue().enqueueReadBuffer(kp_buffer, CL_TRUE, 0, sizeof after, &after);
  device_->queue().enqueueReadBuffer(desc_buffer, CL_TRUE, 0, sizeof marker_after, &marker_after);
  EXPECT_EQ(std::memcmp(&after, &sentinel, sizeof after), 0);
  EXPECT_EQ(marker_after, kUntouched);
}

// The two places where the stages' results rest on the host's libraries, checked directly on many
// inputs (on real keypoints they decide only a few results): the device's polynomial atan in each
// rounding the host's OpenCV uses, and its sinf/cosf of the window direction. A test kernel calls the
// stage's own device functions (the embedded kernel source, with a kernel appended).
class OpenCLSurfDeviceMath : public OpenCLSurfDescribe {
 protected:
  cl::Kernel testKernel(const std::string& file, const std::string& source, const std::string& name,
                        const std::string& options) {
    cl::Program program(device_->context(), detail::embeddedKernel(file) + source);
    try {
      // The production programs' options, so that the test exercises what the backend runs.
      program.build({device_->device()}, (surf::surfProgramOptions(*device_) + " " + options).c_str());
    } catch (const cl::Error&) {
      ADD_FAILURE() << program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_->device());
      throw;
    }
    return cl::Kernel(program, name.c_str());
  }

  std::vector<float> run(cl::Kernel& kernel, const std::vector<float>& a, const std::vector<float>& b, int mode) {
    const std::size_t n = a.size();
    const cl::Buffer ba = upload(a.data(), sizeof(float) * n), bb = upload(b.data(), sizeof(float) * n);
    const cl::Buffer out(device_->context(), CL_MEM_WRITE_ONLY, sizeof(float) * n);
    kernel.setArg(0, ba);
    kernel.setArg(1, bb);
    kernel.setArg(2, out);
    kernel.setArg(3, cl_int{mode});
    device_->queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n));
    std::vector<float> result(n);
    device_->queue().enqueueReadBuffer(out, CL_TRUE, 0, sizeof(float) * n, result.data());
    return result;
  }
};

// Differing elements; the first few are printed (with the inputs, when given) to say where.
int countUnequal(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>* y = nullptr,
                 const std::vector<float>* x = nullptr) {
  int unequal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) == 0) continue;
    if (++unequal <= 5) {
      std::printf("  element %zu: device %a, host %a", i, a[i], b[i]);
      if (y != nullptr && x != nullptr) std::printf(" (y %a, x %a)", (*y)[i], (*x)[i]);
      std::printf("\n");
    }
  }
  return unequal;
}

TEST_F(OpenCLSurfDeviceMath, PolynomialAtanEqualsOpenCVs) {
  const surf::OpenCVAtanRounding& r = surf::opencvAtanRounding();
  cl::Kernel kernel = testKernel("surf_orientation", R"(
      kernel void test_fast_atan(global const float* y, global const float* x, global float* out, int rounding) {
        out[get_global_id(0)] = surf_fast_atan(y[get_global_id(0)], x[get_global_id(0)], rounding);
      })", "test_fast_atan", surf::atanBuildOptions(r));
  constexpr int kInputs = 1 << 16;
  std::mt19937 rng(19);
  std::normal_distribution<float> gauss(0.f, 1.f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<float> x(kInputs), y(kInputs), phase(kInputs), one_by_one(kInputs), fast(kInputs);
  for (int i = 0; i < kInputs; ++i) {
    x[i] = std::ldexp(gauss(rng), exponent(rng));
    y[i] = std::ldexp(gauss(rng), exponent(rng));
  }
  x[0] = y[0] = 0.f;  // atan(0, 0), and the axes
  x[1] = 0.f;
  y[2] = 0.f;
  x[3] = -0.f;
  cv::phase(cv::Mat(1, kInputs, CV_32F, x.data()), cv::Mat(1, kInputs, CV_32F, y.data()),
            cv::Mat(1, kInputs, CV_32F, phase.data()), true);
  for (int i = 0; i < kInputs; ++i) {
    cv::phase(cv::Mat(1, 1, CV_32F, &x[i]), cv::Mat(1, 1, CV_32F, &y[i]), cv::Mat(1, 1, CV_32F, &one_by_one[i]),
              true);
    fast[i] = cv::fastAtan2(y[i], x[i]);
  }
  const surf::AtanRounding long_arrays = r.phase_vector_from > 0 ? r.phase_vector : r.phase_scalar;
  EXPECT_EQ(countUnequal(run(kernel, y, x, static_cast<int>(long_arrays)), phase, &y, &x), 0) << "cv::phase, long arrays";
  EXPECT_EQ(countUnequal(run(kernel, y, x, static_cast<int>(r.phase_scalar)), one_by_one, &y, &x), 0)
      << "cv::phase, 1 element";
  EXPECT_EQ(countUnequal(run(kernel, y, x, static_cast<int>(r.fast_atan2)), fast, &y, &x), 0) << "cv::fastAtan2";
}

// Every float angle in [0, 360] that is a multiple of 2^-12 degrees, and random ones: the direction's
// sine and cosine as the CPU stage gets them from std::sin(float) / std::cos(float).
TEST_F(OpenCLSurfDeviceMath, WindowDirectionSinCosEqualsTheHosts) {
  cl::Kernel kernel = testKernel("surf_descriptor", R"(
      kernel void test_sincos(global const float* angle, global const float* unused, global float* out, int cosine) {
        const float dir = angle[get_global_id(0)] * 0x1.1df46ap-6f;
        out[get_global_id(0)] = surf_glibc_sincosf(dir, cosine);
      })", "test_sincos", "-DSURF_EXTENDED=0 -DSURF_UPRIGHT=0");
  std::vector<float> angle;
  for (int i = 0; i <= 360 * 4096; ++i) angle.push_back(i / 4096.f);
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> degrees(0.f, 360.f);
  for (int i = 0; i < (1 << 20); ++i) angle.push_back(degrees(rng));
  std::vector<float> sin_host, cos_host;
  for (float a : angle) {
    const float dir = a * static_cast<float>(CV_PI / 180);
    sin_host.push_back(std::sin(dir));
    cos_host.push_back(std::cos(dir));
  }
  EXPECT_EQ(countUnequal(run(kernel, angle, angle, 0), sin_host), 0) << "sinf";
  EXPECT_EQ(countUnequal(run(kernel, angle, angle, 1), cos_host), 0) << "cosf";
}

// A window sample's arithmetic without conversions (surf_window.h): the integer part and fraction of
// a double position, and the bilinear pixel's bytes and rounding, against the direct forms the CPU
// stage uses (floor, (float)(x - floor(x)), cvRound of the float sum), on fresh random positions with
// full 53-bit mantissas, running sums as the window makes them, and the edge cases: integers, one
// step either side of them, halves, negatives, and pixels whose sum is a half.
TEST_F(OpenCLSurfDeviceMath, WindowSampleArithmeticEqualsTheDirectForms) {
  cl::Program program(device_->context(), detail::embeddedKernel("surf_descriptor") + R"(
      kernel void test_split(global const double* x, global int* whole, global float* fraction) {
        float f;
        whole[get_global_id(0)] = surf_split_position(x[get_global_id(0)], &f);
        fraction[get_global_id(0)] = f;
      }
      kernel void test_pixel(global const uint* quads, global const float* a, global const float* b,
                             global float* out) {
        const size_t i = get_global_id(0);
        out[i] = surf_bilinear_pixel(quads + 32 * i, 8, 0, 0, a[i], b[i]);
      })");
  try {
    program.build({device_->device()}, (surf::surfProgramOptions(*device_) + " -DSURF_EXTENDED=0 -DSURF_UPRIGHT=0").c_str());
  } catch (const cl::Error&) {
    FAIL() << program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_->device());
  }

  BOVW_SEEDED_RNG(rng);
  std::uniform_real_distribution<double> position(-300.0, 5000.0);
  std::uniform_real_distribution<float> start(0.f, 4000.f), step(-1.f, 1.f);
  std::vector<double> x = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 4095.5, 1e-300, -1e-300,
                           std::nextafter(1.0, 0.0), std::nextafter(-1.0, 0.0), std::nextafter(3000.0, 1e9),
                           std::nextafter(3000.0, 0.0), 2147483647.0, -2147483647.0};
  for (int i = 0; i < (1 << 16); ++i) x.push_back(position(rng));
  for (int i = 0; i < 256; ++i) {  // running sums of a window row, as sampleWindow's
    double p = start(rng);
    const float s = step(rng);
    for (int k = 0; k < 256; ++k, p += s) x.push_back(p);
  }
  const std::size_t n = x.size();
  const cl::Buffer bx = upload(x.data(), sizeof(double) * n);
  const cl::Buffer bw(device_->context(), CL_MEM_WRITE_ONLY, sizeof(cl_int) * n);
  const cl::Buffer bf(device_->context(), CL_MEM_WRITE_ONLY, sizeof(float) * n);
  cl::Kernel split(program, "test_split");
  split.setArg(0, bx);
  split.setArg(1, bw);
  split.setArg(2, bf);
  device_->queue().enqueueNDRangeKernel(split, cl::NullRange, cl::NDRange(n));
  std::vector<cl_int> whole(n);
  std::vector<float> fraction(n);
  device_->queue().enqueueReadBuffer(bw, CL_TRUE, 0, sizeof(cl_int) * n, whole.data());
  device_->queue().enqueueReadBuffer(bf, CL_TRUE, 0, sizeof(float) * n, fraction.data());
  int wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double floor = std::floor(x[i]);
    const float expected = static_cast<float>(x[i] - floor);
    if (whole[i] == static_cast<int>(floor) && std::memcmp(&fraction[i], &expected, sizeof(float)) == 0) continue;
    if (++wrong <= 5)
      std::printf("  x %a: device %d + %a, host %d + %a\n", x[i], whole[i], fraction[i], static_cast<int>(floor),
                  expected);
  }
  EXPECT_EQ(wrong, 0) << "of " << n << " positions";

  // Bilinear pixels: a quad word per sample (in its own 8 x 4 tile), fractions from the positions
  // above and the halves that put a sum on .5.
  std::uniform_int_distribution<cl_uint> word;
  std::vector<cl_uint> quads;
  std::vector<float> a, b, expected;
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    const cl_uint q = i % 16 == 0 ? 0xff01ff00u + static_cast<cl_uint>(i / 16 % 256) : word(rng);
    const float fa = i % 6 == 0 ? 0.5f : fraction[i], fb = i % 10 == 0 ? 0.5f : fraction[i + 1];
    std::vector<cl_uint> tile(32, 0);
    tile[0] = q;
    quads.insert(quads.end(), tile.begin(), tile.end());
    a.push_back(fa);
    b.push_back(fb);
    const float p0 = q & 0xff, p1 = (q >> 8) & 0xff, p2 = (q >> 16) & 0xff, p3 = q >> 24;
    expected.push_back(static_cast<float>(static_cast<unsigned char>(
        cvRound(p0 * (1.f - fa) * (1.f - fb) + p1 * fa * (1.f - fb) + p2 * (1.f - fa) * fb + p3 * fa * fb))));
  }
  const std::size_t m = a.size();
  const cl::Buffer bq = upload(quads.data(), sizeof(cl_uint) * quads.size()), ba = upload(a.data(), sizeof(float) * m),
                   bb = upload(b.data(), sizeof(float) * m);
  const cl::Buffer bo(device_->context(), CL_MEM_WRITE_ONLY, sizeof(float) * m);
  cl::Kernel pixel(program, "test_pixel");
  pixel.setArg(0, bq);
  pixel.setArg(1, ba);
  pixel.setArg(2, bb);
  pixel.setArg(3, bo);
  device_->queue().enqueueNDRangeKernel(pixel, cl::NullRange, cl::NDRange(m));
  std::vector<float> out(m);
  device_->queue().enqueueReadBuffer(bo, CL_TRUE, 0, sizeof(float) * m, out.data());
  EXPECT_EQ(countUnequal(out, expected), 0) << "bilinear pixels of " << m;
}

// The device's angles depend on knowing how the host's OpenCV rounds its atan; the measurement must
// describe cv::phase and cv::fastAtan2 exactly on fresh inputs of every length up to 128.
TEST(OpenCVAtanRounding, MeasuredRoundingReproducesOpenCV) {
  const surf::OpenCVAtanRounding& r = surf::opencvAtanRounding();
  std::mt19937 rng(17);
  std::normal_distribution<float> gauss(0.f, 300.f);
  int different = 0;
  for (int len = 1; len <= 128; ++len) {
    std::vector<float> x(len), y(len), angle(len);
    for (int i = 0; i < len; ++i) x[i] = gauss(rng), y[i] = gauss(rng);
    cv::Mat mx(1, len, CV_32F, x.data()), my(1, len, CV_32F, y.data()), ma(1, len, CV_32F, angle.data());
    cv::phase(mx, my, ma, true);
    const surf::AtanRounding rounding =
        r.phase_vector_from > 0 && len >= r.phase_vector_from ? r.phase_vector : r.phase_scalar;
    for (int i = 0; i < len; ++i) {
      different += surf::fastAtanDegrees(y[i], x[i], rounding) != angle[i];
      different += surf::fastAtanDegrees(y[i], x[i], r.fast_atan2) != cv::fastAtan2(y[i], x[i]);
    }
  }
  EXPECT_EQ(different, 0) << "phase scalar " << static_cast<int>(r.phase_scalar) << ", vector "
                          << static_cast<int>(r.phase_vector) << " from " << r.phase_vector_from << ", fastAtan2 "
                          << static_cast<int>(r.fast_atan2);
}

}  // namespace
}  // namespace bovw::test
