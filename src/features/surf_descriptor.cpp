// SURF descriptors. The window sampling (bilinear for oriented keypoints, nearest pixel for upright
// ones, clamped at the border) and the 8-bit rounding of the window and of the INTER_AREA patch are
// OpenCV's: they shift descriptor values by a few percent, so reproducing them is what makes the
// vectors agree with OpenCV's.
//
// Two ways to the 21x21 patch, with identical results (tests/features/surf_descriptor_paths_test.cpp):
// - reference: the window as OpenCV builds it (sampleWindow), then cv::resize(INTER_AREA);
// - vector (AVX2, chosen at run time): 8 window rows at a time in the 8 lanes of a vector, so every
//   lane repeats OpenCV's per-row arithmetic exactly (the sample positions are running double sums
//   along a row, which a vector along the row could not reproduce), each sample's 4 pixels one 32-bit
//   load from a "quad" copy of the image;
//   and each sample goes straight into OpenCV's INTER_AREA sums (resizeArea's tables, rounding and
//   summation order, per row in the lanes) instead of into a window that is written and read again.
#include "surf_descriptor.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <immintrin.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>

namespace bovw::surf {
namespace {

constexpr int kPatch = 20;           // gradient samples per side
constexpr float kSigma = 3.3f;       // gaussian weight, in units of s

struct Weights {
  float w[kPatch][kPatch];
  Weights() {
    const cv::Mat g = cv::getGaussianKernel(kPatch, kSigma, CV_32F);
    for (int i = 0; i < kPatch; ++i)
      for (int j = 0; j < kPatch; ++j) w[i][j] = g.at<float>(i) * g.at<float>(j);
  }
};

const Weights& weights() {
  static const Weights w;
  return w;
}

// The win_size x win_size window around kp, rotated to its orientation.
void sampleWindow(const cv::Mat& img, const cv::KeyPoint& kp, bool upright, int win_size, uchar* win) {
  const cv::Point2f c = kp.pt;
  const float win_offset = -static_cast<float>(win_size - 1) / 2;
  if (!upright) {
    const float dir = kp.angle * static_cast<float>(CV_PI / 180);
    const float sin_dir = -std::sin(dir);
    const float cos_dir = std::cos(dir);
    float start_x = c.x + win_offset * cos_dir + win_offset * sin_dir;
    float start_y = c.y - win_offset * sin_dir + win_offset * cos_dir;
    const int ncols1 = img.cols - 1, nrows1 = img.rows - 1;
    const size_t imgstep = img.step;
    // Interior fast path: when the window's corners (plus a pixel for the accumulated rounding) are
    // inside, no sample needs the border branch. Same arithmetic, so the same pixels.
    const float span = static_cast<float>(win_size - 1);
    const float xs[4] = {start_x, start_x + span * cos_dir, start_x + span * sin_dir,
                         start_x + span * (cos_dir + sin_dir)};
    const float ys[4] = {start_y, start_y - span * sin_dir, start_y + span * cos_dir,
                         start_y + span * (cos_dir - sin_dir)};
    if (*std::min_element(xs, xs + 4) >= 1 && *std::max_element(xs, xs + 4) < ncols1 - 1 &&
        *std::min_element(ys, ys + 4) >= 1 && *std::max_element(ys, ys + 4) < nrows1 - 1) {
      const uchar* base = img.data;
      for (int i = 0; i < win_size; ++i, start_x += sin_dir, start_y += cos_dir) {
        double px = start_x, py = start_y;
        uchar* out = win + i * win_size;
        for (int j = 0; j < win_size; ++j, px += cos_dir, py -= sin_dir) {
          const int ix = static_cast<int>(px), iy = static_cast<int>(py);  // floor: both positive
          const float a = static_cast<float>(px - ix), b = static_cast<float>(py - iy);
          const uchar* p = base + iy * imgstep + ix;
          out[j] = static_cast<uchar>(cvRound(p[0] * (1.f - a) * (1.f - b) + p[1] * a * (1.f - b) +
                                              p[imgstep] * (1.f - a) * b + p[imgstep + 1] * a * b));
        }
      }
      return;
    }
    for (int i = 0; i < win_size; ++i, start_x += sin_dir, start_y += cos_dir) {
      double px = start_x, py = start_y;
      for (int j = 0; j < win_size; ++j, px += cos_dir, py -= sin_dir) {
        const int ix = cvFloor(px), iy = cvFloor(py);
        if (static_cast<unsigned>(ix) < static_cast<unsigned>(ncols1) &&
            static_cast<unsigned>(iy) < static_cast<unsigned>(nrows1)) {
          const float a = static_cast<float>(px - ix), b = static_cast<float>(py - iy);
          const uchar* p = img.ptr<uchar>(iy) + ix;
          win[i * win_size + j] = static_cast<uchar>(cvRound(p[0] * (1.f - a) * (1.f - b) + p[1] * a * (1.f - b) +
                                                             p[imgstep] * (1.f - a) * b + p[imgstep + 1] * a * b));
        } else {
          const int x = std::min(std::max(cvRound(px), 0), ncols1);
          const int y = std::min(std::max(cvRound(py), 0), nrows1);
          win[i * win_size + j] = img.at<uchar>(y, x);
        }
      }
    }
  } else {
    // Angle 270: window rows run along +x, columns along -y.
    int start_x = cvRound(c.x + win_offset);
    const int start_y = cvRound(c.y - win_offset);
    for (int i = 0; i < win_size; ++i, ++start_x) {
      const int x = std::max(std::min(start_x, img.cols - 1), 0);
      int py = start_y;
      for (int j = 0; j < win_size; ++j, --py) {
        const int y = std::max(std::min(py, img.rows - 1), 0);
        win[i * win_size + j] = img.at<uchar>(y, x);
      }
    }
  }
}

// One term of cv::resize's INTER_AREA tables (imgproc's computeResizeAreaTab): source pixel `src`
// adds alpha x its value to destination pixel `dst`. Sorted by dst, and so by src (non-decreasing).
struct AreaTap {
  int src, dst;
  float alpha;
};

// How cv::resize(INTER_AREA) shrinks `size` pixels to kPatch + 1 along each axis, with its arithmetic.
// The scale is 1 / (dsize / ssize) in double, as cv::resize derives it. Where that is a whole number
// k, cv::resize sums each k x k cell in integers ("area fast") and rounds (sum + 2) >> 2 for k = 2,
// sum * (1.f / k^2) to nearest otherwise: `cell` is k then, the taps have weight 1 and the float sums
// stay exact integers. Otherwise `cell` is 0 and the taps are computeResizeAreaTab's.
struct AreaTable {
  std::vector<AreaTap> taps;
  int cell = 0;
};

void areaTable(int size, AreaTable& table) {
  constexpr int kOut = kPatch + 1;
  const double scale = 1. / (static_cast<double>(kOut) / size);
  const int iscale = cv::saturate_cast<int>(scale);
  std::vector<AreaTap>& taps = table.taps;
  taps.clear();
  table.cell = std::abs(scale - iscale) < DBL_EPSILON ? iscale : 0;
  if (table.cell > 0) {
    for (int x = 0; x < kOut * table.cell; ++x) taps.push_back({x, x / table.cell, 1.f});
    return;
  }
  for (int d = 0; d < kOut; ++d) {
    const double from = d * scale, to = from + scale;
    const double width = std::min(scale, size - from);
    int first = cvCeil(from), last = cvFloor(to);
    last = std::min(last, size - 1);
    first = std::min(first, last);
    if (first - from > 1e-3) taps.push_back({first - 1, d, static_cast<float>((first - from) / width)});
    for (int x = first; x < last; ++x) taps.push_back({x, d, static_cast<float>(1.0 / width)});
    if (to - last > 1e-3) taps.push_back({last, d, static_cast<float>(std::min(std::min(to - last, 1.), width) / width)});
  }
}

// OpenCV's resizeArea, vertical half, fed one window row at a time (in order): `row` holds that row's
// horizontal sums (its kPatch + 1 patch columns). Rows enter each patch row's sum with their weight;
// a patch row is rounded to 8 bits when the table moves on to the next.
struct AreaRows {
  const AreaTable& table;
  uchar (&patch)[kPatch + 1][kPatch + 1];
  std::size_t next = 0;
  int current = 0;
  float sum[kPatch + 1] = {};

