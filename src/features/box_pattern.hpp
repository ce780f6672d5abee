// Box-filter patterns over an integral image: the building block of every SURF stage (Hessian,
// orientation wavelets, mask coverage). Layout and rounding follow OpenCV's surf.cpp so that filter
// geometry, and therefore keypoint positions and sizes, agree with OpenCV's SURF.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>

namespace bovw::surf {

// One weighted box: the four corner offsets (in elements of the integral image) relative to the
// filter origin, and the weight already divided by the box area.
struct Box {
  int p0 = 0, p1 = 0, p2 = 0, p3 = 0;
  float w = 0;
};

// Scales a pattern given as {x1, y1, x2, y2, weight} rows for a filter of `old_size` to `new_size`,
// rounding corners with cvRound as OpenCV does (so lobes of a 15x15 filter are 5 pixels, etc.).
template <int N>
inline void resizeBoxPattern(const int (&src)[N][5], Box (&dst)[N], int old_size, int new_size, int row_step) {
  const float ratio = static_cast<float>(new_size) / old_size;
  for (int k = 0; k < N; ++k) {
    const int dx1 = cvRound(ratio * src[k][0]);
    const int dy1 = cvRound(ratio * src[k][1]);
    const int dx2 = cvRound(ratio * src[k][2]);
    const int dy2 = cvRound(ratio * src[k][3]);
    dst[k].p0 = dy1 * row_step + dx1;
    dst[k].p1 = dy2 * row_step + dx1;
    dst[k].p2 = dy1 * row_step + dx2;
    dst[k].p3 = dy2 * row_step + dx2;
    dst[k].w = src[k][4] / (static_cast<float>(dx2 - dx1) * (dy2 - dy1));
  }
}

// Sum of the box at `origin` of a 32-bit integral image. The integral wraps modulo 2^32 on images
// above 2^32/255 pixels; unsigned arithmetic makes the wrap defined, and any box of fewer than
// 2^31/255 pixels still comes out exact.
inline std::int32_t boxSum(const std::int32_t* origin, int p0, int p1, int p2, int p3) {
  const auto* u = reinterpret_cast<const std::uint32_t*>(origin);
  return static_cast<std::int32_t>(u[p0] + u[p3] - u[p1] - u[p2]);
}

// One box-filter term in OpenCV's types: the integer sum converted to float and multiplied by the
// float weight, so the product is rounded to float (calcHaarPattern's `int * float`).
inline float boxTerm(std::int32_t sum, float w) { return static_cast<float>(sum) * w; }

// The weighted sum of the pattern's boxes in OpenCV's order of operations: each term rounded to
// float (boxTerm), the terms added in pattern order in double, the total rounded to float. Any
// other order (multiplying in double, or factoring the weight out of an integer combination of
// boxes) changes the last bits, and those decide exact ties in the extremum test.
template <int N>
inline float applyBoxPattern(const std::int32_t* origin, const Box (&f)[N]) {
  double d = 0;
  for (int k = 0; k < N; ++k) d += boxTerm(boxSum(origin, f[k].p0, f[k].p1, f[k].p2, f[k].p3), f[k].w);
  return static_cast<float>(d);
}

}  // namespace bovw::surf
