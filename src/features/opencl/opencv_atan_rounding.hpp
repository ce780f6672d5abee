// How the linked OpenCV rounds its polynomial atan (cv::phase, cv::fastAtan2) on this CPU, so that
// the OpenCL orientation stage rounds the same way. OpenCV evaluates one polynomial in three ways,
// depending on how each copy of the code was compiled and which copy the CPU dispatches to: plain
// float operations; the polynomial's multiply-adds fused (its SIMD code, v_fma); or, where the
// compiler contracted the scalar code (GCC does in the AVX2-dispatched copy), the complement
// 90 - p * c fused as well. cv::phase takes the SIMD code for arrays of at least two vectors and
// the scalar code below that. The orientation's whole-degree binning sees the last bit of an angle
// near a half degree, so the device must know which applies (measured once, from OpenCV itself).
#pragma once

#include <string>

namespace bovw::surf {

// Values match kernels/surf_orientation.cl's SURF_ATAN_* codes.
enum class AtanRounding { Plain = 0, FusedPolynomial = 1, FusedComplement = 2 };

struct OpenCVAtanRounding {
  AtanRounding phase_scalar = AtanRounding::Plain;  // cv::phase on short arrays
  AtanRounding phase_vector = AtanRounding::Plain;  // cv::phase from phase_vector_from elements on
  int phase_vector_from = 0;                        // 0: one way at every length
  AtanRounding fast_atan2 = AtanRounding::Plain;    // cv::fastAtan2
};

// OpenCV's polynomial atan in degrees, [0, 360], rounded as `rounding` says.
float fastAtanDegrees(float y, float x, AtanRounding rounding);

// The linked OpenCV's rounding on this CPU, found by comparing its results with fastAtanDegrees
// on inputs that tell the ways apart (the first call measures, later calls return the same).
const OpenCVAtanRounding& opencvAtanRounding();

// -D options telling kernels/surf_orientation.cl the rounding.
std::string atanBuildOptions(const OpenCVAtanRounding& rounding);

}  // namespace bovw::surf