  void add(int r, const float* row) {
    const std::vector<AreaTap>& taps = table.taps;
    for (; next < taps.size() && taps[next].src == r; ++next) {
      const float beta = taps[next].alpha;
      if (taps[next].dst != current) {
        store();
        for (int d = 0; d <= kPatch; ++d) sum[d] = beta * row[d];
        current = taps[next].dst;
      } else {
        for (int d = 0; d <= kPatch; ++d) sum[d] += beta * row[d];
      }
    }
  }
  void store() {
    uchar* out = patch[current];
    if (table.cell == 0) {
      for (int d = 0; d <= kPatch; ++d) out[d] = cv::saturate_cast<uchar>(sum[d]);
    } else if (table.cell == 2) {
      for (int d = 0; d <= kPatch; ++d) out[d] = static_cast<uchar>((static_cast<int>(sum[d]) + 2) >> 2);
    } else {
      const float scale = 1.f / (table.cell * table.cell);
      for (int d = 0; d <= kPatch; ++d) out[d] = cv::saturate_cast<uchar>(static_cast<int>(sum[d]) * scale);
    }
  }
};

// The window's geometry, as sampleWindow computes it: row i starts at (row_x[i], row_y[i]) (float
// running sums, OpenCV's), and each step along a row adds (step_x, step_y) in double. Upright
// windows are whole pixels: row i is image column row_x[i], column j image row row_y[0] - j.
struct WindowGeometry {
  int size = 0;
  bool upright = false;
  std::vector<float> row_x, row_y;  // padded to a multiple of 8 with copies of the last row
  float step_x = 0, step_y = 0;
};

WindowGeometry windowGeometry(const cv::KeyPoint& kp, bool upright, int win_size) {
  WindowGeometry g;
  g.size = win_size;
  g.upright = upright;
  const int padded = (win_size + 7) / 8 * 8;
  g.row_x.resize(padded);
  g.row_y.resize(padded);
  const float win_offset = -static_cast<float>(win_size - 1) / 2;
  if (!upright) {
    const float dir = kp.angle * static_cast<float>(CV_PI / 180);
    const float sin_dir = -std::sin(dir);
    const float cos_dir = std::cos(dir);
    float start_x = kp.pt.x + win_offset * cos_dir + win_offset * sin_dir;
    float start_y = kp.pt.y - win_offset * sin_dir + win_offset * cos_dir;
    for (int i = 0; i < win_size; ++i, start_x += sin_dir, start_y += cos_dir) {
      g.row_x[i] = start_x;
      g.row_y[i] = start_y;
    }
    g.step_x = cos_dir;
    g.step_y = -sin_dir;
  } else {
    const int start_x = cvRound(kp.pt.x + win_offset);
    const int start_y = cvRound(kp.pt.y - win_offset);
    for (int i = 0; i < win_size; ++i) {
      g.row_x[i] = static_cast<float>(start_x + i);
      g.row_y[i] = static_cast<float>(start_y);
    }
  }
  for (int i = win_size; i < padded; ++i) {
    g.row_x[i] = g.row_x[win_size - 1];
    g.row_y[i] = g.row_y[win_size - 1];
  }
  return g;
}

// The vector path's preconditions on the image: 32-bit offsets, and room for its 4-byte loads.
bool vectorPathFits(const cv::Mat& img) {
  return img.rows >= 2 && img.cols >= 4 && static_cast<double>(img.rows) * img.step[0] < INT_MAX / 2;
}

// The bytes at `offset` (8 lanes), as 32-bit lanes. Eight loads rather than a gather instruction: on
// the CPU measured (AMD Zen 3) vpgatherdd is slower than the loads it replaces.
__attribute__((target("avx2"))) inline __m256i loadBytes(const uchar* base, __m256i offset) {
  alignas(32) std::int32_t at[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), offset);
  return _mm256_setr_epi32(base[at[0]], base[at[1]], base[at[2]], base[at[3]], base[at[4]], base[at[5]], base[at[6]],
                           base[at[7]]);
}

// The 32-bit words at `index` (8 lanes) of `words`; as loadBytes.
__attribute__((target("avx2"))) inline __m256i loadWords(const std::int32_t* words, __m256i index) {
  alignas(32) std::int32_t at[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), index);
  return _mm256_setr_epi32(words[at[0]], words[at[1]], words[at[2]], words[at[3]], words[at[4]], words[at[5]],
                           words[at[6]], words[at[7]]);
}

