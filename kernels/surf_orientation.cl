// SURF orientation on the device: assignOrientations (src/features/orientation.cpp) with the same
// samples, roundings and window rule, so the angles are the CPU's bit for bit. One work-group per
// keypoint: work-item k takes sample k (its Haar responses, weight and whole-degree angle), then
// work-item w sums window w as OpenCV does (every sample, in sample order, in float), and the first
// work-item keeps the first window of largest float modulus.
//
// Build options: SURF_PHASE_SCALAR, SURF_PHASE_VECTOR, SURF_PHASE_VECTOR_FROM and SURF_FAST_ATAN2
// say how the host's OpenCV rounds its polynomial atan (src/features/opencl/opencv_atan_rounding.hpp).
#include "surf_common.h"

#define SURF_ORIENTATION_GROUP 128  // at least the 109 samples and the 72 windows
#define SURF_WINDOWS 72             // window starts every 5 degrees
#define SURF_WINDOW_STEP 5
#define SURF_HALF_WINDOW 30         // 60-degree window

// AtanRounding's values.
#define SURF_ATAN_PLAIN 0
#define SURF_ATAN_FUSED_POLYNOMIAL 1
#define SURF_ATAN_FUSED_COMPLEMENT 2

// OpenCV's polynomial atan (core/src/mathfuncs_core.simd.hpp: atan_f32, v_atan_f32) in degrees,
// [0, 360], rounded as `rounding` says.
float surf_fast_atan(float y, float x, int rounding) {
  // atan2_p1..p7: OpenCV's coefficients times (float)(180 / pi), as floats.
  const float p1 = 0x1.ca44dep+5f, p3 = -0x1.2aaddcp+4f, p5 = 0x1.1d3f7ep+3f, p7 = -0x1.4515b2p+1f;
  const float ax = fabs(x), ay = fabs(y);
  const float c = surf_div_rn(fmin(ax, ay), fmax(ax, ay) + 0x1p-52f);  // + (float)DBL_EPSILON
  const float c2 = c * c;
  const float p = rounding == SURF_ATAN_PLAIN ? ((p7 * c2 + p5) * c2 + p3) * c2 + p1
                                              : fma(fma(fma(c2, p7, p5), c2, p3), c2, p1);
  float a;
  if (ax >= ay)
    a = p * c;
  else if (rounding == SURF_ATAN_FUSED_COMPLEMENT)
    a = fma(-p, c, 90.f);
  else
    a = 90.f - p * c;
  if (x < 0) a = 180.f - a;
  if (y < 0) a = 360.f - a;
  return a;
}

// applyBoxPattern for a Haar wavelet (two boxes): terms rounded to float, summed in double.
inline float surf_haar(global const uint* origin, surf_box a, surf_box b) {
  double d = 0;
  d += surf_box_term(surf_box_sum(origin, a), a.w);
  d += surf_box_term(surf_box_sum(origin, b), b.w);
  return (float)d;
}

// sum, images: the batch's integral images and their table (each keypoint names its image).
// sample_offset / sample_weight: OrientationSampling's `samples` entries (offsets x, y in units of s).
kernel __attribute__((reqd_work_group_size(SURF_ORIENTATION_GROUP, 1, 1)))
void surf_orientation(global const uint* sum, global const surf_image* images, global surf_keypoint* keypoints,
                      int upright, global const int2* sample_offset, global const float* sample_weight, int samples) {
  local float response_x[SURF_ORIENTATION_GROUP], response_y[SURF_ORIENTATION_GROUP];
  local int degrees[SURF_ORIENTATION_GROUP];  // -1: sample outside the image
  local float window_x[SURF_WINDOWS], window_y[SURF_WINDOWS];
  local int inside_count;

  const int lid = get_local_id(0);
  global surf_keypoint* kp = keypoints + get_group_id(0);
  const surf_image image = images[kp->image];
  const int rows = image.rows, cols = image.cols;
  const float px = kp->x, py = kp->y;
  const float s = surf_keypoint_scale(kp->size);
  // Wavelet side 4s, forced even so the pattern is symmetric about its centre.
  const int wav = 2 * (int)rint(2 * s);
  // Every work-item reads the keypoint before any writes it (the barrier below, or the same branch).
  if (rows + 1 < wav || cols + 1 < wav) {
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) kp->size = -1;
    return;
  }
  if (upright) {
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) kp->angle = 270.f;
    return;
  }
  if (lid == 0) inside_count = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  // Sample lid: Haar responses at the rounded grid position, gaussian-weighted.
  const int row_step = cols + 1;
  int inside = 0;
  float rx = 0, ry = 0;
  if (lid < samples) {
    const float half_wav = (float)(wav - 1) / 2;  // ("half" is a type in OpenCL C)
    const int2 o = sample_offset[lid];
    const int x = (int)rint(px + o.x * s - half_wav);
    const int y = (int)rint(py + o.y * s - half_wav);
    inside = y >= 0 && y < rows + 1 - wav && x >= 0 && x < cols + 1 - wav;
    if (inside) {
      global const uint* origin = sum + image.sum + (size_t)y * row_step + x;
      const float w = sample_weight[lid];
      rx = surf_haar(origin, surf_resize_box(0, 0, 2, 4, -1, 4, wav, row_step),
                     surf_resize_box(2, 0, 4, 4, 1, 4, wav, row_step)) * w;
      ry = surf_haar(origin, surf_resize_box(0, 0, 4, 2, 1, 4, wav, row_step),
                     surf_resize_box(0, 2, 4, 4, -1, 4, wav, row_step)) * w;
      atomic_inc(&inside_count);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int n = inside_count;
  if (n == 0) {  // uniform: every work-item read the same count
    if (lid == 0) kp->size = -1;
    return;
  }
  // cv::phase over the n inside samples: its rounding depends on the array's length only.
  const int phase_rounding =
      SURF_PHASE_VECTOR_FROM > 0 && n >= SURF_PHASE_VECTOR_FROM ? SURF_PHASE_VECTOR : SURF_PHASE_SCALAR;
  response_x[lid] = rx;
  response_y[lid] = ry;
  degrees[lid] = inside ? (int)rint(surf_fast_atan(ry, rx, phase_rounding)) : -1;
  barrier(CLK_LOCAL_MEM_FENCE);

  // Window lid: OpenCV's sums, over the samples whose whole degree is within 30 of its start
  // (circularly), in sample order, in float.
  if (lid < SURF_WINDOWS) {
    const int start = lid * SURF_WINDOW_STEP;
    float sx = 0, sy = 0;
    for (int k = 0; k < samples; ++k) {
      if (degrees[k] < 0) continue;
      const int d = abs(degrees[k] - start);
      if (d < SURF_HALF_WINDOW || d > 360 - SURF_HALF_WINDOW) {
        sx += response_x[k];
        sy += response_y[k];
      }
    }
    window_x[lid] = sx;
    window_y[lid] = sy;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    float best_x = 0, best_y = 0, best_mod = 0;
    for (int w = 0; w < SURF_WINDOWS; ++w) {
      const float m = window_x[w] * window_x[w] + window_y[w] * window_y[w];
      if (m > best_mod) {  // the first window of the largest float modulus
        best_mod = m;
        best_x = window_x[w];
        best_y = window_y[w];
      }
    }
    kp->angle = surf_fast_atan(-best_y, best_x, SURF_FAST_ATAN2);
  }
}
