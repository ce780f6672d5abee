// The tensor-core certificate (kernels/tensor_certificate.h) on the host, where CI runs without an
// NVIDIA GPU: a CPU emulation of the tensor-core path (operands rounded as cvt.rna rounds them to
// TF32, or as cvt.rn rounds them to FP16 with its subnormals, exact products, FP32 accumulation per
// mma step either rounded to nearest or truncated after aligning to the largest term, as Fasi et
// al. measured tensor cores do, in blocks of 8 products or, for FP16's m16n8k16, of 16, and the
// kernel's index bits written into the low mantissa) checked against float64:
// - every emulated score lies within bovw_tensor_score_error of the exact x.c - ||c||^2/2, and the
//   bound is not vacuous (the worst error seen is a sizeable share of it);
// - the kernel's decisions made from emulated scores (runner-up beyond the margin: the best word;
//   only the third beyond it: one of the two best) agree with the golden path on adversarial
//   near-ties, where a margin of 0 gets rows wrong.
#include "support/test_support.hpp"

#include <bovw/histogrammer.hpp>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "tensor_certificate.h"

namespace bovw::test {
namespace {

float bitsToFloat(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
std::uint32_t floatToBits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// cvt.rna.tf32.f32, written independently of the library's: rounding the significand to 10 bits,
// ties away from zero, through double arithmetic.
float tf32(float v) {
  if (v == 0.0f || !std::isfinite(v)) return v;
  int exponent;
  const double m = std::frexp(static_cast<double>(v), &exponent);  // |m| in [0.5, 1)
  const double scaled = m * 2048.0;                                // 11 significant bits
  const double rounded = std::copysign(std::floor(std::fabs(scaled) + 0.5), scaled);
  return static_cast<float>(std::ldexp(rounded / 2048.0, exponent));
}

// cvt.rn.f16.f32, written independently of the library's (Eigen's) and the kernel's: 11 significant
// bits, ties to even (std::nearbyint in the default rounding mode), subnormals in multiples of
// 2^-24, infinity from 65520 (the midpoint past the largest FP16 value, 65504) on.
float fp16(float v) {
  if (v == 0.0f || !std::isfinite(v)) return v;
  if (std::fabs(v) >= 65520.0f) return std::copysign(INFINITY, v);
  int exponent;
  std::frexp(static_cast<double>(v), &exponent);                      // |v| in [2^(e-1), 2^e)
  const double unit = std::ldexp(1.0, std::max(exponent - 11, -24));  // the last place: subnormals below 2^-14
  return static_cast<float>(std::nearbyint(static_cast<double>(v) / unit) * unit);
}

enum class Operands { TF32, FP16 };
const char* nameOf(Operands operands) { return operands == Operands::FP16 ? "FP16" : "TF32"; }
float operand(float v, Operands operands) { return operands == Operands::FP16 ? fp16(v) : tf32(v); }

// Truncation toward zero of a double to a multiple of `unit`.
double truncateTo(double value, double unit) { return std::trunc(value / unit) * unit; }

// Nearest: a float sum in order. AlignedTruncation: every term of a block aligned to the largest
// one's exponent with 24 bits kept (the rest truncated), the sum normalised and truncated to 24
// bits, in blocks of 8 products; AlignedTruncation16 in blocks of 16 (FP16's m16n8k16 in one).
enum class Accumulation { Nearest, AlignedTruncation, AlignedTruncation16 };

// One block as the model says: c + the exact products (TF32 x TF32 and FP16 x FP16 are exact).
float mmaBlock(float c, const double* products, int count, Accumulation mode) {
  if (mode == Accumulation::Nearest) {
    float sum = c;
    for (int k = 0; k < count; ++k) sum += static_cast<float>(products[k]);
    return sum;
  }
  double largest = std::fabs(static_cast<double>(c));
  for (int k = 0; k < count; ++k) largest = std::max(largest, std::fabs(products[k]));
  if (largest == 0) return 0.0f;
  int exponent;
  std::frexp(largest, &exponent);
  const double unit = std::ldexp(1.0, exponent - 24);
  double sum = truncateTo(c, unit);
  for (int k = 0; k < count; ++k) sum += truncateTo(products[k], unit);
  std::frexp(sum, &exponent);
  return static_cast<float>(truncateTo(sum, std::ldexp(1.0, exponent - 24)));
}

// The kernel's score for one word: -||c||^2/2 (rounded once) plus x.c on the operands, D in
// blocks of 8 (or 16) products, and `index` written into the low `bits` bits.
float emulatedScore(const float* x, const float* c, int d, Operands operands, Accumulation mode, int bits,
                    std::uint32_t index) {
  double norm = 0;
  for (int k = 0; k < d; ++k) norm += static_cast<double>(c[k]) * c[k];
  float acc = static_cast<float>(-0.5 * norm);
  const int block = mode == Accumulation::AlignedTruncation16 ? 16 : 8;
  for (int k0 = 0; k0 < d; k0 += block) {
    double products[16] = {};
    for (int k = k0; k < std::min(d, k0 + block); ++k)
      products[k - k0] = static_cast<double>(operand(x[k], operands)) * static_cast<double>(operand(c[k], operands));
    acc = mmaBlock(acc, products, block, mode);
  }
  const std::uint32_t mask = (1u << bits) - 1u;
  return bitsToFloat((floatToBits(acc) & ~mask) | (index & mask));
}

double exactScore(const float* x, const float* c, int d) {
  double dot = 0, norm = 0;
  for (int k = 0; k < d; ++k) {
    dot += static_cast<double>(x[k]) * c[k];
    norm += static_cast<double>(c[k]) * c[k];
  }
  return dot - 0.5 * norm;
}

double norm2(const float* v, int d) {
  double sum = 0;
  for (int k = 0; k < d; ++k) sum += static_cast<double>(v[k]) * v[k];
  return std::sqrt(sum);
}

// ||v~ - v|| and ||v~||, v~ the operands.
double roundingNorm(const float* v, int d, Operands operands) {
  double sum = 0;
  for (int k = 0; k < d; ++k) {
    const double delta = static_cast<double>(operand(v[k], operands)) - v[k];
    sum += delta * delta;
  }
  return std::sqrt(sum);
}
double roundedNorm(const float* v, int d, Operands operands) {
  double sum = 0;
  for (int k = 0; k < d; ++k) sum += static_cast<double>(operand(v[k], operands)) * operand(v[k], operands);
  return std::sqrt(sum);
}

// rho of a vocabulary: the largest ||c~ - c|| / ||c||.
float largestRelativeRounding(const Descriptors& c, Operands operands) {
  double rho = 0;
  for (Eigen::Index j = 0; j < c.rows(); ++j)
    if (norm2(&c(j, 0), c.cols()) > 0)
      rho = std::max(rho, roundingNorm(&c(j, 0), c.cols(), operands) / norm2(&c(j, 0), c.cols()));
  return static_cast<float>(rho * (1 + 1e-6));
}

// The row's operand factor, and the ||x|| the kernel hands the bound: at least ||x~|| (1 + rho),
// which bounds the products' magnitudes where FP16's subnormals round up by more than 2^-11.
float operandFactor(const float* x, int d, float rho, Operands operands) {
  return bovw_tensor_operand_factor(static_cast<float>(roundedNorm(x, d, operands)),
                                  static_cast<float>(roundingNorm(x, d, operands)), rho);
}
float boundNorm(const float* x, int d, float rho, Operands operands) {
  return static_cast<float>(std::max(norm2(x, d), roundedNorm(x, d, operands) * (1.0 + rho)));
}

struct Regime {
  const char* name;
  float low, high, offset;
  bool tight;  // the relative terms dominate the bound (not its absolute slack for tiny values)
};
// FP16's own regimes: values within its range (it overflows from 65520 on, so "large" is not one),
// among them values partly or wholly below 2^-14, where FP16's subnormals round more coarsely than
// 2^-11 (wholly: a bound that took TF32's rounding for FP16's fails there).
const Regime kRegimes[] = {{"uniform [0,1)", 0.0f, 1.0f, 0.0f, true},
                           {"signed, unit scale", -0.3f, 0.3f, 0.0f, true},
                           {"far from the origin", 0.0f, 0.01f, 100.0f, true},
                           {"tiny", 0.0f, 1e-20f, 0.0f, false},
                           {"large", -1e8f, 1e8f, 0.0f, true}};
const Regime kFp16Regimes[] = {{"uniform [0,1)", 0.0f, 1.0f, 0.0f, true},
                               {"signed, unit scale", -0.3f, 0.3f, 0.0f, true},
                               {"far from the origin", 0.0f, 0.01f, 100.0f, true},
                               {"partly below 2^-14", -3e-4f, 3e-4f, 0.0f, true},
                               {"below 2^-14 (FP16's subnormals)", -1e-6f, 1e-6f, 0.0f, true},
                               {"near FP16's largest", 0.0f, 1000.0f, 0.0f, true}};

TEST(TensorCertificate, EveryEmulatedScoreIsWithinTheBound) {
  BOVW_SEEDED_RNG(rng);
  for (const Operands operands : {Operands::TF32, Operands::FP16})
    for (const Regime& regime : operands == Operands::FP16
                                    ? std::vector<Regime>(std::begin(kFp16Regimes), std::end(kFp16Regimes))
                                    : std::vector<Regime>(std::begin(kRegimes), std::end(kRegimes)))
      for (int d : {8, 61, 64, 128})
        for (int bits : {2, 8, 14}) {
          SCOPED_TRACE(std::string(nameOf(operands)) + ", " + regime.name + ", D = " + std::to_string(d) +
                       ", index bits " + std::to_string(bits));
          const Descriptors x = randomMatrix(rng, 40, d, regime.low, regime.high).array() + regime.offset;
          const Descriptors c = randomMatrix(rng, 40, d, regime.low, regime.high).array() + regime.offset;
          const float rho = largestRelativeRounding(c, operands);
          // Operands round by at most 2^-11 relative, except FP16's subnormals.
          const bool subnormal = operands == Operands::FP16 && (c.array().abs() < 0x1.0p-14f).any();
          if (!subnormal) {
            EXPECT_LE(rho, 0x1.0p-11f * (1 + 1e-5f));
          }
          double worst_share = 0;
          for (Eigen::Index i = 0; i < x.rows(); ++i)
            for (Eigen::Index j = 0; j < c.rows(); ++j) {
              const double exact = exactScore(&x(i, 0), &c(j, 0), d);
              const float bound =
                  bovw_tensor_score_error(boundNorm(&x(i, 0), d, rho, operands), static_cast<float>(norm2(&c(j, 0), d)),
                                        operandFactor(&x(i, 0), d, rho, operands), d, bits);
              for (Accumulation mode :
                   {Accumulation::Nearest, Accumulation::AlignedTruncation, Accumulation::AlignedTruncation16})
                for (std::uint32_t index : {0u, ~0u, static_cast<std::uint32_t>(j)}) {
                  const double error =
                      std::fabs(emulatedScore(&x(i, 0), &c(j, 0), d, operands, mode, bits, index) - exact);
                  ASSERT_LE(error, bound) << "row " << i << ", word " << j;
                  worst_share = std::max(worst_share, error / bound);
                }
            }
          // Not vacuous: the operand rounding alone reaches a fair share of the bound.
          if (regime.tight) {
            EXPECT_GT(worst_share, 0.01) << "the bound is far looser than any error seen";
          }
        }
}

// Adversarial near-ties: each descriptor midway (or within 1e-5 relative of midway) between two
// words. The kernel's decision rule on emulated scores never contradicts the golden path, and
// without the margin it does.
TEST(TensorCertificate, DecisionsFromEmulatedScoresAgreeWithTheGoldenPath) {
  BOVW_SEEDED_RNG(rng);
  for (const Operands operands : {Operands::TF32, Operands::FP16}) {
    SCOPED_TRACE(nameOf(operands));
    const int d = 64, k = 48;
    const std::int64_t n = 1500;
    const Descriptors c = randomMatrix(rng, k, d);
    const Descriptors x = rowsBetweenWords(rng, c, n, 1e-5f, 2);  // half midway, half within 1e-5 of it
    const Vocabulary vocabulary(c);
    const std::vector<std::int32_t> golden = openmpAssign(x, vocabulary);
    const int bits = 4;  // K = 48 padded to 64: 16 values per lane
    float max_norm = 0;
    for (int j = 0; j < k; ++j) max_norm = std::max(max_norm, static_cast<float>(norm2(&c(j, 0), d)));
    const float rho = largestRelativeRounding(c, operands);

    int decided = 0, paired = 0, deferred = 0, wrong_without_margin = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      std::vector<std::pair<float, int>> scores;
      for (int j = 0; j < k; ++j)
        scores.emplace_back(emulatedScore(&x(i, 0), &c(j, 0), d, operands, Accumulation::AlignedTruncation16, bits, j),
                            j);
      std::partial_sort(scores.begin(), scores.begin() + 3, scores.end(), std::greater<>());
      const float e1 = -2 * scores[0].first, e2 = -2 * scores[1].first, e3 = -2 * scores[2].first;
      double xx = 0;
      for (int f = 0; f < d; ++f) xx += static_cast<double>(x(i, f)) * x(i, f);
      const float nb = static_cast<float>(norm2(&c(scores[0].second, 0), d));
      const float nx = boundNorm(&x(i, 0), d, rho, operands);
      const float margin = bovw_tensor_margin(std::max(static_cast<float>(xx), nx * nx), e1, nb, max_norm,
                                            operandFactor(&x(i, 0), d, rho, operands), d, bits, BOVW_TENSOR_MARGIN_SLACK);
      if (scores[0].second != golden[i]) ++wrong_without_margin;
      if (e2 - e1 > margin) {
        ++decided;
        EXPECT_EQ(scores[0].second, golden[i]) << "row " << i << " decided without a re-check";
      } else if (e3 - e1 > margin) {
        ++paired;
        EXPECT_TRUE(golden[i] == scores[0].second || golden[i] == scores[1].second)
            << "row " << i << ": the golden word is not among the two best";
      } else {
        ++deferred;
      }
    }
    EXPECT_GT(wrong_without_margin, 0) << "the near-ties should defeat the TF32 scores alone";
    EXPECT_GT(paired, 0);
    RecordProperty(std::string(nameOf(operands)) + "_decided", decided);
    RecordProperty(std::string(nameOf(operands)) + "_paired", paired);
    RecordProperty(std::string(nameOf(operands)) + "_deferred", deferred);
    RecordProperty(std::string(nameOf(operands)) + "_wrong_without_margin", wrong_without_margin);
  }
}

}  // namespace
}  // namespace bovw::test