// The window samples of 8 rows at column j, as 8 floats (the 8-bit values sampleWindow writes).
// px, py: the rows' sample positions (lo: rows 0-3, hi: rows 4-7), exactly as sampleWindow has them.
// `quads` is quadImage(img).
__attribute__((target("avx2"))) inline __m256 sampleOriented(const uchar* base, const cv::Mat& quads, int step,
                                                             int ncols1, int nrows1, __m256d px_lo, __m256d px_hi,
                                                             __m256d py_lo, __m256d py_hi) {
  const __m256d fx_lo = _mm256_floor_pd(px_lo), fx_hi = _mm256_floor_pd(px_hi);
  const __m256d fy_lo = _mm256_floor_pd(py_lo), fy_hi = _mm256_floor_pd(py_hi);
  const __m256i ix = _mm256_set_m128i(_mm256_cvttpd_epi32(fx_hi), _mm256_cvttpd_epi32(fx_lo));
  const __m256i iy = _mm256_set_m128i(_mm256_cvttpd_epi32(fy_hi), _mm256_cvttpd_epi32(fy_lo));
  // (unsigned)ix < ncols1 && (unsigned)iy < nrows1: the bilinear case.
  const __m256i minus1 = _mm256_set1_epi32(-1);
  const __m256i inside = _mm256_and_si256(
      _mm256_and_si256(_mm256_cmpgt_epi32(ix, minus1), _mm256_cmpgt_epi32(_mm256_set1_epi32(ncols1), ix)),
      _mm256_and_si256(_mm256_cmpgt_epi32(iy, minus1), _mm256_cmpgt_epi32(_mm256_set1_epi32(nrows1), iy)));
  const __m256i step_v = _mm256_set1_epi32(step);
  __m256i value;
  const int inside_mask = _mm256_movemask_ps(_mm256_castsi256_ps(inside));
  if (inside_mask != 0) {
    // a = (float)(px - ix), b likewise: exact differences, then rounded to float.
    const __m256 a = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_sub_pd(px_hi, fx_hi)), _mm256_cvtpd_ps(_mm256_sub_pd(px_lo, fx_lo)));
    const __m256 b = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_sub_pd(py_hi, fy_hi)), _mm256_cvtpd_ps(_mm256_sub_pd(py_lo, fy_lo)));
    // The 4 pixels of each sample in one load from the quad image; lanes outside read quad (0, 0)
    // here and take the nearest pixel below.
    const __m256i quad_index = _mm256_and_si256(
        _mm256_add_epi32(_mm256_mullo_epi32(iy, _mm256_set1_epi32(static_cast<int>(quads.step1()))), ix), inside);
    const __m256i q = loadWords(quads.ptr<std::int32_t>(), quad_index);
    const __m256i mask8 = _mm256_set1_epi32(0xff);
    const __m256 p0 = _mm256_cvtepi32_ps(_mm256_and_si256(q, mask8));
    const __m256 p1 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(q, 8), mask8));
    const __m256 p2 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(q, 16), mask8));
    const __m256 p3 = _mm256_cvtepi32_ps(_mm256_srli_epi32(q, 24));
    const __m256 one = _mm256_set1_ps(1.f);
    const __m256 ia = _mm256_sub_ps(one, a), ib = _mm256_sub_ps(one, b);
    // p0 (1-a)(1-b) + p1 a (1-b) + p2 (1-a) b + p3 a b, left to right, each product rounded.
    __m256 v = _mm256_mul_ps(_mm256_mul_ps(p0, ia), ib);
    v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_mul_ps(p1, a), ib));
    v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_mul_ps(p2, ia), b));
    v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_mul_ps(p3, a), b));
    value = _mm256_and_si256(_mm256_cvtps_epi32(v), mask8);  // cvRound, then the (uchar) cast
  } else {
    value = _mm256_setzero_si256();
  }
  if (inside_mask != 0xff) {
    // Nearest pixel, clamped: cvRound (to nearest even, as the conversion rounds) of the positions.
    const __m256i rx = _mm256_set_m128i(_mm256_cvtpd_epi32(px_hi), _mm256_cvtpd_epi32(px_lo));
    const __m256i ry = _mm256_set_m128i(_mm256_cvtpd_epi32(py_hi), _mm256_cvtpd_epi32(py_lo));
    const __m256i zero = _mm256_setzero_si256();
    const __m256i x = _mm256_min_epi32(_mm256_max_epi32(rx, zero), _mm256_set1_epi32(ncols1));
    const __m256i y = _mm256_min_epi32(_mm256_max_epi32(ry, zero), _mm256_set1_epi32(nrows1));
    const __m256i nearest = loadBytes(base, _mm256_add_epi32(_mm256_mullo_epi32(y, step_v), x));
    value = _mm256_blendv_epi8(nearest, value, inside);
  }
  return _mm256_cvtepi32_ps(value);
}

