// GPU3 (Float4): the coalesced kernel computing four features per step with float4 arithmetic.
// Descriptors are transposed (D x N), so the four features of one work-item are four coalesced
// scalar loads; the centroid's four features are one vload4. The chapter's listing stepped k by 1
// while reading k..k+3; here k steps by 4 and a scalar tail handles widths not divisible by 4.
// As in Coalesced, the descriptor is read once into registers (as float4s) before the word loop.
#include "common.h"

#define BOVW_D4 (BOVW_D / 4)

kernel void histogram_float4(BOVW_HISTOGRAM_PARAMS(global)) {
  const int i = get_global_id(0);
  if (i >= n_descriptors) return;  // no barriers follow

  float4 x[BOVW_D4 > 0 ? BOVW_D4 : 1];
  for (int q = 0; q < BOVW_D4; ++q)
    x[q] = (float4)(descriptors[(4 * q + 0) * n_descriptors + i], descriptors[(4 * q + 1) * n_descriptors + i],
                    descriptors[(4 * q + 2) * n_descriptors + i], descriptors[(4 * q + 3) * n_descriptors + i]);
  float tail[BOVW_D % 4 > 0 ? BOVW_D % 4 : 1];
  for (int k = 4 * BOVW_D4; k < BOVW_D; ++k) tail[k - 4 * BOVW_D4] = descriptors[k * n_descriptors + i];

  bovw_nearest nearest = bovw_nearest_begin(i, first_chunk, best_dist, best_word);
  for (int j = 0; j < chunk_words; ++j) {
    global const float* c = centroids + j * BOVW_D;
    float4 acc = (float4)(0.0f);
    for (int q = 0; q < BOVW_D4; ++q) {
      const float4 t = x[q] - vload4(q, c);
      acc += t * t;
    }
    float dist = (acc.x + acc.y) + (acc.z + acc.w);
    for (int k = 4 * BOVW_D4; k < BOVW_D; ++k) {
      const float t = tail[k - 4 * BOVW_D4] - c[k];
      dist += t * t;
    }
    bovw_nearest_update(&nearest, dist, word_begin + j);
  }
  bovw_nearest_finish(nearest, i, last_chunk, best_dist, best_word, offsets, n_images, row_base, n_words,
                      histograms);
}
