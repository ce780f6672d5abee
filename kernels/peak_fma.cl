// FP32 ceiling: each work-item runs BOVW_FMA_CHAINS independent FMA chains, enough to hide the
// FMA latency, so the kernel is bound by the arithmetic units. 2 flops per FMA.
#ifndef BOVW_FMA_CHAINS
#define BOVW_FMA_CHAINS 8
#endif

kernel void peak_fma(global float* out, const int iterations, const float a, const float b) {
  float acc[BOVW_FMA_CHAINS];
  for (int c = 0; c < BOVW_FMA_CHAINS; ++c) acc[c] = get_global_id(0) * 1e-7f + c;
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int c = 0; c < BOVW_FMA_CHAINS; ++c) acc[c] = fma(acc[c], a, b);
  }
  float sum = 0.0f;
  for (int c = 0; c < BOVW_FMA_CHAINS; ++c) sum += acc[c];
  out[get_global_id(0)] = sum;  // keeps the chains live
}