// The bilinear footprint of every pixel as one 32-bit word, so a sample needs one load instead of
// four: bytes p(y, x), p(y, x + 1), p(y + 1, x), p(y + 1, x + 1), low to high (zero in the last row and
// column, which sampleOriented never reads). 4 bytes per pixel, once per image.
cv::Mat quadImage(const cv::Mat& img) {
  cv::Mat quads(img.rows, img.cols, CV_32S, cv::Scalar(0));
  cv::parallel_for_(cv::Range(0, img.rows - 1), [&](const cv::Range& r) {
    for (int y = r.start; y < r.end; ++y) {
      const uchar* top = img.ptr<uchar>(y);
      const uchar* bottom = img.ptr<uchar>(y + 1);
      std::uint32_t* out = quads.ptr<std::uint32_t>(y);
      for (int x = 0; x + 1 < img.cols; ++x)
        out[x] = top[x] | top[x + 1] << 8 | static_cast<std::uint32_t>(bottom[x]) << 16 |
                 static_cast<std::uint32_t>(bottom[x + 1]) << 24;
    }
  });
  return quads;
}

// Upright windows: pixel (clamp(row_y[0] - j), clamp(row_x[i])) for the 8 rows i at column j.
__attribute__((target("avx2"))) inline __m256 sampleUpright(const uchar* base, int step, int ncols1, int nrows1,
                                                            __m256i columns, int y) {
  const int row = std::max(std::min(y, nrows1), 0);
  const __m256i x = _mm256_max_epi32(_mm256_min_epi32(columns, _mm256_set1_epi32(ncols1)), _mm256_setzero_si256());
  return _mm256_cvtepi32_ps(loadBytes(base, _mm256_add_epi32(_mm256_set1_epi32(row * step), x)));
}

