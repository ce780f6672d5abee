// The scale spaces of a batch of images on the device (src/features/hessian_pyramid.hpp's layout):
// every layer's determinants in one buffer, described by a table the host fills (src/features/opencl/
// device_layers.hpp mirrors these records), and the box filters of one layer in OpenCV's order.

typedef struct {
  int det_offset;            // first element of the layer in the determinant buffer
  int det_rows, det_cols;    // (image rows / step) x (image cols / step)
  int size, step;            // filter side and sampling step, pixels
  int margin;                // (size / 2) / step: filter position (i, j) is stored at (i + margin, j + margin)
  int samples_i, samples_j;  // filter positions inside the image (0 when the filter is larger)
  int first_item;            // this layer's first work-item in the Hessian launch
  int sum, sum_pitch;        // its image's integral image: offset in the batch's buffer, elements per row
  // Dxx's three lobes share rows: the 4 x boundaries on their top and bottom rows; Dyy likewise
  // with columns; Dxy's four quadrants p0..p3. Offsets in integral-image elements.
  int x_top[4], x_bottom[4], y_left[4], y_right[4];
  int q[4][4];
  float wx[3], wy[3], wxy[4];
} surf_layer;

// A middle layer of one octave, searched for maxima over its interior rows and columns.
typedef struct {
  int layer;       // index of the middle layer in the layer table (below = layer - 1, above = layer + 1)
  int octave;
  int margin;      // (above's size / 2) / step + 1: neighbours in the layer above exist
  int cols;        // searched columns per row
  int first_item;  // first work-item of this layer in the extremum launch
  int image;       // which image of the batch
} surf_search;

// Three contiguous lobes from their 8 corners, exact in wrapping integers, each term rounded to
// float and the terms summed in double (hessian_pyramid.cpp's threeLobes).
inline float surf_three_lobes(global const uint* o, global const int* a, global const int* b,
                              global const float* w) {
  uint edge[4];
  for (int k = 0; k < 4; ++k) edge[k] = o[a[k]] - o[b[k]];
  double d = 0;
  for (int k = 0; k < 3; ++k) d += surf_box_term((int)(edge[k] - edge[k + 1]), w[k]);
  return (float)d;
}

// Dxx and Dyy of the layer's filter with top-left corner at `origin`.
inline float2 surf_second_xx_yy(global const uint* origin, global const surf_layer* l) {
  return (float2)(surf_three_lobes(origin, l->x_top, l->x_bottom, l->wx),
                  surf_three_lobes(origin, l->y_left, l->y_right, l->wy));
}

inline float surf_second_xy(global const uint* o, global const surf_layer* l) {
  double d = 0;
  for (int k = 0; k < 4; ++k)
    d += surf_box_term((int)(o[l->q[k][0]] + o[l->q[k][3]] - o[l->q[k][1]] - o[l->q[k][2]]), l->wxy[k]);
  return (float)d;
}
