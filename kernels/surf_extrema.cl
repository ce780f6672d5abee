// SURF stage 3 on the device: 3x3x3 maxima of the determinants above the threshold, refined by one
// Newton step (Brown and Lowe), as extremum_detection.cpp does after OpenCV's findMaximaInLayer: the
// same tests in the same float arithmetic, so the same keypoints. One work-item per searched sample of
// every middle layer of every image of a batch; keypoints (tagged with their image) are appended in no
// particular order.
#include "surf_common.h"
#include "surf_layers.h"

// cv::Matx33f::solve(DECOMP_LU) for 3x3: Cramer's rule in float, false when the determinant is 0.
// (Only the reciprocal is a division: rounded as the host's.)
inline bool surf_solve3(const float a[9], const float b[3], float x[3]) {
  float d = a[0] * (a[4] * a[8] - a[7] * a[5]) - a[1] * (a[3] * a[8] - a[6] * a[5]) +
            a[2] * (a[3] * a[7] - a[6] * a[4]);
  if (d == 0) return false;
  d = surf_div_rn(1, d);
  x[0] = d * (b[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (b[1] * a[8] - a[5] * b[2]) +
              a[2] * (b[1] * a[7] - a[4] * b[2]));
  x[1] = d * (a[0] * (b[1] * a[8] - a[5] * b[2]) - b[0] * (a[3] * a[8] - a[5] * a[6]) +
              a[2] * (a[3] * b[2] - b[1] * a[6]));
  x[2] = d * (a[0] * (a[4] * b[2] - b[1] * a[7]) - a[1] * (a[3] * b[2] - b[1] * a[6]) +
              b[0] * (a[3] * a[7] - a[4] * a[6]));
  return true;
}

// The Newton step on the neighbourhood n[scale * 9 + 3 * row + col]: the sub-sample offset, or false
// when the fit is degenerate or leaves the neighbourhood (OpenCV's test, the all-zero case included).
inline bool surf_interpolate(const float n[27], float x[3]) {
  // Halves and quarters as products: exact, like the host's division by 2 and 4, where OpenCL's
  // division need not be.
  const float b[3] = {-(n[9 + 5] - n[9 + 3]) * 0.5f, -(n[9 + 7] - n[9 + 1]) * 0.5f, -(n[18 + 4] - n[4]) * 0.5f};
  const float dxs = (n[18 + 5] - n[18 + 3] - n[5] + n[3]) * 0.25f;
  const float dys = (n[18 + 7] - n[18 + 1] - n[7] + n[1]) * 0.25f;
  const float dxy = (n[9 + 8] - n[9 + 6] - n[9 + 2] + n[9 + 0]) * 0.25f;
  const float a[9] = {n[9 + 3] - 2 * n[9 + 4] + n[9 + 5], dxy, dxs,
                      dxy, n[9 + 1] - 2 * n[9 + 4] + n[9 + 7], dys,
                      dxs, dys, n[4] - 2 * n[9 + 4] + n[18 + 4]};
  if (!surf_solve3(a, b, x)) x[0] = x[1] = x[2] = 0;
  return (x[0] != 0 || x[1] != 0 || x[2] != 0) && fabs(x[0]) <= 1 && fabs(x[1]) <= 1 && fabs(x[2]) <= 1;
}

// mask_sum: the integral images of min(mask, 1), laid out as `sum`, or null for no mask; a maximum
// is kept only where at least half of its filter covers mask pixels. Keypoints beyond `capacity` are
// counted but not written.
kernel void surf_extrema(global const uint* restrict sum, global const uint* restrict mask_sum,
                         global const surf_layer* restrict layers, global const surf_search* restrict searches,
                         const int n_searches, const int n_items, global const float* restrict det,
                         const float threshold, global surf_keypoint* restrict keypoints,
                         const int capacity, volatile global int* restrict count) {
  const int item = get_global_id(0);
  if (item >= n_items) return;
  int si;
  SURF_OWNER(searches, n_searches, first_item, item, si);  // the search this work-item belongs to
  global const surf_search* s = &searches[si];
  global const surf_layer* mid = &layers[s->layer];
  const int sum_pitch = mid->sum_pitch;
  const int cell = item - s->first_item;
  const int r = cell / s->cols + s->margin, c = cell % s->cols + s->margin;
  const int dcols = mid->det_cols;
  const float v = det[mid->det_offset + r * dcols + c];
  if (!(v > threshold)) return;

  const int size = mid->size, step = mid->step;
  // Top-left pixel of this sample's filter. The integer division matters: do not simplify.
  const int sum_i = step * (r - (size / 2) / step);
  const int sum_j = step * (c - (size / 2) / step);
  if (mask_sum) {
    const surf_box cover = surf_resize_box(0, 0, 9, 9, 1, 9, size, sum_pitch);
    const float coverage =
        surf_box_term(surf_box_sum(mask_sum + mid->sum + (size_t)sum_i * sum_pitch + sum_j, cover), cover.w);
    if (coverage < 0.5f) return;
  }

  float n[27];
  for (int sc = 0; sc < 3; ++sc) {
    global const float* d = det + layers[s->layer - 1 + sc].det_offset + r * dcols + c;
    for (int k = 0; k < 9; ++k) n[sc * 9 + k] = d[(k / 3 - 1) * dcols + (k % 3 - 1)];
  }
  for (int k = 0; k < 27; ++k)
    if (k != 13 && !(v > n[k])) return;

  float x[3];
  if (!surf_interpolate(n, x)) return;
  global const uint* origin = sum + mid->sum + (size_t)sum_i * sum_pitch + sum_j;
  const float2 d = surf_second_xx_yy(origin, mid);
  const float trace = d.x + d.y;

  surf_keypoint kp;
  // The filter's centre: OpenCV's convention (size - 1) / 2 past the top-left pixel.
  kp.x = sum_j + (size - 1) * 0.5f + x[0] * step;
  kp.y = sum_i + (size - 1) * 0.5f + x[1] * step;
  kp.size = rint(size + x[2] * (size - layers[s->layer - 1].size));
  kp.angle = -1;
  kp.response = v;
  kp.octave = s->octave;
  kp.class_id = (trace > 0) - (trace < 0);
  kp.image = s->image;
  const int index = atomic_inc(count);
  if (index < capacity) keypoints[index] = kp;
}