// The 21x21 patch of one keypoint: sampleWindow + cv::resize(INTER_AREA) in one pass, 8 window rows
// per pass over the columns. `table` is areaTable(g.size); `quads` quadImage(img) (oriented windows).
__attribute__((target("avx2"))) void patchVector(const cv::Mat& img, const cv::Mat& quads, const WindowGeometry& g,
                                                const AreaTable& table, uchar (&patch)[kPatch + 1][kPatch + 1]) {
  const std::vector<AreaTap>& taps = table.taps;
  const uchar* base = img.data;
  const int step = static_cast<int>(img.step[0]);
  const int ncols1 = img.cols - 1, nrows1 = img.rows - 1;
  AreaRows rows{table, patch};
  alignas(32) float sums[kPatch + 1][8];
  const __m256d step_x = _mm256_set1_pd(g.step_x), step_y = _mm256_set1_pd(g.step_y);
  for (int r0 = 0; r0 < g.size; r0 += 8) {
    __m256 acc[kPatch + 1];
    for (auto& a : acc) a = _mm256_setzero_ps();
    __m256d px_lo = _mm256_cvtps_pd(_mm_loadu_ps(&g.row_x[r0])), px_hi = _mm256_cvtps_pd(_mm_loadu_ps(&g.row_x[r0 + 4]));
    __m256d py_lo = _mm256_cvtps_pd(_mm_loadu_ps(&g.row_y[r0])), py_hi = _mm256_cvtps_pd(_mm_loadu_ps(&g.row_y[r0 + 4]));
    const __m256i columns = _mm256_cvttps_epi32(_mm256_loadu_ps(&g.row_x[r0]));
    const int top = static_cast<int>(g.row_y[0]);
    // resizeArea's horizontal sums, buf[dst] += value * alpha in table order; the sum of the current
    // dst stays in a register (dst never decreases along the table).
    const AreaTap* t = taps.data();
    const AreaTap* const t_end = t + taps.size();
    int current = t->dst;
    __m256 sum = _mm256_setzero_ps();
    for (int j = 0; j < g.size; ++j) {
      if (t != t_end && t->src == j) {
        const __m256 v = g.upright ? sampleUpright(base, step, ncols1, nrows1, columns, top - j)
                                   : sampleOriented(base, quads, step, ncols1, nrows1, px_lo, px_hi, py_lo, py_hi);
        for (; t != t_end && t->src == j; ++t) {
          if (t->dst != current) {
            acc[current] = sum;
            sum = _mm256_setzero_ps();
            current = t->dst;
          }
          sum = _mm256_add_ps(sum, _mm256_mul_ps(v, _mm256_set1_ps(t->alpha)));
        }
      }
      // Next column: pixel_x += cos_dir, pixel_y -= sin_dir, in double, as sampleWindow does.
      px_lo = _mm256_add_pd(px_lo, step_x);
      px_hi = _mm256_add_pd(px_hi, step_x);
      py_lo = _mm256_add_pd(py_lo, step_y);
      py_hi = _mm256_add_pd(py_hi, step_y);
    }
    acc[current] = sum;
    for (int d = 0; d <= kPatch; ++d) _mm256_store_ps(sums[d], acc[d]);
    for (int l = 0; l < 8 && r0 + l < g.size; ++l) {
      float row[kPatch + 1];
      for (int d = 0; d <= kPatch; ++d) row[d] = sums[d][l];
      rows.add(r0 + l, row);
    }
  }
  rows.store();
}

