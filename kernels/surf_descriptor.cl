// SURF descriptor on the device: computeDescriptors (src/features/surf_descriptor.cpp, reference
// path) without materialising the window, which can be hundreds of pixels wide. Three kernels:
// - surf_quad_image: each pixel's 2x2 bilinear footprint in one word (oriented windows);
// - surf_extra_bands, surf_patch: the 21x21 INTER_AREA patch. Work-groups of 128 (9% faster
//   than 256 on an H100, 2026-12-05: more of them resident, cheaper barriers): a big window is cut
//   into bands of patch rows (at most SURF_BANDS), one work-group each, so that no work-group (one
//   multiprocessor) carries a big keypoint alone; surf_extra_bands lists the bands past the first,
//   and surf_patch starts a work-group per keypoint and a few that take the listed bands in turn.
//   A work-group passes over its band's window rows in chunks: first every work-item computes
//   horizontal INTER_AREA sums (one per window row and patch column, rows fastest: short chains, and
//   even the smallest window has more sums than work-items), each window pixel sampled as
//   sampleWindow samples it, into local memory; then each patch pixel's owner adds the chunk's rows
//   into its vertical sum in cv::resize's order, with its weights and rounding;
// - surf_descriptor: from the patch, the gradients, the 16 subregion sums (one work-item each, in the
//   CPU's order) and the normalisation (in double, in the CPU's order).
// docs/SURF.md ("Orientation and descriptor stages") says why this is exact.
//
// Build options: SURF_EXTENDED (0/1: 64 or 128 values), SURF_UPRIGHT (0/1).
#include "surf_common.h"

#define SURF_PATCH 20                 // gradient samples per side
#define SURF_CELLS (SURF_PATCH + 1)   // patch pixels per side
#define SURF_PATCH_PIXELS (SURF_CELLS * SURF_CELLS)
#define SURF_SUBREGION 5              // gradient samples per subregion side
#define SURF_VALUES (SURF_EXTENDED ? 8 : 4)
#define SURF_WIDTH (16 * SURF_VALUES)

#include "surf_window.h"
#include "surf_area.h"

#define SURF_PATCH_GROUP 128
#define SURF_BANDS 4                  // most work-groups (bands of patch rows) per keypoint
#define SURF_BAND_SAMPLES 65536       // window samples per band before a window takes another band
#define SURF_CHUNK_ROWS 128           // window rows per pass (their horizontal sums: 10.8 KiB)
#define SURF_PIXELS_PER_ITEM ((SURF_PATCH_PIXELS + SURF_PATCH_GROUP - 1) / SURF_PATCH_GROUP)
#define SURF_DESCRIPTOR_GROUP 64

// The quad image of every image of the batch: the bilinear footprint of every pixel (x < cols - 1,
// y < rows - 1) as one word, bytes p(y, x), p(y, x + 1), p(y + 1, x), p(y + 1, x + 1), low to high, as
// the CPU's quadImage, at surf_quad_index(x, y, cols) past the image's quads offset; the last row and
// column are never read and left unwritten. A window sample costs one load rather than four (on a GPU
// each of the four byte loads of a warp's scattered samples touches as many cache lines). Launched
// over (widest image's cols) x (the batch's rows).
kernel void surf_quad_image(global const uchar* gray, global const surf_image* images, int n_images,
                            global uint* quads) {
  const int x = get_global_id(0), row = get_global_id(1);
  int index;
  SURF_OWNER(images, n_images, first_row, row, index);
  const surf_image image = images[index];
  const int y = row - image.first_row, cols = image.cols;
  if (x >= cols - 1 || y >= image.rows - 1) return;
  global const uchar* p = gray + image.pixels + (size_t)y * cols + x;
  quads[image.quads + surf_quad_index(x, y, cols)] =
      p[0] | (uint)p[1] << 8 | (uint)p[cols] << 16 | (uint)p[cols + 1] << 24;
}

