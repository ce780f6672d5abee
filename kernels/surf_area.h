// cv::resize(INTER_AREA) from a window of `size` pixels per side to the SURF_CELLS x SURF_CELLS patch,
// with its tables (computeResizeAreaTab) and rounding. Included after surf_common.h, with SURF_CELLS
// defined.

// INTER_AREA's "area fast" path where the scale is a whole number (cv::resize's test): that number,
// else 0.
int surf_area_cell(int size) {
  const double area_scale = 1. / ((double)SURF_CELLS / size);
  const int rounded_scale = (int)rint(area_scale);
  return fabs(area_scale - rounded_scale) < DBL_EPSILON ? rounded_scale : 0;
}

// The window pixels an INTER_AREA destination pixel reads along one axis (computeResizeAreaTab,
// or whole cells of `cell` pixels where the scale is the whole number `cell`): lo..hi, with weight
// w_first for lo, w_last for hi (when hi > lo), w_mid for the others.
typedef struct {
  int lo, hi;
  float w_first, w_mid, w_last;
} surf_area_span;

surf_area_span surf_area_span_of(int size, int cell, int d) {
  surf_area_span a;
  if (cell > 0) {
    a.lo = d * cell;
    a.hi = a.lo + cell - 1;
    a.w_first = a.w_mid = a.w_last = 1.f;
    return a;
  }
  const double scale = 1. / ((double)SURF_CELLS / size);  // as cv::resize derives it
  const double from = d * scale, to = from + scale;
  const double width = fmin(scale, size - from);
  int last = min((int)floor(to), size - 1);
  const int first = min((int)ceil(from), last);
  // computeResizeAreaTab: a partial pixel before `first` and one at `last` where they overlap by more
  // than 1e-3, whole pixels first..last-1 between.
  const bool has_lo = first - from > 1e-3, has_hi = to - last > 1e-3;
  const float w_lo = (float)((first - from) / width);
  const float w_hi = (float)(fmin(fmin(to - last, 1.), width) / width);
  a.lo = has_lo ? first - 1 : first;
  a.hi = has_hi ? last : last - 1;
  a.w_mid = (float)(1.0 / width);
  a.w_first = has_lo ? w_lo : a.lo == a.hi && has_hi ? w_hi : a.w_mid;
  a.w_last = has_hi ? w_hi : a.w_mid;
  return a;
}

// Window pixel i's weight (lo <= i <= hi).
inline float surf_area_weight(const surf_area_span* a, int i) {
  return i == a->lo ? a->w_first : i == a->hi ? a->w_last : a->w_mid;
}

// A patch pixel from its INTER_AREA sum: float sum (cell 0) or the integer sum of a whole cell.
uchar surf_patch_value(float sum, int whole, int cell) {
  if (cell == 2) return (uchar)((whole + 2) >> 2);
  const float value = cell > 0 ? whole * surf_div_rn(1.f, (float)(cell * cell)) : sum;
  return (uchar)clamp((int)rint(value), 0, 255);  // saturate_cast<uchar>
}
