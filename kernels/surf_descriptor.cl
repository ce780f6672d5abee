// SURF descriptor on the device: computeDescriptors (src/features/surf_descriptor.cpp, reference
// path) without materialising the window, which can be hundreds of pixels wide. One work-group of 256
// per keypoint, in passes over chunks of window rows: the work-items first compute the chunk's
// horizontal INTER_AREA sums (one per window row and patch column, rows fastest: the work of a big
// window spreads over all work-items in short chains, and even the smallest window has more sums than
// work-items), each window pixel sampled as sampleWindow samples it (same positions to the bit, same
// 8-bit rounding), into local memory; then each patch pixel's owner adds the chunk's rows into its
// vertical sum in cv::resize's order, with its weights and rounding. The gradients, the 16 subregion
// sums (one work-item each, in the CPU's order) and the normalisation (in double, in the CPU's order)
// follow. docs/SURF.md ("OpenCL orientation and descriptor stages") says why this is exact.
//
// Build options: SURF_EXTENDED (0/1: 64 or 128 values), SURF_UPRIGHT (0/1).
#include "surf_common.h"

#define SURF_DESCRIPTOR_GROUP 256
#define SURF_CHUNK_ROWS 128           // window rows per pass (their horizontal sums: 10.8 KiB)
#define SURF_PATCH 20                 // gradient samples per side
#define SURF_CELLS (SURF_PATCH + 1)   // patch pixels per side
#define SURF_SUBREGION 5              // gradient samples per subregion side
#define SURF_VALUES (SURF_EXTENDED ? 8 : 4)
#define SURF_WIDTH (16 * SURF_VALUES)
#define SURF_PATCH_PIXELS (SURF_CELLS * SURF_CELLS)
#define SURF_PIXELS_PER_ITEM ((SURF_PATCH_PIXELS + SURF_DESCRIPTOR_GROUP - 1) / SURF_DESCRIPTOR_GROUP)

// The window pixels an INTER_AREA destination pixel reads along one axis (computeResizeAreaTab,
// or whole cells of `cell` pixels where the scale is the whole number `cell`): lo..hi, with weight
// w_lo for lo when has_lo, w_hi for hi when has_hi, w_mid for the others.
typedef struct {
  int lo, hi;
  bool has_lo, has_hi;
  float w_lo, w_mid, w_hi;
} surf_area_span;

surf_area_span surf_area_span_of(int size, int cell, int d) {
  surf_area_span a;
  if (cell > 0) {
    a.lo = d * cell;
    a.hi = a.lo + cell - 1;
    a.has_lo = a.has_hi = false;
    a.w_lo = a.w_mid = a.w_hi = 1.f;
    return a;
  }
  const double scale = 1. / ((double)SURF_CELLS / size);  // as cv::resize derives it
  const double from = d * scale, to = from + scale;
  const double width = fmin(scale, size - from);
  int last = min((int)floor(to), size - 1);
  const int first = min((int)ceil(from), last);
  a.has_lo = first - from > 1e-3;
  a.has_hi = to - last > 1e-3;
  a.lo = a.has_lo ? first - 1 : first;
  a.hi = a.has_hi ? last : last - 1;
  a.w_lo = (float)((first - from) / width);
  a.w_mid = (float)(1.0 / width);
  a.w_hi = (float)(fmin(fmin(to - last, 1.), width) / width);
  return a;
}

inline float surf_area_weight(const surf_area_span* a, int i) {
  return a->has_lo && i == a->lo ? a->w_lo : a->has_hi && i == a->hi ? a->w_hi : a->w_mid;
}

// start + step + step + ... (`steps` additions in double), as sampleWindow's running position. When
// every partial sum up to `horizon` steps is exactly representable (all are multiples of the finer
// of the two floats' quanta, so it suffices that the largest stays below 2^53 quanta), the running
// sum is exact and equals start + steps * step, computed here exactly; otherwise (windows within
// about 1e-4 degrees of an axis) it is summed step by step.
double surf_running_position(float start, float step, int steps, int horizon) {
  int quantum = 1000;
  if (start != 0) quantum = min(quantum, max(ilogb(start) - 23, -149));
  if (step != 0) quantum = min(quantum, max(ilogb(step) - 23, -149));
  if (quantum == 1000 || fabs((double)start) + horizon * fabs((double)step) < ldexp(1.0, 53 + quantum))
    return (double)start + (double)steps * (double)step;
  double p = start;
  for (int k = 0; k < steps; ++k) p += step;
  return p;
}

