// Hamming-embedding signatures on the device (wordSignature in src/retrieval/image_words.cpp): bit j
// of a descriptor's signature says whether its dimension j * d / bits lies above the same dimension
// of its word's centroid (bits = min(d, 64)). The fused route computes them where the descriptors
// are, so that a batch reads back 8 bytes per keypoint instead of its whole descriptor row.
// One work-item per descriptor; rows and centroids row-major, d floats each.
kernel void word_signatures(global const float* restrict rows, global const int* restrict words,
                            global const float* restrict centroids, const int n, const int d,
                            global ulong* restrict signatures) {
  const int i = get_global_id(0);
  if (i >= n) return;
  global const float* row = rows + (size_t)i * d;
  global const float* centroid = centroids + (size_t)words[i] * d;
  const int bits = min(d, 64);
  ulong signature = 0;
  for (int j = 0; j < bits; ++j) {
    const int dimension = (int)((long)j * d / bits);
    signature |= (ulong)(row[dimension] > centroid[dimension]) << j;
  }
  signatures[i] = signature;
}
