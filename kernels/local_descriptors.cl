// GPU4 (LocalDescriptors) and GPU5 (ConstantCentroids): the work-group first copies its
// descriptors (transposed, so the copy is coalesced) into local memory, then every distance reads
// the local copy. GPU5 is the same kernel with the centroids in constant memory, where a word
// read by every work-item at once is one broadcast; the host splits vocabularies larger than the
// constant buffer into chunks. Local memory holds BOVW_WG x BOVW_D floats, laid out [k][lid] so
// that neighbouring work-items hit neighbouring banks.
#include "common.h"

#ifndef BOVW_CONSTANT_CENTROIDS
#define BOVW_CONSTANT_CENTROIDS 0  // 1: GPU5, centroids in __constant memory
#endif

#if BOVW_CONSTANT_CENTROIDS
#define BOVW_CENTROID_SPACE constant
#else
#define BOVW_CENTROID_SPACE global
#endif

kernel __attribute__((reqd_work_group_size(BOVW_WG, 1, 1)))
void histogram_local(BOVW_HISTOGRAM_PARAMS(BOVW_CENTROID_SPACE)) {
  local float x[BOVW_D * BOVW_WG];
  const int lid = get_local_id(0);
  const int i = get_global_id(0);
  // Work-items past N load zeros rather than return: every work-item must reach the barrier.
  const bool active = i < n_descriptors;
  for (int k = 0; k < BOVW_D; ++k) {
    x[k * BOVW_WG + lid] = active ? descriptors[k * n_descriptors + i] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!active) return;

  bovw_nearest nearest = bovw_nearest_begin(i, first_chunk, best_dist, best_word);
  for (int j = 0; j < chunk_words; ++j) {
    BOVW_CENTROID_SPACE const float* c = centroids + j * BOVW_D;
    float dist = 0.0f;
    for (int k = 0; k < BOVW_D; ++k) {
      const float t = x[k * BOVW_WG + lid] - c[k];
      dist += t * t;
    }
    bovw_nearest_update(&nearest, dist, word_begin + j);
  }
  bovw_nearest_finish(nearest, i, last_chunk, best_dist, best_word, offsets, n_images, row_base, n_words,
                      histograms);
}
