// SURF stage 1 on the device: the (rows+1) x (cols+1) integral image of each 8-bit image of a batch,
// first row and column zero, sums wrapping modulo 2^32 (src/features/integral_image.cpp's definition,
// so every box filter reads the same integers). Two passes over the whole batch: prefix sums along each
// row of every image, then down each column of every image.
#include "surf_common.h"

#ifndef SURF_ROW_WG
#define SURF_ROW_WG 256  // work-items per row in the row pass; the host launches with exactly this
#endif

// One work-group per image row of the batch: each work-item sums a contiguous run of the row, the
// runs' totals are scanned in local memory, then each work-item writes its run's prefix sums.
kernel void surf_integral_rows(global const uchar* restrict gray, global const surf_image* restrict images,
                               const int n_images, global uint* restrict sum) {
  local uint totals[SURF_ROW_WG];
  const int row = get_group_id(0);
  int index;
  SURF_OWNER(images, n_images, first_row, row, index);
  const surf_image image = images[index];
  const int y = row - image.first_row, cols = image.cols;
  const int lid = get_local_id(0);
  const int run = (cols + SURF_ROW_WG - 1) / SURF_ROW_WG;
  const int begin = min(cols, lid * run), end = min(cols, begin + run);
  global const uchar* src = gray + image.pixels + (size_t)y * cols;
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
  global uint* out = sum + image.sum + (size_t)(y + 1) * (cols + 1);
  if (lid == 0) out[0] = 0;
  for (int x = begin; x < end; ++x) {
    running += src[x];
    out[x + 1] = running;
  }
}

// One work-item per integral column (0..cols) of every image: zeroes row 0 and accumulates the row
// pass's sums downwards. Neighbouring work-items touch neighbouring words, so every row step is one
// coalesced access.
kernel void surf_integral_columns(global const surf_image* restrict images, const int n_images,
                                  const int n_columns, global uint* restrict sum) {
  const int column = get_global_id(0);
  if (column >= n_columns) return;
  int index;
  SURF_OWNER(images, n_images, first_column, column, index);
  const surf_image image = images[index];
  const int x = column - image.first_column;
  const size_t pitch = image.cols + 1;
  global uint* out = sum + image.sum;
  out[x] = 0;
  uint running = 0;
  for (int y = 1; y <= image.rows; ++y) {
    running += out[y * pitch + x];
    out[y * pitch + x] = running;
  }
}