// Horizontal INTER_AREA sum of window row r over the columns of span cs (cv::resize's per-row sum,
// from 0 in column order), each window pixel sampled as sampleWindow samples it. start_x, start_y:
// the row's start (unused upright); exact_x, exact_y: surf_running_sums_exact for its positions.
float surf_row_sum(global const uchar* img, global const uint* quads, int rows, int cols, surf_window g, int r,
                   float start_x, float start_y, bool exact_x, bool exact_y, surf_area_span cs) {
  float sum = 0;
  if (SURF_UPRIGHT) {
    global const uchar* column = img + clamp(g.ux + r, 0, cols - 1);
    for (int c = cs.lo; c <= cs.hi; ++c)
      sum += column[(size_t)clamp(g.uy - c, 0, rows - 1) * cols] * surf_area_weight(&cs, c);
    return sum;
  }
  double px = surf_running_position(start_x, g.cos_dir, cs.lo, exact_x);
  double py = surf_running_position(start_y, -g.sin_dir, cs.lo, exact_y);
  if (surf_segment_inside(px, py, g.cos_dir, -g.sin_dir, cs.hi - cs.lo, rows, cols)) {
    // The span's weights by position (first, middle, last) rather than a choice per sample; the sum
    // starts from the first product (0 + x is x: the products are not negative).
    sum = surf_inside_pixel(quads, cols, px, py) * cs.w_first;
    // Unrolled so that a GPU issues several samples' loads before the first one's sum needs its value.
#pragma unroll 4
    for (int c = cs.lo + 1; c < cs.hi; ++c) {
      px += g.cos_dir;
      py -= g.sin_dir;
      sum += surf_inside_pixel(quads, cols, px, py) * cs.w_mid;
    }
    if (cs.hi > cs.lo) {
      px += g.cos_dir;
      py -= g.sin_dir;
      sum += surf_inside_pixel(quads, cols, px, py) * cs.w_last;
    }
  } else {
    for (int c = cs.lo; c <= cs.hi; ++c) {
      sum += surf_window_pixel(img, quads, rows, cols, px, py) * surf_area_weight(&cs, c);
      px += g.cos_dir;
      py -= g.sin_dir;
    }
  }
  return sum;
}

// The bands (work-groups) a window of `size` pixels per side takes: about SURF_BAND_SAMPLES samples
// each, at most SURF_BANDS.
int surf_band_count(int size) {
  const int side = min(size, 4096);  // no overflow; such windows take every band anyway
  return clamp((side * side + SURF_BAND_SAMPLES - 1) / SURF_BAND_SAMPLES, 1, SURF_BANDS);
}

// The side of a keypoint's window, in pixels.
inline int surf_window_side(float size) { return (int)(SURF_CELLS * surf_keypoint_scale(size)); }

// The bands past the first of each of the n keypoints whose window takes several, as (keypoint,
// band) pairs appended to `extra` (room for n (SURF_BANDS - 1)), their number added to *extra_count
// (zeroed before). One work-item per keypoint; surf_patch then starts work-groups for these bands
// only, not SURF_BANDS for every keypoint (most windows take one band, and on a GPU the empty
// work-groups' start and two dependent loads cost a slot each).
kernel void surf_extra_bands(global const surf_keypoint* keypoints, int n, global int2* extra,
                             volatile global int* extra_count) {
  const int k = get_global_id(0);
  if (k >= n || keypoints[k].size <= 0) return;
  const int bands = surf_band_count(surf_window_side(keypoints[k].size));
  if (bands == 1) return;
  const int at = atomic_add(extra_count, bands - 1);
  for (int b = 1; b < bands; ++b) extra[at + b - 1] = (int2)(k, b);
}

// The local memory of one band's patch pixels (surf_patch_band).
typedef struct {
  surf_area_span spans[SURF_CELLS];  // per patch row and column (both axes have `size` pixels)
  float row_x[SURF_CHUNK_ROWS], row_y[SURF_CHUNK_ROWS];  // the chunk's row starts (oriented)
  int exact[2];  // the chunk's positions along x, y: surf_running_sums_exact over the window
  float row_sums[SURF_CELLS][SURF_CHUNK_ROWS + 1];  // [patch column][chunk row]; +1: no bank conflicts
} surf_patch_scratch;

