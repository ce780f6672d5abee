// Sums that are exact whatever their order and grouping: each value is scaled by a power of two
// (exact in float64) and rounded to an int64, and int64 sums do not round. k-means uses them for
// every sum that steers training (Lloyd's per-word sums, the inertia that decides convergence,
// k-means++'s draw weights), so the same seed gives the same vocabulary on any number of ranks,
// threads or devices. The scale is the largest power of two for which `terms` values of magnitude
// up to `max_magnitude` cannot overflow: for SURF descriptors (|x| <= 1) and a million rows that is
// 2^41, so a value is kept to 2^-42, far below a float's resolution at any useful magnitude.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bovw::detail {

class FixedPoint {
 public:
  // For sums of at most `terms` values with |value| <= max_magnitude (finite, >= 0).
  static FixedPoint forSums(double max_magnitude, std::int64_t terms) {
    if (!(max_magnitude > 0) || terms <= 0) return FixedPoint(0);
    const int magnitude_bits = std::ilogb(max_magnitude) + 1;                       // max < 2^magnitude_bits
    const int term_bits = static_cast<int>(std::ceil(std::log2(static_cast<double>(terms))));  // terms <= 2^term_bits
    // One bit of margin for the rounding of each value and of the caller's float computations.
    return FixedPoint(std::clamp(61 - magnitude_bits - term_bits, -1000, 1000));
  }

  std::int64_t toFixed(double value) const { return std::llrint(value * scale_); }  // ties to even
  double toDouble(double fixed) const { return fixed / scale_; }
  double scale() const { return scale_; }  // 2^bits
  int bits() const { return bits_; }

 private:
  explicit FixedPoint(int bits) : bits_(bits), scale_(std::ldexp(1.0, bits)) {}
  int bits_;
  double scale_;
};

}  // namespace bovw::detail
