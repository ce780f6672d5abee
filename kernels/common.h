// Shared by every histogram kernel (the tiled one uses the image lookup only): compile-time sizes, the common parameter list, the running
// minimum that lets a vocabulary be scanned in chunks, and the histogram increment.
// OpenCL C 1.2 only (NVIDIA and PoCL report 1.2): atomic_inc, no C11 atomics.

#ifndef BOVW_D
#define BOVW_D 64  // descriptor width; the host compiles each kernel for the actual width
#endif
#ifndef BOVW_WG
#define BOVW_WG 64  // work-items per work-group; the host launches with exactly this size
#endif

// Every chapter kernel takes these arguments, in this order (the host sets them in one place).
// Descriptors are row-major (N x D) or transposed (D x N) depending on the variant. The words
// [word_begin, word_begin + chunk_words) of the K = n_words word vocabulary are in `centroids`.
// best_dist/best_word carry the running minimum between chunks; best_word ends as the assignment.
// Row i of this batch is row row_base + i of the image offsets.
#define BOVW_HISTOGRAM_PARAMS(CENTROID_SPACE)                                        \
  global const float* restrict descriptors, CENTROID_SPACE const float* restrict centroids, \
      const int n_descriptors, const int word_begin, const int chunk_words, const int n_words, \
      const int first_chunk, const int last_chunk, global float* restrict best_dist,        \
      global int* restrict best_word, global const int* restrict offsets, const int n_images, \
      const int row_base, global int* restrict histograms

typedef struct {
  float dist;
  int word;
} bovw_nearest;

// Start of a scan: fresh for the first chunk, else the minimum the previous chunks found.
inline bovw_nearest bovw_nearest_begin(int i, int first_chunk, global const float* best_dist,
                                       global const int* best_word) {
  bovw_nearest n;
  n.dist = first_chunk ? FLT_MAX : best_dist[i];
  n.word = first_chunk ? 0 : best_word[i];
  return n;
}

// The one tie rule of bovw: words are scanned in order and replaced only on a strictly smaller
// distance, so equal distances go to the lower word index.
inline void bovw_nearest_update(bovw_nearest* n, float dist, int word) {
  if (dist < n->dist) {
    n->dist = dist;
    n->word = word;
  }
}

// Image that owns descriptor i: the last image whose first row is <= i (empty images own nothing).
inline int bovw_image_of(global const int* offsets, int n_images, int i) {
  int lo = 0;
  int hi = n_images - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= i) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// End of a scan: keep the running minimum for the next chunk, or record the assignment and count it.
inline void bovw_nearest_finish(bovw_nearest n, int i, int last_chunk, global float* best_dist,
                                global int* best_word, global const int* offsets, int n_images,
                                int row_base, int n_words, global int* histograms) {
  best_word[i] = n.word;
  if (!last_chunk) {
    best_dist[i] = n.dist;
    return;
  }
  const int image = bovw_image_of(offsets, n_images, row_base + i);
  atomic_inc(&histograms[image * n_words + n.word]);
}
