// SURF stage 1 on the device: the (rows+1) x (cols+1) integral image of an 8-bit image, first row and
// column zero, sums wrapping modulo 2^32 (src/features/integral_image.cpp's definition, so every box
// filter reads the same integers). Two passes: prefix sums along each row, then down each column.
#include "surf_common.h"

#ifndef SURF_ROW_WG
#define SURF_ROW_WG 256  // work-items per row in the row pass; the host launches with exactly this
#endif

// One work-group per image row: each work-item sums a contiguous run of the row, the runs' totals are
// scanned in local memory, then each work-item writes its run's prefix sums.
kernel void surf_integral_rows(global const uchar* restrict gray, const int rows, const int cols,
                               global uint* restrict sum) {
  local uint totals[SURF_ROW_WG];
  const int y = get_group_id(0);
  const int lid = get_local_id(0);
  const int run = (cols + SURF_ROW_WG - 1) / SURF_ROW_WG;
  const int begin = min(cols, lid * run), end = min(cols, begin + run);
  global const uchar* src = gray + (size_t)y * cols;
  uint total = 0;
  for (int x = begin; x < end; ++x) total += src[x];
  totals[lid] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Hillis-Steele inclusive scan of the run totals.
  for (int offset = 1; offset < SURF_ROW_WG; offset *= 2) {
    const uint add = lid >= offset ? totals[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    totals[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint running = totals[lid] - total;  // exclusive prefix: everything left of this run
  global uint* out = sum + (size_t)(y + 1) * (cols + 1);
  if (lid == 0) out[0] = 0;
  for (int x = begin; x < end; ++x) {
    running += src[x];
    out[x + 1] = running;
  }
}

// One work-item per integral column (0..cols): zeroes row 0 and accumulates the row pass's sums
// downwards. Neighbouring work-items touch neighbouring words, so every row step is one coalesced access.
kernel void surf_integral_columns(const int rows, const int cols, global uint* restrict sum) {
  const int x = get_global_id(0);
  if (x > cols) return;
  const size_t pitch = cols + 1;
  sum[x] = 0;
  uint running = 0;
  for (int y = 1; y <= rows; ++y) {
    running += sum[y * pitch + x];
    sum[y * pitch + x] = running;
  }
}
