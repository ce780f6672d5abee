// k-means++ seeding on the device (src/opencl/opencl_sample_passes.cpp): one launch per chosen word,
// over the row-major sample resident on the device. It must give the CPU's numbers bit for bit
// (src/vocabulary/sample_passes.hpp): each distance is seedDistance() (eight partial float sums over
// the features, lane l taking f = l, l + 8, ..., folded 4-2-1, never fused), each row's draw weight is
// seedWeight() (the distance times a power of two, rounded to a long, ties to even), and each
// work-group sums the weights of its block of BOVW_SEED_GROUP x BOVW_SEED_ROWS rows: integer sums,
// exact in any order.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#ifndef BOVW_SEED_GROUP
#define BOVW_SEED_GROUP 256
#endif
#ifndef BOVW_SEED_ROWS
#define BOVW_SEED_ROWS 4
#endif

inline float bovw_seed_distance(global const float* x, local const float* word) {
  float p[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
#if BOVW_D % 4 == 0
#pragma unroll
  for (int f = 0; f < BOVW_D; f += 4) {
    const float4 t = vload4(0, x + f) - vload4(0, word + f);
    const float4 square = t * t;
    p[f % 8 + 0] += square.x;
    p[f % 8 + 1] += square.y;
    p[f % 8 + 2] += square.z;
    p[f % 8 + 3] += square.w;
  }
#else
#pragma unroll
  for (int f = 0; f < BOVW_D; ++f) {
    const float t = x[f] - word[f];
    p[f % 8] += t * t;
  }
#endif
  const float q0 = p[0] + p[4], q1 = p[1] + p[5], q2 = p[2] + p[6], q3 = p[3] + p[7];
  return (q0 + q2) + (q1 + q3);
}

// nearest[i] = min(nearest[i], distance of row i to `chosen`) (set on the first pass), and
// block_sums[g] = the sum of the weights of nearest over group g's block.
kernel __attribute__((reqd_work_group_size(BOVW_SEED_GROUP, 1, 1)))
void seed_distances(global const float* restrict sample, const int n, global const float* restrict chosen,
                    const int first_pass, global float* restrict nearest, global long* restrict block_sums,
                    const double weight_scale) {
  local float word[BOVW_D];
  local long partial[BOVW_SEED_GROUP];
  const int t = get_local_id(0);
  for (int f = t; f < BOVW_D; f += BOVW_SEED_GROUP) word[f] = chosen[f];
  barrier(CLK_LOCAL_MEM_FENCE);

  const int block_first = get_group_id(0) * (BOVW_SEED_GROUP * BOVW_SEED_ROWS);
  long sum = 0;
  for (int r = 0; r < BOVW_SEED_ROWS; ++r) {
    const int i = block_first + r * BOVW_SEED_GROUP + t;
    float value = 0.0f;  // rows past the end add nothing
    if (i < n) {
      const float distance = bovw_seed_distance(sample + (size_t)i * BOVW_D, word);
      value = first_pass ? distance : (distance < nearest[i] ? distance : nearest[i]);
      nearest[i] = value;
    }
    sum += convert_long_rte((double)value * weight_scale);
  }
  partial[t] = sum;
  for (int s = BOVW_SEED_GROUP / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < s) partial[t] += partial[t + s];
  }
  if (t == 0) block_sums[get_group_id(0)] = partial[0];
}