// The bilinear footprint of every pixel (x < cols - 1, y < rows - 1) as one word, so that a window
// sample costs one load rather than four (on a GPU the four byte loads of a warp's scattered samples
// each touch as many cache lines): bytes p(y, x), p(y, x + 1), p(y + 1, x), p(y + 1, x + 1), low to
// high, as the CPU's quadImage. quads: rows x cols words, the last row and column left unwritten.
kernel void surf_quad_image(global const uchar* img, int rows, int cols, global uint* quads) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= cols - 1 || y >= rows - 1) return;
  global const uchar* p = img + (size_t)y * cols + x;
  quads[(size_t)y * cols + x] = p[0] | (uint)p[1] << 8 | (uint)p[cols] << 16 | (uint)p[cols + 1] << 24;
}

// One window pixel of an oriented window at (px, py): bilinear inside (its four pixels from `quads`,
// surf_quad_image of img), nearest clamped pixel at the border, rounded to 8 bits, as sampleWindow.
int surf_window_pixel(global const uchar* img, global const uint* quads, int rows, int cols, double px, double py) {
  const int ix = (int)floor(px), iy = (int)floor(py);
  if ((uint)ix < (uint)(cols - 1) && (uint)iy < (uint)(rows - 1)) {
    const float a = (float)(px - ix), b = (float)(py - iy);
    const uint q = quads[(size_t)iy * cols + ix];
    const int p0 = q & 0xff, p1 = (q >> 8) & 0xff, p2 = (q >> 16) & 0xff, p3 = q >> 24;
    const float v = p0 * (1.f - a) * (1.f - b) + p1 * a * (1.f - b) + p2 * (1.f - a) * b + p3 * a * b;
    return (int)rint(v) & 0xff;  // cvRound, then the (uchar) cast
  }
  const int x = clamp((int)rint(px), 0, cols - 1), y = clamp((int)rint(py), 0, rows - 1);
  return img[(size_t)y * cols + x];
}

// The window's geometry, as sampleWindow sets it up. Oriented: row 0 starts at (x0, y0), each row
// adds (sin_dir, cos_dir) to the start in float, each column (cos_dir, -sin_dir) to the position in
// double. Upright: row i is image column ux + i, column j image row uy - j.
typedef struct {
  float x0, y0, sin_dir, cos_dir;
  int ux, uy;
} surf_window;

// sinf / cosf as glibc (2.28 and later) computes them: the window's direction comes from the host's
// std::sin(float) and std::cos(float), which are not correctly rounded (about 0.1% of angles differ
// from the correctly rounded value in the last bit). Its algorithm in double, with its constants:
// a polynomial on [-pi/4, pi/4] after a one-step reduction by pi/2. Fused or not, its multiply-adds
// give the same floats for every float angle in [0, 360] degrees (checked exhaustively against glibc
// 2.36's SSE2 and FMA versions); |y| >= 120 (glibc's large-argument reduction) is not reproduced and
// falls back to the correctly rounded value.
typedef struct {
  double hpi_inv, hpi, c0, c1, c2, c3, c4, s1, s2, s3;
} surf_sincosf_poly;

inline uint surf_abstop12(float y) { return (as_uint(y) >> 20) & 0x7ff; }

float surf_sincosf_eval(double x, double x2, surf_sincosf_poly p, int n) {
  if ((n & 1) == 0) {
    const double x3 = x * x2;
    const double s1 = p.s2 + x2 * p.s3;
    const double x7 = x3 * x2;
    const double s = x + x3 * p.s1;
    return (float)(s + x7 * s1);
  }
  const double x4 = x2 * x2;
  const double c2 = p.c3 + x2 * p.c4;
  const double c1 = p.c0 + x2 * p.c1;
  const double x6 = x4 * x2;
  const double c = c1 + x4 * p.c2;
  return (float)(c + x6 * c2);
}

// glibc's sinf (cosine: false) or cosf (cosine: true).
float surf_glibc_sincosf(float y, bool cosine) {
  // The 2nd table computes -cos(x) rather than cos(x), for quadrants 2 and 3.
  const surf_sincosf_poly table[2] = {
      {0x1.45F306DC9C883p+23, 0x1.921FB54442D18p0, 0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5,
       -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16, -0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
       -0x1.994eb3774cf24p-13},
      {0x1.45F306DC9C883p+23, 0x1.921FB54442D18p0, -0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5,
       0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16, -0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
       -0x1.994eb3774cf24p-13}};
  double x = y;
  if (surf_abstop12(y) < surf_abstop12((float)0x1.921FB54442D18p-1)) {  // about |y| < pi/4
    if (surf_abstop12(y) < surf_abstop12(0x1p-12f)) return cosine ? 1.0f : y;
    return surf_sincosf_eval(x, x * x, table[0], cosine ? 1 : 0);
  }
  if (surf_abstop12(y) >= surf_abstop12(120.0f)) return cosine ? (float)cos(x) : (float)sin(x);
  // Quadrant n: the scaled product's bits 24..31, rounded; then x - n pi/2.
  const int n = ((int)(x * table[0].hpi_inv) + 0x800000) >> 24;
  x = x - n * table[0].hpi;
  const double sign = (n & 3) == 1 || (n & 3) == 2 ? -1.0 : 1.0;
  return surf_sincosf_eval(x * sign, x * x, table[(n & 2) ? 1 : 0], cosine ? n ^ 1 : n);
}

