// The certificate of the tensor-core search (kernels/tiled_tensor.cl) on TF32 or FP16 operands
// (both keep 10 stored bits): a bound on how far each computed score can be from the exact one, and
// from it the margin beyond which the computed best word is the golden one. Plain C, compiled both
// as OpenCL C (by the kernel) and as C++ (by the tests, which check the bound against float64 and
// the decisions against the golden path). docs/KERNELS.md derives it.

#ifdef __OPENCL_VERSION__
#define BOVW_CERT_SQRT sqrt
#define BOVW_CERT_FMIN fmin
#define BOVW_CERT_FMAX fmax
#else
#define BOVW_CERT_SQRT std::sqrt
#define BOVW_CERT_FMIN std::fmin
#define BOVW_CERT_FMAX std::fmax
#endif

// Rounding of one operand, relative (10 stored bits, to nearest: TF32's cvt.rna, FP16's cvt.rn in
// its normal range): 2^-11.
#define BOVW_TENSOR_UNIT 0x1.0p-11f
// Rounding of the tensor core's accumulation, per m16n8k8 step, relative to the sum of the
// magnitudes it adds (the accumulator and eight exact products). Measured behaviour (Fasi et al.,
// PeerJ CS 2021) is truncation after aligning to the largest term, under 10 x 2^-23; 16 leaves room.
// An FP16 m16n8k16 step counts as two (32 units for 17 terms, which aligned truncation keeps under 18).
#define BOVW_TENSOR_STEP_ERROR (16.0f * 0x1.0p-23f)

// The operands' rounding, per unit of ||c||: with x~, c~ the operands (TF32 or FP16),
//   x~.c~ - x.c = x~.(c~ - c) + (x~ - x).c   exactly, so by Cauchy-Schwarz
//   |x~.c~ - x.c| <= (||x~|| rho + ||x~ - x||) ||c||,
// where rho = max_j ||c~_j - c_j|| / ||c_j|| over the vocabulary (measured by the host: at most
// 2^-11 for TF32, more where FP16's subnormals round). Far tighter than 2^-10 ||x|| ||c||, as
// roundings rarely all reach their bound.
inline float bovw_tensor_operand_factor(float norm_x_operands, float norm_x_rounding, float rho) {
  return norm_x_operands * rho + norm_x_rounding;
}

// Bound on |s - (x.c - ||c||^2 / 2)| for one word, where s is the kernel's score: operands rounded
// to TF32 or FP16 (operand_factor above), products accumulated by the tensor core from -||c||^2/2 (rounded
// once from float64), and the word's index written into the low `index_bits` bits of s.
// nx >= ||x|| and ||x~|| (1 + rho) (the kernel passes the larger), nc = ||c||, d = the descriptor width.
inline float bovw_tensor_score_error(float nx, float nc, float operand_factor, int d, int index_bits) {
  const float dot = nx * nc;  // >= sum |x_k c_k| (Cauchy-Schwarz): every product's magnitude
  const float half_norm = 0.5f * nc * nc;
  const float operands = operand_factor * nc;
  const float steps = (float)((d + 7) / 8);
  const float accumulation = BOVW_TENSOR_STEP_ERROR * steps * (half_norm + (1.0f + 4.0f * BOVW_TENSOR_UNIT) * dot);
  const float start = 0x1.0p-24f * half_norm;
  // Replacing the low bits moves s by less than 2^index_bits units in its last place.
  const float index = (float)(1 << index_bits) * 0x1.0p-23f * 1.01f * (dot + half_norm);
  // Absolute slack for values near zero: flushed subnormal products and scores (the kernel defers
  // rows whose best scores are this small, where an index written into a subnormal may be lost).
  const float tiny = 0x1.0p-100f;
  return operands + accumulation + start + index + tiny;
}

// The margin, in units of e = -2s (e = ||c||^2 - 2 x.c): when the computed e of a word exceeds the
// smallest computed e, e_best, by more, that word is not the golden nearest one. xx = ||x||^2 as
// the kernel computed it, nb = ||c_best||, max_norm = max_j ||c_j||, operand_factor as above.
//
// With E(nc) = 2 bovw_tensor_score_error(nx, nc) the bound on a word's e, and g = gamma_{D+2} the
// bound on the golden sum's relative rounding (a float sum of D squares in feature order): if j*
// is golden, g_{j*} <= g_best, so d_{j*} - d_best <= 2g d_best / (1 - g) and
//   e_{j*} - e_best <= 2g d_best / (1 - g) + E(||c_{j*}||) + E(nb),
// with d_best <= xx + e_best + E(nb) and ||c_{j*}|| <= R = min(max_norm, ||x|| + sqrt(d_best))
// (the triangle inequality: c_{j*} is about as close to x as c_best). The factor 1 + 8g covers the
// 1 / (1 - g) and xx's own rounding (below ||x||^2 by g at most, and the bound is at most quadratic
// in ||x||); BOVW_TENSOR_MARGIN_SLACK covers the float evaluation of this function and of e2 - e1
// (some forty roundings of 2^-24: under 1 + 2^-18). 0 as `slack` decides every near-tie (tests).
#define BOVW_TENSOR_MARGIN_SLACK 1.0625f
inline float bovw_tensor_margin(float xx, float e_best, float nb, float max_norm, float operand_factor, int d,
                              int index_bits, float slack) {
  const float g = (float)(d + 2) * 0x1.0p-24f;
  const float nx = BOVW_CERT_SQRT(xx);
  const float e_b = 2.0f * bovw_tensor_score_error(nx, nb, operand_factor, d, index_bits);
  const float db = BOVW_CERT_FMAX(xx + e_best + e_b, 0.0f);
  const float r = BOVW_CERT_FMIN(max_norm, nx + BOVW_CERT_SQRT(db) * (1.0f + 2.0f * g));
  const float e_r = 2.0f * bovw_tensor_score_error(nx, r, operand_factor, d, index_bits);
  return slack * (1.0f + 8.0f * g) * (2.0f * g * db + e_r + e_b);
}
