// Shared by the SURF kernels: the keypoint record the host reads and writes
// (src/features/opencl/device_keypoint.hpp mirrors it), the table of a batch's images
// (src/features/opencl/device_images.hpp mirrors it), and box filters over the 32-bit integral image
// with OpenCV's geometry and rounding (the device twin of src/features/box_pattern.hpp).

// Rounding order is part of the result (docs/SURF.md): no contraction into fused multiply-adds.
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct {
  float x, y;      // centre, pixels
  float size;      // filter size in pixels; <= 0 marks a keypoint to drop (OpenCV's convention)
  float angle;     // degrees in [0, 360), OpenCV's convention; -1 before orientation
  float response;  // Hessian determinant
  int octave;
  int class_id;    // sign of the Laplacian
  int image;       // which image of the batch (an index into its surf_image table)
} surf_keypoint;

// One image of a batch. The batch's images lie one after another in each buffer (pixels, integral
// images, quad images); launches that run over every row or column of the batch find their image by
// its first row or column.
typedef struct {
  int pixels;        // offset of its first pixel in the batch's gray buffer (rows x cols, packed)
  int sum;           // offset of its integral image ((rows + 1) x (cols + 1), packed)
  int quads;         // offset of its quad image (surf_descriptor.cl)
  int rows, cols;
  int first_row;     // its first row among the batch's rows (row launches)
  int first_column;  // its first integral column among the batch's cols + 1 per image (column launch)
  int pad;           // 32 bytes
} surf_image;

// The last entry of a table sorted by `field` whose field is <= value (the entry that owns `value`):
// binary search, for tables of a batch's images, layers or searches.
#define SURF_OWNER(table, count, field, value, index) \
  do {                                                \
    int lo_ = 0, hi_ = (count) - 1;                   \
    while (lo_ < hi_) {                               \
      const int mid_ = (lo_ + hi_ + 1) >> 1;          \
      if ((table)[mid_].field <= (value)) lo_ = mid_; else hi_ = mid_ - 1; \
    }                                                 \
    index = lo_;                                      \
  } while (0)

// a / b rounded once to float, as the host's division rounds it: OpenCL lets a float division be off
// by 2.5 ulp (unless built with -cl-fp32-correctly-rounded-divide-sqrt, which devices may not offer);
// the double quotient rounded to float is the correctly rounded float quotient (53 >= 2 x 24 + 2).
inline float surf_div_rn(float a, float b) { return (float)((double)a / (double)b); }

// One box of a pattern: corner offsets (elements of the integral image) from the filter origin and
// the weight divided by the box area. p0 (y1, x1), p1 (y2, x1), p2 (y1, x2), p3 (y2, x2).
typedef struct {
  int p0, p1, p2, p3;
  float w;
} surf_box;

// resizeBoxPattern for one {x1, y1, x2, y2, weight} row: corners scaled by new_size / old_size in
// float and rounded half to even (cvRound), weight / area in float (both quotients rounded as the host's).
inline surf_box surf_resize_box(int x1, int y1, int x2, int y2, int weight, int old_size, int new_size,
                                int row_step) {
  const float ratio = surf_div_rn((float)new_size, (float)old_size);
  const int dx1 = (int)rint(ratio * x1), dy1 = (int)rint(ratio * y1);
  const int dx2 = (int)rint(ratio * x2), dy2 = (int)rint(ratio * y2);
  surf_box b;
  b.p0 = dy1 * row_step + dx1;
  b.p1 = dy2 * row_step + dx1;
  b.p2 = dy1 * row_step + dx2;
  b.p3 = dy2 * row_step + dx2;
  b.w = surf_div_rn((float)weight, (float)(dx2 - dx1) * (dy2 - dy1));
  return b;
}

// The box's integer sum; the integral wraps modulo 2^32 and unsigned arithmetic keeps that exact.
inline int surf_box_sum(global const uint* origin, surf_box b) {
  return (int)(origin[b.p0] + origin[b.p3] - origin[b.p1] - origin[b.p2]);
}

// One weighted term as OpenCV rounds it: int to float, times the float weight, rounded to float.
inline float surf_box_term(int sum, float w) { return (float)sum * w; }

// A keypoint's scale s = 1.2 size / 9 (the filter size's sigma), in OpenCV's float operations.
inline float surf_keypoint_scale(float size) { return surf_div_rn(size * 1.2f, 9.0f); }
