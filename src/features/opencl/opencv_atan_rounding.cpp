// Measures which way the linked OpenCV rounds its polynomial atan (opencv_atan_rounding.hpp).
#include "features/opencl/opencv_atan_rounding.hpp"

#include <opencv2/core.hpp>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

namespace bovw::surf {
namespace {

// OpenCV's coefficients (core/src/mathfuncs_core.simd.hpp), in degrees.
const float kP1 = 0.9997878412794807f * static_cast<float>(180 / CV_PI);
const float kP3 = -0.3258083974640975f * static_cast<float>(180 / CV_PI);
const float kP5 = 0.1555786518463281f * static_cast<float>(180 / CV_PI);
const float kP7 = -0.04432655554792128f * static_cast<float>(180 / CV_PI);

constexpr int kCandidates = 8192;
constexpr int kLongest = 64;  // cv::phase's SIMD threshold is two vectors: 8 (SSE, NEON) to 32 (AVX-512)

struct Inputs {
  std::vector<float> x, y;
};

// Gradient-like pairs over several magnitudes and every quadrant (a fixed LCG: the same every run).
Inputs candidates() {
  Inputs in;
  std::uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.f;  // [0, 1)
  };
  for (int i = 0; i < kCandidates; ++i) {
    const float scale = std::ldexp(1.f, static_cast<int>(next() * 20) - 10);
    in.x.push_back((next() * 2 - 1) * scale);
    in.y.push_back((next() * 2 - 1) * scale);
  }
  return in;
}

std::vector<float> phase(const std::vector<float>& x, const std::vector<float>& y, int from, int count) {
  std::vector<float> xs(x.begin() + from, x.begin() + from + count), ys(y.begin() + from, y.begin() + from + count);
  std::vector<float> angle(static_cast<std::size_t>(count));
  cv::Mat mx(1, count, CV_32F, xs.data()), my(1, count, CV_32F, ys.data()), ma(1, count, CV_32F, angle.data());
  cv::phase(mx, my, ma, true);
  return angle;
}

constexpr std::array<AtanRounding, 3> kRoundings = {AtanRounding::Plain, AtanRounding::FusedPolynomial,
                                                    AtanRounding::FusedComplement};

// The rounding that reproduces `angle[i]` = atan(y[i], x[i]) for every i (the one with fewest
// differences if none does; the OpenCL tests would then show the differences).
AtanRounding bestRounding(const std::vector<float>& x, const std::vector<float>& y, const std::vector<float>& angle) {
  AtanRounding best = AtanRounding::Plain;
  std::size_t best_misses = SIZE_MAX;
  for (AtanRounding r : kRoundings) {
    std::size_t misses = 0;
    for (std::size_t i = 0; i < angle.size(); ++i) misses += fastAtanDegrees(y[i], x[i], r) != angle[i];
    if (misses < best_misses) {
      best_misses = misses;
      best = r;
    }
  }
  return best;
}

OpenCVAtanRounding measure() {
  const Inputs in = candidates();
  OpenCVAtanRounding r;
  std::vector<float> one_by_one(kCandidates), fast(kCandidates);
  for (int i = 0; i < kCandidates; ++i) {
    one_by_one[i] = phase(in.x, in.y, i, 1)[0];
    fast[i] = cv::fastAtan2(in.y[i], in.x[i]);
  }
  r.phase_scalar = bestRounding(in.x, in.y, one_by_one);
  r.phase_vector = bestRounding(in.x, in.y, phase(in.x, in.y, 0, kCandidates));
  r.fast_atan2 = bestRounding(in.x, in.y, fast);
  if (r.phase_vector == r.phase_scalar) return r;
  // The shortest array cv::phase gives the vector rounding: try lengths on inputs where the two differ.
  Inputs telling;
  for (int i = 0; i < kCandidates; ++i)
    if (fastAtanDegrees(in.y[i], in.x[i], r.phase_scalar) != fastAtanDegrees(in.y[i], in.x[i], r.phase_vector)) {
      telling.x.push_back(in.x[i]);
      telling.y.push_back(in.y[i]);
    }
  const int longest = std::min(kLongest, static_cast<int>(telling.x.size()));
  for (int len = 1; len <= longest; ++len) {
    const std::vector<float> angle = phase(telling.x, telling.y, 0, len);
    bool vector = true;
    for (int i = 0; i < len; ++i) vector = vector && angle[i] == fastAtanDegrees(telling.y[i], telling.x[i], r.phase_vector);
    if (vector) {
      r.phase_vector_from = len;
      return r;
    }
  }
  r.phase_vector_from = 0;  // not found: the scalar rounding everywhere
  r.phase_vector = r.phase_scalar;
  return r;
}

}  // namespace

float fastAtanDegrees(float y, float x, AtanRounding rounding) {
  const float ax = std::fabs(x), ay = std::fabs(y);
  const float c = std::min(ax, ay) / (std::max(ax, ay) + static_cast<float>(DBL_EPSILON));
  const float c2 = c * c;
  float p;
  if (rounding == AtanRounding::Plain)
    p = ((kP7 * c2 + kP5) * c2 + kP3) * c2 + kP1;  // this file is compiled without contraction
  else
    p = std::fma(std::fma(std::fma(c2, kP7, kP5), c2, kP3), c2, kP1);
  float a;
  if (ax >= ay)
    a = p * c;
  else if (rounding == AtanRounding::FusedComplement)
    a = std::fma(-p, c, 90.f);
  else
    a = 90.f - p * c;
  if (x < 0) a = 180.f - a;
  if (y < 0) a = 360.f - a;
  return a;
}

const OpenCVAtanRounding& opencvAtanRounding() {
  static const OpenCVAtanRounding rounding = measure();
  return rounding;
}

std::string atanBuildOptions(const OpenCVAtanRounding& r) {
  return " -DSURF_PHASE_SCALAR=" + std::to_string(static_cast<int>(r.phase_scalar)) +
         " -DSURF_PHASE_VECTOR=" + std::to_string(static_cast<int>(r.phase_vector)) +
         " -DSURF_PHASE_VECTOR_FROM=" + std::to_string(r.phase_vector_from) +
         " -DSURF_FAST_ATAN2=" + std::to_string(static_cast<int>(r.fast_atan2));
}

}  // namespace bovw::surf
