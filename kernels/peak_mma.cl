// Tensor-core ceiling (NVIDIA only: inline PTX): each warp runs BOVW_MMA_CHAINS independent chains
// of mma.sync on register operands, enough to hide the instruction's latency, so the kernel is
// bound by the tensor cores. TF32: m16n8k8, 16 x 8 x 8 x 2 = 2,048 flops per mma per warp; with
// BOVW_MMA_F16, FP16: m16n8k16, 4,096.
#ifndef BOVW_MMA_CHAINS
#define BOVW_MMA_CHAINS 8
#endif
#ifndef BOVW_MMA_F16
#define BOVW_MMA_F16 0
#endif

kernel void peak_mma(global float* out, const int iterations, const float seed) {
#if BOVW_MMA_F16
  const uint a = 0x3c003c00u + (get_local_id(0) & 0xffu);  // two FP16 values near 1
  const uint b = 0x38003800u;                              // two FP16 halves
#else
  const uint a = as_uint(seed + get_local_id(0) * 1e-3f) & 0xffffe000u;  // already TF32
  const uint b = as_uint(seed * 0.5f) & 0xffffe000u;
#endif
  float c[BOVW_MMA_CHAINS][4];
  for (int k = 0; k < BOVW_MMA_CHAINS; ++k)
    for (int i = 0; i < 4; ++i) c[k][i] = 0.0f;
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int k = 0; k < BOVW_MMA_CHAINS; ++k)
      asm volatile(
#if BOVW_MMA_F16
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
#else
          "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
#endif
          "{%0,%1,%2,%3};"
          : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
          : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
  }
  float sum = 0.0f;
  for (int k = 0; k < BOVW_MMA_CHAINS; ++k) sum += c[k][0] + c[k][1] + c[k][2] + c[k][3];
  out[get_global_id(0)] = sum;  // keeps the chains live
}
