// k-means++ seeding on the device (src/opencl/opencl_sample_passes.cpp): one launch per chosen word,
// over the row-major sample resident on the device. It must give the CPU's numbers bit for bit
// (src/vocabulary/sample_passes.hpp): each distance is seedDistance() (eight partial float sums over
// the features, lane l taking f = l, l + 8, ..., folded 4-2-1, never fused), each row's draw weight is
// seedWeight() (the distance times a power of two, rounded to a long, ties to even), and each
// work-group sums the weights of its block of BOVW_SEED_GROUP x BOVW_SEED_ROWS rows: integer sums,
// exact in any order.
//
// The eight partial sums are eight work-items: work-item l of a row's eight reads features l, l + 8,
// ..., so eight neighbours read 32 neighbouring bytes of one row and a warp reads whole sectors (one
// work-item a row read 16 bytes of 32 different rows at a time). The row's first work-item folds the
// eight sums from local memory.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#ifndef BOVW_SEED_GROUP
#define BOVW_SEED_GROUP 256
#endif
#ifndef BOVW_SEED_ROWS
#define BOVW_SEED_ROWS 4
#endif

#define BOVW_SEED_LANES 8  // kSeedLanes: the partial sums of one distance, one work-item each
#define BOVW_SEED_SLOTS (BOVW_SEED_GROUP / BOVW_SEED_LANES)  // rows a group works on side by side
#define BOVW_SEED_PASS_ROWS 4  // rows each work-item adds into per pass: loads in flight between barriers

// nearest[i] = min(nearest[i], distance of row i to `chosen`) (set on the first pass), and
// block_sums[g] = the sum of the weights of nearest over group g's block.
kernel __attribute__((reqd_work_group_size(BOVW_SEED_GROUP, 1, 1)))
void seed_distances(global const float* restrict sample, const int n, global const float* restrict chosen,
                    const int first_pass, global float* restrict nearest, global long* restrict block_sums,
                    const double weight_scale) {
  local float word[BOVW_D];
  local float lanes[BOVW_SEED_PASS_ROWS][BOVW_SEED_GROUP];
  local long partial[BOVW_SEED_GROUP];
  const int t = get_local_id(0), lane = t % BOVW_SEED_LANES, slot = t / BOVW_SEED_LANES;
  for (int f = t; f < BOVW_D; f += BOVW_SEED_GROUP) word[f] = chosen[f];
  barrier(CLK_LOCAL_MEM_FENCE);

  const int block_first = get_group_id(0) * (BOVW_SEED_GROUP * BOVW_SEED_ROWS);
  long sum = 0;
  for (int pass = 0; pass < BOVW_SEED_GROUP * BOVW_SEED_ROWS; pass += BOVW_SEED_SLOTS * BOVW_SEED_PASS_ROWS) {
#pragma unroll
    for (int r = 0; r < BOVW_SEED_PASS_ROWS; ++r) {
      const int i = block_first + pass + r * BOVW_SEED_SLOTS + slot;
      float p = 0.0f;
      if (i < n) {
        global const float* x = sample + (size_t)i * BOVW_D;
#pragma unroll
        for (int f = lane; f < BOVW_D; f += BOVW_SEED_LANES) {
          const float d = x[f] - word[f];
          p += d * d;
        }
      }
      lanes[r][t] = p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane == 0) {
#pragma unroll
      for (int r = 0; r < BOVW_SEED_PASS_ROWS; ++r) {
        const int i = block_first + pass + r * BOVW_SEED_SLOTS + slot;
        if (i >= n) continue;  // rows past the end add nothing
        local const float* q = &lanes[r][t];
        const float distance = ((q[0] + q[4]) + (q[2] + q[6])) + ((q[1] + q[5]) + (q[3] + q[7]));
        const float value = first_pass ? distance : (distance < nearest[i] ? distance : nearest[i]);
        nearest[i] = value;
        sum += convert_long_rte((double)value * weight_scale);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // lanes is refilled by the next pass
  }
  partial[t] = sum;
  for (int s = BOVW_SEED_GROUP / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < s) partial[t] += partial[t + s];
  }
  if (t == 0) block_sums[get_group_id(0)] = partial[0];
}