bool cpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

void describe(const uchar (&patch)[kPatch + 1][kPatch + 1], bool extended, float* vec) {
  const Weights& dw = weights();
  float dx[kPatch][kPatch], dy[kPatch][kPatch];
  for (int i = 0; i < kPatch; ++i)
    for (int j = 0; j < kPatch; ++j) {
      const float w = dw.w[i][j];
      dx[i][j] = (patch[i][j + 1] - patch[i][j] + patch[i + 1][j + 1] - patch[i + 1][j]) * w;
      dy[i][j] = (patch[i + 1][j] - patch[i][j] + patch[i + 1][j + 1] - patch[i][j + 1]) * w;
    }
  const int dsize = extended ? 128 : 64;
  std::fill(vec, vec + dsize, 0.f);
  double square_mag = 0;
  float* v = vec;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      for (int y = i * 5; y < i * 5 + 5; ++y)
        for (int x = j * 5; x < j * 5 + 5; ++x) {
          const float tx = dx[y][x], ty = dy[y][x];
          if (extended) {
            if (ty >= 0) {
              v[0] += tx;
              v[1] += std::fabs(tx);
            } else {
              v[2] += tx;
              v[3] += std::fabs(tx);
            }
            if (tx >= 0) {
              v[4] += ty;
              v[5] += std::fabs(ty);
            } else {
              v[6] += ty;
              v[7] += std::fabs(ty);
            }
          } else {
            v[0] += tx;
            v[1] += ty;
            v[2] += std::fabs(tx);
            v[3] += std::fabs(ty);
          }
        }
      const int n = extended ? 8 : 4;
      for (int k = 0; k < n; ++k) square_mag += v[k] * v[k];
      v += n;
    }
  // Unit length for contrast invariance.
  const float scale = static_cast<float>(1. / (std::sqrt(square_mag) + FLT_EPSILON));
  for (int k = 0; k < dsize; ++k) vec[k] *= scale;
}

}  // namespace

