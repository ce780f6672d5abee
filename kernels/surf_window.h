// The SURF descriptor's rotated window (sampleWindow in src/features/surf_descriptor.cpp), sampled
// pixel by pixel without materialising it: its direction (glibc's sinf/cosf), its geometry, each
// sample's position (the CPU's running sums, to the bit) and value (bilinear, 8-bit rounded).
// Included after surf_common.h; SURF_UPRIGHT (0/1) is a build option.

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

// glibc's tables; the 2nd computes -cos(x) rather than cos(x), for quadrants 2 and 3. In constant
// memory: as a function's array, indexed by the quadrant, it went to the stack, written and read
// again by every work-item of every work-group (NVIDIA's compiler, 2026-12-05).
constant surf_sincosf_poly surf_sincosf_tables[2] = {
    {0x1.45F306DC9C883p+23, 0x1.921FB54442D18p0, 0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5,
     -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16, -0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
     -0x1.994eb3774cf24p-13},
    {0x1.45F306DC9C883p+23, 0x1.921FB54442D18p0, -0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5,
     0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16, -0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
     -0x1.994eb3774cf24p-13}};

// glibc's sinf (cosine: false) or cosf (cosine: true).
float surf_glibc_sincosf(float y, bool cosine) {
  double x = y;
  if (surf_abstop12(y) < surf_abstop12((float)0x1.921FB54442D18p-1)) {  // about |y| < pi/4
    if (surf_abstop12(y) < surf_abstop12(0x1p-12f)) return cosine ? 1.0f : y;
    return surf_sincosf_eval(x, x * x, surf_sincosf_tables[0], cosine ? 1 : 0);
  }
  if (surf_abstop12(y) >= surf_abstop12(120.0f)) return cosine ? (float)cos(x) : (float)sin(x);
  // Quadrant n: the scaled product's bits 24..31, rounded; then x - n pi/2.
  const int n = ((int)(x * surf_sincosf_tables[0].hpi_inv) + 0x800000) >> 24;
  x = x - n * surf_sincosf_tables[0].hpi;
  const double sign = (n & 3) == 1 || (n & 3) == 2 ? -1.0 : 1.0;
  return surf_sincosf_eval(x * sign, x * x, surf_sincosf_tables[(n & 2) ? 1 : 0], cosine ? n ^ 1 : n);
}

// The window's geometry, as sampleWindow sets it up. Oriented: row 0 starts at (x0, y0), each row
// adds (sin_dir, cos_dir) to the start in float, each column (cos_dir, -sin_dir) to the position in
// double. Upright: row i is image column ux + i, column j image row uy - j.
typedef struct {
  float x0, y0, sin_dir, cos_dir;
  int ux, uy;
} surf_window;

// The window of keypoint kp (side `size`), as sampleWindow sets it up.
surf_window surf_window_of(surf_keypoint kp, int size) {
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
  return g;
}

// The exponent of a float's quantum (the value of its last bit); 1000 for 0, which constrains nothing.
inline int surf_quantum(float v) { return v != 0 ? max(ilogb(v) - 23, -149) : 1000; }

// Whether the running sums start + step + step + ... of sampleWindow's positions (in double) are exact
// up to `horizon` steps, for every start of magnitude at most max_start and quantum exponent at least
// start_quantum: all partial sums are multiples of the finer of the two quanta, so it suffices that
// the largest stays below 2^53 of them. Not so only for windows within about 1e-4 degrees of an axis.
bool surf_running_sums_exact(float max_start, int start_quantum, float step, int horizon) {
  const int quantum = min(start_quantum, surf_quantum(step));
  return quantum == 1000 || fabs((double)max_start) + horizon * fabs((double)step) < ldexp(1.0, 53 + quantum);
}

// start + step + step + ... (`steps` additions in double), as sampleWindow's running position: where
// the running sums are exact (surf_running_sums_exact over at least `steps`), start + steps * step,
// computed exactly; otherwise summed step by step.
double surf_running_position(float start, float step, int steps, bool exact) {
  if (exact) return (double)start + (double)steps * (double)step;
  double p = start;
  for (int k = 0; k < steps; ++k) p += step;
  return p;
}

