// GPU1 (Baseline) and GPU2 (Coalesced): one work-item per descriptor, scalar distance loop.
// The only difference is the descriptor layout, chosen at compile time:
//   Baseline  (BOVW_TRANSPOSED 0): row-major, descriptors[i*D + k]; neighbouring work-items read
//             addresses D floats apart, so each load instruction touches many memory segments.
//   Coalesced (BOVW_TRANSPOSED 1): transposed on the device first, descriptors[k*N + i];
//             neighbouring work-items read neighbouring floats: one segment per warp per load.
#include "common.h"

#ifndef BOVW_TRANSPOSED
#define BOVW_TRANSPOSED 0  // 1: descriptors are D x N (after transpose.cl)
#endif

#if BOVW_TRANSPOSED
#define BOVW_DESCRIPTOR(i, k) descriptors[(k) * n_descriptors + (i)]
#else
#define BOVW_DESCRIPTOR(i, k) descriptors[(i) * BOVW_D + (k)]
#endif

kernel void histogram_scalar(BOVW_HISTOGRAM_PARAMS(global)) {
  const int i = get_global_id(0);
  if (i >= n_descriptors) return;  // the global size is rounded up; no barriers follow

  bovw_nearest nearest = bovw_nearest_begin(i, first_chunk, best_dist, best_word);
  for (int j = 0; j < chunk_words; ++j) {
    global const float* c = centroids + j * BOVW_D;
    float dist = 0.0f;
    for (int k = 0; k < BOVW_D; ++k) {
      const float t = BOVW_DESCRIPTOR(i, k) - c[k];
      dist += t * t;
    }
    bovw_nearest_update(&nearest, dist, word_begin + j);
  }
  bovw_nearest_finish(nearest, i, last_chunk, best_dist, best_word, offsets, n_images, n_words,
                      histograms);
}