// Horizontal INTER_AREA sum of window row r over the columns of span cs (cv::resize's per-row sum,
// from 0 in column order), each window pixel sampled as sampleWindow samples it. start_x, start_y:
// the row's start (unused upright).
float surf_row_sum(global const uchar* img, global const uint* quads, int rows, int cols, surf_window g, int r,
                   float start_x, float start_y, surf_area_span cs) {
  double px = 0, py = 0;
  if (!SURF_UPRIGHT) {
    px = surf_running_position(start_x, g.cos_dir, cs.lo, cs.hi);
    py = surf_running_position(start_y, -g.sin_dir, cs.lo, cs.hi);
  }
  float sum = 0;
  // Unrolled so that a GPU issues several samples' loads before the first one's sum needs its value.
#pragma unroll 4
  for (int c = cs.lo; c <= cs.hi; ++c) {
    const int v = SURF_UPRIGHT ? img[(size_t)clamp(g.uy - c, 0, rows - 1) * cols + clamp(g.ux + r, 0, cols - 1)]
                               : surf_window_pixel(img, quads, rows, cols, px, py);
    sum += v * surf_area_weight(&cs, c);
    px += g.cos_dir;
    py -= g.sin_dir;
  }
  return sum;
}

// A patch pixel from its INTER_AREA sum: float sum (cell 0) or the integer sum of a whole cell.
uchar surf_patch_value(float sum, int whole, int cell) {
  if (cell == 2) return (uchar)((whole + 2) >> 2);
  const float value = cell > 0 ? whole * surf_div_rn(1.f, (float)(cell * cell)) : sum;
  return (uchar)clamp((int)rint(value), 0, 255);  // saturate_cast<uchar>
}