// The patch pixels of band `band` of keypoint `keypoint`, by the whole work-group (arguments as
// surf_patch's). Keypoints with size <= 0 and bands the window does not take are skipped.
void surf_patch_band(global const uchar* gray, global const uint* all_quads, global const surf_image* images,
                     global const surf_keypoint* keypoints, global uchar* patches, int keypoint, int band,
                     local surf_patch_scratch* scratch) {
  local surf_area_span* spans = scratch->spans;
  local float* row_x = scratch->row_x;
  local float* row_y = scratch->row_y;
  local int* exact = scratch->exact;
  local float(*row_sums)[SURF_CHUNK_ROWS + 1] = scratch->row_sums;

  const int lid = get_local_id(0);
  const surf_keypoint kp = keypoints[keypoint];
  if (kp.size <= 0) return;  // uniform over the group
  const surf_image image = images[kp.image];
  const int rows = image.rows, cols = image.cols;
  global const uchar* img = gray + image.pixels;
  global const uint* quads = all_quads + image.quads;
  const int size = surf_window_side(kp.size);
  const int bands = surf_band_count(size);
  if (band >= bands) return;
  const int d0 = band * SURF_CELLS / bands, d1 = (band + 1) * SURF_CELLS / bands;  // patch rows d0..d1-1

  const surf_window g = surf_window_of(kp, size);
  const int cell = surf_area_cell(size);
  if (lid < SURF_CELLS) spans[lid] = surf_area_span_of(size, cell, lid);
  barrier(CLK_LOCAL_MEM_FENCE);  // a span takes four double divisions: read them, not make them again
  const int first_row = spans[d0].lo, end_row = spans[d1 - 1].hi + 1;

  // Band pixel lid + k * SURF_PATCH_GROUP: its vertical sum so far (float, or whole cells' ints).
  const int pixels = (d1 - d0) * SURF_CELLS;
  float sum[SURF_PIXELS_PER_ITEM];
  int whole[SURF_PIXELS_PER_ITEM];
  for (int k = 0; k < SURF_PIXELS_PER_ITEM; ++k) {
    sum[k] = 0;
    whole[k] = 0;
  }
  // Work-items 0 and 1 carry the row starts' float running sums (x and y), from row 0 as the CPU
  // adds them, to the band's first row and then from chunk to chunk.
  float start = lid == 0 ? g.x0 : g.y0;
  const float start_step = lid == 0 ? g.sin_dir : g.cos_dir;
  if (!SURF_UPRIGHT && lid < 2)
    for (int r = 0; r < first_row; ++r) start += start_step;

  for (int r0 = first_row; r0 < end_row; r0 += SURF_CHUNK_ROWS) {  // uniform over the group
    const int chunk = min(SURF_CHUNK_ROWS, end_row - r0);
    if (!SURF_UPRIGHT && lid < 2) {
      // The rest of the group waits for this loop (15% of the descriptor stage on an H100 when it
      // took each start's quantum): it keeps the smallest non-zero magnitude instead, whose quantum is
      // the finest (the quantum grows with the magnitude).
      local float* starts = lid == 0 ? row_x : row_y;
      float max_start = 0, min_start = INFINITY;
      for (int i = 0; i < chunk; ++i) {
        starts[i] = start;
        const float magnitude = fabs(start);
        max_start = fmax(max_start, magnitude);
        min_start = magnitude > 0 ? fmin(min_start, magnitude) : min_start;
        start += start_step;
      }
      // Once per chunk rather than per row segment: exact for the largest and finest start over the
      // whole row (size - 1 steps) means exact for every start and segment of the chunk.
      const int quantum = min_start < INFINITY ? surf_quantum(min_start) : 1000;
      exact[lid] = surf_running_sums_exact(max_start, quantum, lid == 0 ? g.cos_dir : -g.sin_dir, size - 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Horizontal sums, rows fastest: neighbouring work-items take neighbouring rows of one patch
    // column, so they run the same columns (no divergence) and read neighbouring pixels.
    // Sum t = dc * chunk + i, (i, dc) stepped without a division per sum.
    const int step_i = SURF_PATCH_GROUP % chunk, step_dc = SURF_PATCH_GROUP / chunk;
    for (int i = lid % chunk, dc = lid / chunk; dc < SURF_CELLS;) {
      row_sums[dc][i] = surf_row_sum(img, quads, rows, cols, g, r0 + i, row_x[i], row_y[i], exact[0], exact[1],
                                     spans[dc]);
      i += step_i;
      dc += step_dc;
      if (i >= chunk) {
        i -= chunk;
        ++dc;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Vertical sums: the chunk's rows of each patch row, in row order, as resizeArea adds them.
    for (int k = 0; k < SURF_PIXELS_PER_ITEM; ++k) {
      const int p = lid + k * SURF_PATCH_GROUP;
      if (p >= pixels) break;
      const surf_area_span rs = spans[d0 + p / SURF_CELLS];
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
  global uchar* out = patches + (size_t)keypoint * SURF_PATCH_PIXELS + d0 * SURF_CELLS;
  for (int k = 0; k < SURF_PIXELS_PER_ITEM; ++k) {
    const int p = lid + k * SURF_PATCH_GROUP;
    if (p < pixels) out[p] = surf_patch_value(sum[k], whole[k], cell);
  }
}

// gray, images: the batch's images and their table; quads: surf_quad_image of them (read for oriented
// windows only). patches: SURF_PATCH_PIXELS bytes per keypoint, row-major. extra, extra_count:
// surf_extra_bands' list. Work-groups 0 .. extra_groups - 1 take the list's bands in turn (first, so
// that the large windows start early); work-group extra_groups + k takes keypoint k's first band.
kernel __attribute__((reqd_work_group_size(SURF_PATCH_GROUP, 1, 1)))
void surf_patch(global const uchar* gray, global const uint* all_quads, global const surf_image* images,
                global const surf_keypoint* keypoints, global uchar* patches, global const int2* extra,
                global const int* extra_count, int extra_groups) {
  local surf_patch_scratch scratch;
  const int group = get_group_id(0);
  if (group >= extra_groups) {
    surf_patch_band(gray, all_quads, images, keypoints, patches, group - extra_groups, 0, &scratch);
    return;
  }
  const int count = *extra_count;
  for (int i = group; i < count; i += extra_groups) {
    const int2 e = extra[i];
    surf_patch_band(gray, all_quads, images, keypoints, patches, e.x, e.y, &scratch);
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next band writes the scratch
  }
}

// patches: surf_patch's. weights: descriptorWeights() (20 x 20). descriptors: one row of SURF_WIDTH
// floats per keypoint; rows of keypoints with size <= 0 are zeros (a dropped keypoint's row may still
// go through a histogram search, which must not see garbage). One work-group per keypoint.
kernel __attribute__((reqd_work_group_size(SURF_DESCRIPTOR_GROUP, 1, 1)))
void surf_descriptor(global const surf_keypoint* keypoints, global const uchar* patches, global const float* weights,
                     global float* descriptors) {
  local uchar patch[SURF_CELLS][SURF_CELLS];
  local float grad_x[SURF_PATCH][SURF_PATCH], grad_y[SURF_PATCH][SURF_PATCH];
  local float vec[SURF_WIDTH];
  local float scale;

  const int lid = get_local_id(0);
  global float* out = descriptors + (size_t)get_group_id(0) * SURF_WIDTH;
  if (keypoints[get_group_id(0)].size <= 0) {  // uniform over the group
    for (int k = lid; k < SURF_WIDTH; k += SURF_DESCRIPTOR_GROUP) out[k] = 0;
    return;
  }
  global const uchar* in = patches + (size_t)get_group_id(0) * SURF_PATCH_PIXELS;
  for (int i = lid; i < SURF_PATCH_PIXELS; i += SURF_DESCRIPTOR_GROUP) patch[i / SURF_CELLS][i % SURF_CELLS] = in[i];
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
  for (int k = lid; k < SURF_WIDTH; k += SURF_DESCRIPTOR_GROUP) out[k] = vec[k] * scale;
}
