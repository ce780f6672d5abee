// GPU1 (Baseline) and GPU2 (Coalesced): one work-item per descriptor, scalar distance loop.
// The difference is the descriptor layout, chosen at compile time:
//   Baseline  (BOVW_TRANSPOSED 0): row-major, descriptors[i*D + k]; neighbouring work-items read
//             addresses D floats apart, so each load instruction touches many memory segments, and
//             the chapter's loop re-reads the descriptor for every word.
//   Coalesced (BOVW_TRANSPOSED 1): transposed on the device first, descriptors[k*N + i];
//             neighbouring work-items read neighbouring floats: one segment per warp per load.
//             Each work-item reads its descriptor once, into registers, before the word loop
//             (BOVW_PRIVATE_COPY): re-reading it for every word, as the chapter's listing does, made
//             GPU2 4x slower than this on an H100 (docs/KERNELS.md).
#include "common.h"

#ifndef BOVW_TRANSPOSED
#define BOVW_TRANSPOSED 0  // 1: descriptors are D x N (after transpose.cl)
#endif
#ifndef BOVW_PRIVATE_COPY
#define BOVW_PRIVATE_COPY 0  // 1: the descriptor is read once into registers
#endif

#if BOVW_TRANSPOSED
#define BOVW_DESCRIPTOR(i, k) descriptors[(k) * n_descriptors + (i)]
#else
#define BOVW_DESCRIPTOR(i, k) descriptors[(i) * BOVW_D + (k)]
#endif

kernel void histogram_scalar(BOVW_HISTOGRAM_PARAMS(global)) {
  const int i = get_global_id(0);
  if (i >= n_descriptors) return;  // the global size is rounded up; no barriers follow

#if BOVW_PRIVATE_COPY
  float x[BOVW_D];
  for (int k = 0; k < BOVW_D; ++k) x[k] = BOVW_DESCRIPTOR(i, k);
#define BOVW_X(k) x[k]
#else
#define BOVW_X(k) BOVW_DESCRIPTOR(i, k)
#endif

  bovw_nearest nearest = bovw_nearest_begin(i, first_chunk, best_dist, best_word);
  for (int j = 0; j < chunk_words; ++j) {
    global const float* c = centroids + j * BOVW_D;
    float dist = 0.0f;
    for (int k = 0; k < BOVW_D; ++k) {
      const float t = BOVW_X(k) - c[k];
      dist += t * t;
    }
    bovw_nearest_update(&nearest, dist, word_begin + j);
  }
  bovw_nearest_finish(nearest, i, last_chunk, best_dist, best_word, offsets, n_images, row_base, n_words,
                      histograms);
}