// gray: rows x cols, packed; quads: surf_quad_image of it (read for oriented windows only). weights:
// descriptorWeights() (20 x 20). descriptors: one row of SURF_WIDTH floats per keypoint; rows of keypoints with size <= 0 are left alone.
kernel __attribute__((reqd_work_group_size(SURF_DESCRIPTOR_GROUP, 1, 1)))
void surf_descriptor(global const uchar* img, global const uint* quads, int rows, int cols,
                     global const surf_keypoint* keypoints,
                     global const float* weights, global float* descriptors) {
  local uchar patch[SURF_CELLS][SURF_CELLS];
  local float grad_x[SURF_PATCH][SURF_PATCH], grad_y[SURF_PATCH][SURF_PATCH];
  local float vec[SURF_WIDTH];
  local float scale;
  local surf_area_span spans[SURF_CELLS];      // per patch row and column (both axes have `size` pixels)
  local float row_x[SURF_CHUNK_ROWS], row_y[SURF_CHUNK_ROWS];  // the chunk's row starts (oriented)
  local float row_sums[SURF_CELLS][SURF_CHUNK_ROWS + 1];       // [patch column][chunk row]; +1: no bank conflicts

  const int lid = get_local_id(0);
  const surf_keypoint kp = keypoints[get_group_id(0)];
  if (kp.size <= 0) return;  // uniform over the group
  const float s = surf_keypoint_scale(kp.size);
  const int size = (int)(SURF_CELLS * s);  // window side; each patch pixel covers s x s of it

  surf_window g = {0, 0, 0, 0, 0, 0};
  const float win_offset = -(float)(size - 1) / 2;
  if (SURF_UPRIGHT) {
    g.ux = (int)rint(kp.x + win_offset);
    g.uy = (int)rint(kp.y - win_offset);
  } else {
    const float dir = kp.angle * 0x1.1df46ap-6f;  // (float)(CV_PI / 180)
    g.sin_dir = -surf_glibc_sincosf(dir, false);
    g.cos_dir = surf_glibc_sincosf(dir, true);
    g.x0 = kp.x + win_offset * g.cos_dir + win_offset * g.sin_dir;
    g.y0 = kp.y - win_offset * g.sin_dir + win_offset * g.cos_dir;
  }
  // INTER_AREA's "area fast" path where the scale is a whole number (cv::resize's test).
  const double area_scale = 1. / ((double)SURF_CELLS / size);
  const int rounded_scale = (int)rint(area_scale);
  const int cell = fabs(area_scale - rounded_scale) < DBL_EPSILON ? rounded_scale : 0;

  if (lid < SURF_CELLS) spans[lid] = surf_area_span_of(size, cell, lid);

  // Patch pixel lid + k * SURF_DESCRIPTOR_GROUP: its vertical sum so far (float, or whole cells' ints).
  float sum[SURF_PIXELS_PER_ITEM];
  int whole[SURF_PIXELS_PER_ITEM];
  for (int k = 0; k < SURF_PIXELS_PER_ITEM; ++k) {
    sum[k] = 0;
    whole[k] = 0;
  }
  // Work-items 0 and 1 carry the row starts' float running sums (x and y) from chunk to chunk.
  float start = lid == 0 ? g.x0 : g.y0;
  const float start_step = lid == 0 ? g.sin_dir : g.cos_dir;

  for (int r0 = 0; r0 < size; r0 += SURF_CHUNK_ROWS) {  // uniform over the group
    const int chunk = min(SURF_CHUNK_ROWS, size - r0);
    if (!SURF_UPRIGHT && lid < 2) {
      local float* starts = lid == 0 ? row_x : row_y;
      for (int i = 0; i < chunk; ++i) {
        starts[i] = start;
        start += start_step;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Horizontal sums, rows fastest: neighbouring work-items take neighbouring rows of one patch
    // column, so they run the same columns (no divergence) and read neighbouring pixels.
    for (int t = lid; t < chunk * SURF_CELLS; t += SURF_DESCRIPTOR_GROUP) {
      const int i = t % chunk, dc = t / chunk;
      row_sums[dc][i] = surf_row_sum(img, quads, rows, cols, g, r0 + i, row_x[i], row_y[i], spans[dc]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Vertical sums: the chunk's rows of each patch row, in row order, as resizeArea adds them.
    for (int k = 0; k < SURF_PIXELS_PER_ITEM; ++k) {
      const int p = lid + k * SURF_DESCRIPTOR_GROUP;
      if (p >= SURF_PATCH_PIXELS) break;
      const surf_area_span rs = spans[p / SURF_CELLS];
      local const float* column = row_sums[p % SURF_CELLS];
      const int last = min(rs.hi, r0 + chunk - 1);
      for (int r = max(rs.lo, r0); r <= last; ++r) {
        const float row = column[r - r0];
        if (cell > 0) {
          whole[k] += (int)row;  // exact: a whole row of a cell is an integer below 2^24
        } else {
          const float beta = surf_area_weight(&rs, r);
          sum[k] = r == rs.lo ? beta * row : sum[k] + beta * row;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next chunk overwrites the row starts and sums
  }
  for (int k = 0; k < SURF_PIXELS_PER_ITEM; ++k) {
    const int p = lid + k * SURF_DESCRIPTOR_GROUP;
    if (p < SURF_PATCH_PIXELS) patch[p / SURF_CELLS][p % SURF_CELLS] = surf_patch_value(sum[k], whole[k], cell);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int i = lid; i < SURF_PATCH * SURF_PATCH; i += SURF_DESCRIPTOR_GROUP) {
    const int y = i / SURF_PATCH, x = i % SURF_PATCH;
    const float w = weights[i];
    grad_x[y][x] = (patch[y][x + 1] - patch[y][x] + patch[y + 1][x + 1] - patch[y + 1][x]) * w;
    grad_y[y][x] = (patch[y + 1][x] - patch[y][x] + patch[y + 1][x + 1] - patch[y][x + 1]) * w;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Subregion lid (4 x 4, row-major): its sums over 5 x 5 gradients, row by row, in float.
  if (lid < 16) {
    float v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const int y0 = lid / 4 * SURF_SUBREGION, x0 = lid % 4 * SURF_SUBREGION;
    for (int y = y0; y < y0 + SURF_SUBREGION; ++y)
      for (int x = x0; x < x0 + SURF_SUBREGION; ++x) {
        const float tx = grad_x[y][x], ty = grad_y[y][x];
        if (SURF_EXTENDED) {
          if (ty >= 0) {
            v[0] += tx;
            v[1] += fabs(tx);
          } else {
            v[2] += tx;
            v[3] += fabs(tx);
          }
          if (tx >= 0) {
            v[4] += ty;
            v[5] += fabs(ty);
          } else {
            v[6] += ty;
            v[7] += fabs(ty);
          }
        } else {
          v[0] += tx;
          v[1] += ty;
          v[2] += fabs(tx);
          v[3] += fabs(ty);
        }
      }
    for (int k = 0; k < SURF_VALUES; ++k) vec[lid * SURF_VALUES + k] = v[k];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Unit length: squares (float) summed in double in vector order, as the CPU sums them.
  if (lid == 0) {
    double square_mag = 0;
    for (int k = 0; k < SURF_WIDTH; ++k) square_mag += vec[k] * vec[k];
    scale = (float)(1. / (sqrt(square_mag) + FLT_EPSILON));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  global float* out = descriptors + (size_t)get_group_id(0) * SURF_WIDTH;
  for (int k = lid; k < SURF_WIDTH; k += SURF_DESCRIPTOR_GROUP) out[k] = vec[k] * scale;
}
