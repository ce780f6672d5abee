// SURF stage 2 on the device: the determinant of the box-filter Hessian at every sample of every
// layer of every image of a batch, in one launch (one work-item per stored determinant, zeros where
// the filter does not fit), with hessian_pyramid.cpp's geometry and rounding, so the values are the
// CPU's bit for bit. The layer table is in global memory: a batch's tables outgrow constant memory.
#include "surf_common.h"
#include "surf_layers.h"

kernel void surf_hessian(global const uint* restrict sum, global const surf_layer* restrict layers,
                         const int n_layers, const int n_items, global float* restrict det) {
  const int item = get_global_id(0);
  if (item >= n_items) return;
  int li;
  SURF_OWNER(layers, n_layers, first_item, item, li);  // the layer this work-item belongs to
  global const surf_layer* l = &layers[li];
  const int cell = item - l->first_item;
  const int r = cell / l->det_cols, c = cell % l->det_cols;
  const int i = r - l->margin, j = c - l->margin;
  float value = 0;
  if (i >= 0 && i < l->samples_i && j >= 0 && j < l->samples_j) {
    global const uint* origin = sum + l->sum + (size_t)(i * l->step) * l->sum_pitch + j * l->step;
    const float2 d = surf_second_xx_yy(origin, l);
    const float dxy = surf_second_xy(origin, l);
    value = d.x * d.y - 0.81f * dxy * dxy;  // 0.81 = 0.9^2, Bay et al.'s box-filter correction
  }
  det[l->det_offset + cell] = value;
}
