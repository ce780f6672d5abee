// GPU3 (Float4): the coalesced kernel computing four features per step with float4 arithmetic.
// Descriptors are transposed (D x N), so the four features of one work-item are four coalesced
// scalar loads; the centroid's four features are one vload4. The chapter's listing stepped k by 1
// while reading k..k+3; here k steps by 4 and a scalar tail handles widths not divisible by 4.
#include "common.h"

kernel void histogram_float4(BOVW_HISTOGRAM_PARAMS(global)) {
  const int i = get_global_id(0);
  if (i >= n_descriptors) return;  // no barriers follow

  bovw_nearest nearest = bovw_nearest_begin(i, first_chunk, best_dist, best_word);
  for (int j = 0; j < chunk_words; ++j) {
    global const float* c = centroids + j * BOVW_D;
    float4 acc = (float4)(0.0f);
    int k = 0;
    for (; k + 4 <= BOVW_D; k += 4) {
      const float4 x = (float4)(descriptors[(k + 0) * n_descriptors + i],
                                descriptors[(k + 1) * n_descriptors + i],
                                descriptors[(k + 2) * n_descriptors + i],
                                descriptors[(k + 3) * n_descriptors + i]);
      const float4 t = x - vload4(0, c + k);
      acc += t * t;
    }
    float dist = (acc.x + acc.y) + (acc.z + acc.w);
    for (; k < BOVW_D; ++k) {
      const float t = descriptors[k * n_descriptors + i] - c[k];
      dist += t * t;
    }
    bovw_nearest_update(&nearest, dist, word_begin + j);
  }
  bovw_nearest_finish(nearest, i, last_chunk, best_dist, best_word, offsets, n_images, n_words,
                      histograms);
}