bool vectorPatchAvailable(const cv::Mat& gray) { return cpuHasAvx2() && vectorPathFits(gray); }

const float* descriptorWeights() { return &weights().w[0][0]; }

void computeDescriptors(const cv::Mat& gray, const std::vector<cv::KeyPoint>& keypoints, bool extended,
                        bool upright, cv::Mat& descriptors, PatchPath path) {
  CV_Assert(gray.type() == CV_8UC1 && descriptors.type() == CV_32F &&
            descriptors.rows == static_cast<int>(keypoints.size()) && descriptors.cols == (extended ? 128 : 64));
  const bool vector = path != PatchPath::Reference && vectorPatchAvailable(gray);
  CV_Assert(path != PatchPath::Vector || vector);
  const cv::Mat quads = vector && !upright ? quadImage(gray) : cv::Mat();
  cv::parallel_for_(cv::Range(0, static_cast<int>(keypoints.size())), [&](const cv::Range& r) {
    std::vector<uchar> winbuf;
    AreaTable table;
    uchar patch[kPatch + 1][kPatch + 1];
    cv::Mat patch_mat(kPatch + 1, kPatch + 1, CV_8U, patch);
    for (int k = r.start; k < r.end; ++k) {
      const cv::KeyPoint& kp = keypoints[k];
      if (kp.size <= 0) continue;
      const float s = kp.size * 1.2f / 9.0f;
      const int win_size = static_cast<int>((kPatch + 1) * s);
      // Each patch pixel becomes s x s image pixels, so the gradients are wavelets of side 2s.
      if (vector) {
        areaTable(win_size, table);
        patchVector(gray, quads, windowGeometry(kp, upright, win_size), table, patch);
      } else {
        winbuf.resize(static_cast<size_t>(win_size) * win_size);
        cv::Mat win(win_size, win_size, CV_8U, winbuf.data());
        sampleWindow(gray, kp, upright, win_size, winbuf.data());
        cv::resize(win, patch_mat, patch_mat.size(), 0, 0, cv::INTER_AREA);
      }
      describe(patch, extended, descriptors.ptr<float>(k));
    }
  });
}

}  // namespace bovw::surf