// Where the quad image (surf_quad_image: each pixel's 2x2 bilinear footprint as one word) keeps pixel
// (x, y): in tiles of 8 x 4 words, one 128-byte cache line each, tiles row-major. A warp's 32 samples
// lie along a segment of 32 pixels in the window's direction; in rows of words it touches about
// 32 |dy| + 1 lines (21 on average over directions), in these tiles 4 |dx| + 8 |dy| + 1 (8), and a GPU's
// L1 serves a load in one pass per line. The image takes ceil(rows / 4) x ceil(cols / 8) tiles. In
// 32 bits: a batch's quad image holds fewer than 2^31 words (its table's offsets are ints), and a
// 64-bit multiply costs a GPU several instructions in a loop that is bound by their issue.
inline uint surf_quad_index(int x, int y, int cols) {
  const uint tile = (uint)(y >> 2) * (uint)((cols + 7) >> 3) + (uint)(x >> 3);
  return tile << 5 | (uint)(y & 3) << 3 | (uint)(x & 7);
}

// A GPU runs conversions (double to int, float or a rounded double; int to float) at a quarter of
// its add rate or less, and a window sample took 13 of them. The helpers below get the same values
// from adds and bit operations.

// floor(x) as an int, and (float)(x - floor(x)), for |x| < 2^31. Adding 1.5 * 2^52 rounds x to the
// nearest integer n in the low bits of the sum; x - n is exact (|x - n| <= 1/2, a multiple of x's
// last bit), and where it is negative, (x - n) + 1 is the same real number as x - floor(x), rounded
// once as that difference is: same double, same float.
inline int surf_split_position(double x, float* fraction) {
  const double shifted = x + 0x1.8p52;
  const double below = x - (shifted - 0x1.8p52);
  const bool under = below < 0;
  *fraction = (float)(below + (under ? 1.0 : 0.0));
  return (int)as_long(shifted) - (under ? 1 : 0);  // the low 32 bits of the sum's mantissa hold n
}

// A byte's value as a float, exactly: the byte as the low mantissa bits of 2^23.
inline float surf_byte_value(uint byte) { return as_float(0x4b000000u | (byte & 0xffu)) - 0x1p23f; }

// rint(v) for 0 <= v < 2^22: adding 1.5 * 2^23 leaves no fraction bits, rounded to nearest even.
inline float surf_round_small(float v) { return (v + 0x1.8p23f) - 0x1.8p23f; }

// The bilinear window pixel whose 2x2 footprint starts at (ix, iy), inside the image, at fractions
// (a, b) (surf_split_position): its four pixels from `quads` (the quad image), rounded as
// sampleWindow rounds them (cvRound, then the (uchar) cast, which changes nothing here: the weights
// sum to 1 within a few float steps, so v < 255.5), as a float.
inline float surf_bilinear_pixel(global const uint* quads, int cols, int ix, int iy, float a, float b) {
  const uint q = quads[surf_quad_index(ix, iy, cols)];
  const float p0 = surf_byte_value(q), p1 = surf_byte_value(q >> 8), p2 = surf_byte_value(q >> 16),
              p3 = surf_byte_value(q >> 24);
  const float v = p0 * (1.f - a) * (1.f - b) + p1 * a * (1.f - b) + p2 * (1.f - a) * b + p3 * a * b;
  return surf_round_small(v);
}

// The window pixel at (px, py), where its footprint lies inside the image.
inline float surf_inside_pixel(global const uint* quads, int cols, double px, double py) {
  float a, b;
  const int ix = surf_split_position(px, &a), iy = surf_split_position(py, &b);
  return surf_bilinear_pixel(quads, cols, ix, iy, a, b);
}

// One window pixel of an oriented window at (px, py): bilinear inside, nearest clamped pixel at the
// border, as sampleWindow.
float surf_window_pixel(global const uchar* img, global const uint* quads, int rows, int cols, double px, double py) {
  float a, b;
  const int ix = surf_split_position(px, &a), iy = surf_split_position(py, &b);
  if ((uint)ix < (uint)(cols - 1) && (uint)iy < (uint)(rows - 1)) return surf_bilinear_pixel(quads, cols, ix, iy, a, b);
  const int x = clamp((int)rint(px), 0, cols - 1), y = clamp((int)rint(py), 0, rows - 1);
  return img[(size_t)y * cols + x];
}

// Whether the samples at (px, py) + k (step_x, step_y), k = 0..n, are all bilinear (footprint inside),
// so that a row segment can skip the border test. The positions are monotone along the segment; the
// margin of a pixel covers the difference between the running sums and the exact line (below 1e-9
// pixels), as sampleWindow's interior test does.
bool surf_segment_inside(double px, double py, double step_x, double step_y, int n, int rows, int cols) {
  const double ex = px + n * step_x, ey = py + n * step_y;
  return fmin(px, ex) >= 1 && fmax(px, ex) < cols - 2 && fmin(py, ey) >= 1 && fmax(py, ey) < rows - 2;
}
