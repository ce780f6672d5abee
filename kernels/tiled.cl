// Tiled: bovw's own kernel. The nearest word is argmin_j e_j with e_j = ||c_j||^2 - 2 x.c_j (the
// ||x||^2 term does not change the argmin), and the x.c_j for a block of descriptors against a
// block of words is a small matrix product: it is computed like a register-tiled GEMM, and the
// argmin and the histogram are fused into the same kernel, so no N x K matrix is ever written.
//
// A work-group owns BM = WGR x TM descriptors and walks over all K words in blocks of
// BN = WGC x TN. Per block, the D features are consumed in chunks of BK: the descriptors' chunk
// (BM x BK, read row-major from global memory) and the words' chunk (BK x BN, from the transposed
// words) are staged in local memory, and each work-item accumulates a TM x TN register block of
// dot products, so every value it reads from local memory feeds TM or TN multiply-adds. After each
// word block a work-item folds its TM x TN scores into the two smallest e of each of its rows.
//
// Exactness: e differs from the golden distance (a plain float sum of (x_k - c_k)^2 in feature
// order, the CPU reference) by rounding. The kernel keeps each descriptor's smallest and
// second-smallest e; when they are further apart than a bound on the rounding of both forms, the
// smallest is the golden answer. Otherwise the descriptor is flagged, and recheck_flagged scans it
// again with the golden direct sum, in the same order and without FMA: results equal the CPU's.
// docs/KERNELS.md derives the bound.
#include "common.h"

#ifndef BOVW_TM
#define BOVW_TM 8  // descriptors per work-item (a multiple of 4)
#endif
#ifndef BOVW_TN
#define BOVW_TN 8  // words per work-item (a multiple of 4)
#endif
#ifndef BOVW_WGR
#define BOVW_WGR 16  // work-items along the descriptors
#endif
#ifndef BOVW_WGC
#define BOVW_WGC 16  // work-items along the words
#endif
#ifndef BOVW_BK
#define BOVW_BK 16  // features per local-memory chunk (a multiple of 4)
#endif
#ifndef BOVW_MARGIN_SCALE
#define BOVW_MARGIN_SCALE 1.25f  // slack over the rounding bound; 0 re-checks exact ties only (tests)
#endif

#define BOVW_BM (BOVW_WGR * BOVW_TM)
#define BOVW_BN (BOVW_WGC * BOVW_TN)
#define BOVW_THREADS (BOVW_WGR * BOVW_WGC)
#define BOVW_DPAD (((BOVW_D + BOVW_BK - 1) / BOVW_BK) * BOVW_BK)  // rows of the transposed words
#define BOVW_LDA (BOVW_BM + 4)  // local row pitch of the descriptor chunk: fewer bank conflicts
                                // on the transposing store, still 16-byte aligned for vload4
#define BOVW_A_FLOATS (BOVW_BK * BOVW_LDA)
#define BOVW_B_FLOATS (BOVW_BK * BOVW_BN)
#define BOVW_TILE_FLOATS (2 * (BOVW_A_FLOATS + BOVW_B_FLOATS))  // two stages: see the main loop
#define BOVW_REDUCE_FLOATS (3 * BOVW_BM * BOVW_WGC)
#define BOVW_LOCAL_FLOATS \
  (BOVW_TILE_FLOATS > BOVW_REDUCE_FLOATS ? BOVW_TILE_FLOATS : BOVW_REDUCE_FLOATS)

// Loads per work-item and chunk: descriptors as float4 when rows are 16-byte multiples.
#define BOVW_VEC_A (BOVW_D % 4 == 0)
#define BOVW_A_ITEMS (BOVW_VEC_A ? BOVW_BM * BOVW_BK / 4 : BOVW_BM * BOVW_BK)
#define BOVW_A_LOADS ((BOVW_A_ITEMS + BOVW_THREADS - 1) / BOVW_THREADS)
#define BOVW_B_ITEMS (BOVW_BK * BOVW_BN / 4)
#define BOVW_B_LOADS ((BOVW_B_ITEMS + BOVW_THREADS - 1) / BOVW_THREADS)

// Register-block row i of work-item (ty) is local row ROW(i): groups of 4 consecutive rows,
// 4 * WGR apart, so that a float4 read of local memory serves 4 rows and neighbouring work-items
// read neighbouring float4s (no bank conflicts). Same for the words with tx.
#define BOVW_ROW(i, ty) (((i) / 4) * 4 * BOVW_WGR + (ty) * 4 + ((i) % 4))
#define BOVW_COL(j, tx) (((j) / 4) * 4 * BOVW_WGC + (tx) * 4 + ((j) % 4))

// Feature chunk `chunk` of descriptor rows [row0, row0 + BM) into registers (zeros past N or D).
inline void bovw_fetch_descriptors(float4 a[BOVW_A_LOADS], global const float* x, int n, int row0,
                                   int chunk, int tid) {
#pragma unroll
  for (int l = 0; l < BOVW_A_LOADS; ++l) {
    const int item = tid + l * BOVW_THREADS;
#if BOVW_VEC_A
    const int r = item / (BOVW_BK / 4);
    const int k = chunk * BOVW_BK + (item % (BOVW_BK / 4)) * 4;
    const bool in = item < BOVW_A_ITEMS && row0 + r < n && k < BOVW_D;
    // Rows are 16-byte multiples and buffers are aligned: the cast lets the compiler issue one
    // 16-byte load (vload4 promises only 4-byte alignment).
    a[l] = in ? *(global const float4*)(x + (size_t)(row0 + r) * BOVW_D + k) : (float4)(0.0f);
#else
    const int r = item / BOVW_BK;
    const int k = chunk * BOVW_BK + item % BOVW_BK;
    const bool in = item < BOVW_A_ITEMS && row0 + r < n && k < BOVW_D;
    a[l] = (float4)(in ? x[(size_t)(row0 + r) * BOVW_D + k] : 0.0f, 0.0f, 0.0f, 0.0f);
#endif
  }
}

// ... and stores them transposed, As[k][row], so the compute loop reads rows as float4.
inline void bovw_store_descriptors(local float* as, const float4 a[BOVW_A_LOADS], int tid) {
#pragma unroll
  for (int l = 0; l < BOVW_A_LOADS; ++l) {
    const int item = tid + l * BOVW_THREADS;
    if (item >= BOVW_A_ITEMS) break;
#if BOVW_VEC_A
    const int r = item / (BOVW_BK / 4);
    const int k = (item % (BOVW_BK / 4)) * 4;
    as[(k + 0) * BOVW_LDA + r] = a[l].x;
    as[(k + 1) * BOVW_LDA + r] = a[l].y;
    as[(k + 2) * BOVW_LDA + r] = a[l].z;
    as[(k + 3) * BOVW_LDA + r] = a[l].w;
#else
    as[(item % BOVW_BK) * BOVW_LDA + item / BOVW_BK] = a[l].x;
#endif
  }
}

// Feature chunk `chunk` of words [word0, word0 + BN) from the transposed words (DPAD x k_padded,
// zero rows past D, padding words zero): always whole float4s.
inline void bovw_fetch_words(float4 b[BOVW_B_LOADS], global const float* words_t, int k_padded,
                             int word0, int chunk, int tid) {
#pragma unroll
  for (int l = 0; l < BOVW_B_LOADS; ++l) {
    const int item = tid + l * BOVW_THREADS;
    const int k = chunk * BOVW_BK + item / (BOVW_BN / 4);
    const int j = (item % (BOVW_BN / 4)) * 4;
    b[l] = item < BOVW_B_ITEMS ? *(global const float4*)(words_t + (size_t)k * k_padded + word0 + j)
                               : (float4)(0.0f);
  }
}

inline void bovw_store_words(local float* bs, const float4 b[BOVW_B_LOADS], int tid) {
#pragma unroll
  for (int l = 0; l < BOVW_B_LOADS; ++l) {
    const int item = tid + l * BOVW_THREADS;
    if (item >= BOVW_B_ITEMS) break;
    *(local float4*)(bs + (item / (BOVW_BN / 4)) * BOVW_BN + (item % (BOVW_BN / 4)) * 4) = b[l];
  }
}

// Arguments: descriptors (n x D rows of this batch; row_base is the batch's first row in the image
// offsets), the words transposed and padded (words_t), their squared norms (+inf for padding),
// max_norm = max_j ||c_j||, the image offsets, and the outputs: best_word per row, histograms
// (n_images x n_words), and the list of flagged rows with its counter (zeroed by the host).
kernel __attribute__((reqd_work_group_size(BOVW_THREADS, 1, 1)))
void histogram_tiled(global const float* restrict descriptors, const int n, const int row_base,
                     global const float* restrict words_t, global const float* restrict norms,
                     const int n_words, const int k_padded, const float max_norm,
                     global const int* restrict offsets, const int n_images,
                     global int* restrict best_word, global int* restrict histograms,
                     global int* restrict flagged, global int* restrict flag_count) {
  local float4 smem4[(BOVW_LOCAL_FLOATS + 3) / 4];  // float4 elements: 16-byte aligned
  local float* smem = (local float*)smem4;

  const int tid = get_local_id(0);
  const int tx = tid % BOVW_WGC;
  const int ty = tid / BOVW_WGC;
  const int row0 = get_group_id(0) * BOVW_BM;

  // acc holds s = x.c - ||c||^2 / 2 = -e / 2: each word block's sums start from -||c||^2 / 2, so the
  // epilogue compares them as they are (the largest s is the smallest e) instead of computing e.
  float acc[BOVW_TM][BOVW_TN];
  float best1[BOVW_TM], best2[BOVW_TM];  // the largest and second-largest s of each row
  int best_j[BOVW_TM];
#pragma unroll
  for (int i = 0; i < BOVW_TM; ++i) {
    best1[i] = -INFINITY;
    best2[i] = -INFINITY;
    best_j[i] = 0;
  }

  // One flat loop over (word block, feature chunk), double-buffered: while the work-items multiply
  // the chunk in one stage of local memory, the next chunk goes from global memory through
  // registers into the other stage, so one barrier per chunk suffices.
  const int chunks = BOVW_DPAD / BOVW_BK;
  const int steps = (k_padded / BOVW_BN) * chunks;
  float4 a_next[BOVW_A_LOADS], b_next[BOVW_B_LOADS];
  bovw_fetch_descriptors(a_next, descriptors, n, row0, 0, tid);
  bovw_fetch_words(b_next, words_t, k_padded, 0, 0, tid);
  bovw_store_descriptors(smem, a_next, tid);
  bovw_store_words(smem + BOVW_A_FLOATS, b_next, tid);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = 0; step < steps; ++step) {
    const int chunk = step % chunks;
    const int word0 = (step / chunks) * BOVW_BN;
    local const float* as = smem + (step % 2) * (BOVW_A_FLOATS + BOVW_B_FLOATS);
    local const float* bs = as + BOVW_A_FLOATS;
    const bool more = step + 1 < steps;
    if (more) {
      const int next_chunk = (step + 1) % chunks;
      bovw_fetch_descriptors(a_next, descriptors, n, row0, next_chunk, tid);
      bovw_fetch_words(b_next, words_t, k_padded, ((step + 1) / chunks) * BOVW_BN, next_chunk, tid);
    }

    if (chunk == 0) {  // a new word block: its sums start from -||c||^2 / 2 (-inf for padding words)
#pragma unroll
      for (int j = 0; j < BOVW_TN; ++j) {
        const float start = -0.5f * norms[word0 + BOVW_COL(j, tx)];
#pragma unroll
        for (int i = 0; i < BOVW_TM; ++i) acc[i][j] = start;
      }
    }

#pragma unroll
    for (int k = 0; k < BOVW_BK; ++k) {
      float a[BOVW_TM], b[BOVW_TN];
#pragma unroll
      for (int g = 0; g < BOVW_TM / 4; ++g) {
        const float4 v = *(local const float4*)(as + k * BOVW_LDA + BOVW_ROW(4 * g, ty));
        a[4 * g + 0] = v.x;
        a[4 * g + 1] = v.y;
        a[4 * g + 2] = v.z;
        a[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < BOVW_TN / 4; ++g) {
        const float4 v = *(local const float4*)(bs + k * BOVW_BN + BOVW_COL(4 * g, tx));
        b[4 * g + 0] = v.x;
        b[4 * g + 1] = v.y;
        b[4 * g + 2] = v.z;
        b[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < BOVW_TM; ++i)
#pragma unroll
        for (int j = 0; j < BOVW_TN; ++j) acc[i][j] += a[i] * b[j];
    }

    if (chunk == chunks - 1) {  // the word block is complete: fold its scores into the two maxima
#pragma unroll
      for (int j = 0; j < BOVW_TN; ++j) {
        const int word = word0 + BOVW_COL(j, tx);
#pragma unroll
        for (int i = 0; i < BOVW_TM; ++i) {
          const float score = acc[i][j];
          best2[i] = fmax(best2[i], fmin(best1[i], score));
          if (score > best1[i]) {
            best1[i] = score;
            best_j[i] = word;
          }
        }
      }
    }

    if (more) {  // the other stage was last read before the previous barrier
      local float* next = smem + ((step + 1) % 2) * (BOVW_A_FLOATS + BOVW_B_FLOATS);
      bovw_store_descriptors(next, a_next, tid);
      bovw_store_words(next + BOVW_A_FLOATS, b_next, tid);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // Combine the WGC work-items that share each row, in local memory (reusing the tiles; the loop
  // ended on a barrier).
  local float* r1 = smem;
  local float* r2 = smem + BOVW_BM * BOVW_WGC;
  local int* rj = (local int*)(smem + 2 * BOVW_BM * BOVW_WGC);
#pragma unroll
  for (int i = 0; i < BOVW_TM; ++i) {  // as e = -2 s (exact), the two smallest e
    const int slot = BOVW_ROW(i, ty) * BOVW_WGC + tx;
    r1[slot] = -2.0f * best1[i];
    r2[slot] = -2.0f * best2[i];
    rj[slot] = best_j[i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int r = tid; r < BOVW_BM; r += BOVW_THREADS) {
    const int row = row0 + r;
    if (row >= n) break;
    float b1 = INFINITY, b2 = INFINITY;
    int word = 0;
    for (int c = 0; c < BOVW_WGC; ++c) {
      const float p1 = r1[r * BOVW_WGC + c];
      b2 = fmin(fmin(b2, r2[r * BOVW_WGC + c]), fmax(b1, p1));
      if (p1 < b1) {
        b1 = p1;
        word = rj[r * BOVW_WGC + c];
      }
    }
    // ||x||^2 from the row in global memory (L2-resident: the group just read it).
    global const float* xr = descriptors + (size_t)row * BOVW_D;
    float xx = 0.0f;
#if BOVW_VEC_A
    for (int q = 0; q < BOVW_D / 4; ++q) {
      const float4 v = ((global const float4*)xr)[q];
      xx += dot(v, v);
    }
#else
    for (int k = 0; k < BOVW_D; ++k) xx += xr[k] * xr[k];
#endif
    // The margin (docs/KERNELS.md derives it). With g = gamma_{D+2} ~ (D+2)u: e_j is within
    // g ||c_j|| (||c_j|| + 2||x||) of the exact ||c_j||^2 - 2x.c_j, and the golden sum within
    // g d_j of the exact distance d_j. If the golden nearest word j* is not `word`, then
    // e_{j*} - e_word <= 2g d_word + g R (R + 2||x||) + g nb (nb + 2||x||), with nb = ||c_word||,
    // d_word <= db and ||c_{j*}|| <= R = min(max ||c||, ||x|| + sqrt(db)). BOVW_MARGIN_SCALE
    // covers the rounding of this computation itself. s_max (with the largest word) guards
    // overflow: while it is finite and far below FLT_MAX, no e is inf or NaN.
    const float g = (float)(BOVW_D + 2) * 0x1.0p-24f;
    const float nx = sqrt(xx);
    const float nb = sqrt(norms[word]);
    const float db = fmax(xx + b1 + g * nb * (nb + 2.0f * nx), 0.0f);
    const float r = fmin(max_norm, nx + sqrt(db) * (1.0f + 2.0f * g));
    const float margin = BOVW_MARGIN_SCALE * g * (2.0f * db + r * (r + 2.0f * nx) + nb * (nb + 2.0f * nx));
    const float s_max = (2.0f * nx + max_norm) * (2.0f * nx + max_norm);
    if (s_max < 1e30f && b2 - b1 > margin) {
      best_word[row] = word;
      atomic_inc(&histograms[bovw_image_of(offsets, n_images, row_base + row) * n_words + word]);
    } else {
      flagged[atomic_inc(flag_count)] = row;
    }
  }
}

// The second pass: each work-group takes BOVW_RECHECK_ROWS flagged rows at a time (groups loop while
// rows remain, so the host launches a fixed grid without reading the count back). The work-items split
// the words; each word value read from the transposed words (neighbouring work-items, neighbouring
// words: coalesced) serves all the group's rows, and each work-item sums four words side by side, so
// four loads are in flight. Every distance is the golden one: (x_k - c_k)^2 summed in feature order in
// float, never fused, exactly as the CPU reference computes it. Each work-item keeps its nearest word
// per row, and a tree in local memory keeps the smaller distance or, on equal distances, the lower
// word: the CPU reference's tie rule.
//
// A group's walk over K is the pass's time when few rows are flagged (a few hundred groups for a
// GPU of thousands of work-items' room), so with `splits` > 1 each group takes one of `splits`
// ranges of the words, and files each row's nearest word there as one 64-bit key, the distance's
// bits above the word, with atom_min into keys (BOVW_RECHECK_SPLITS: the device has 64-bit atomics):
// the smaller distance wins and, on equal distances, the lower word, the same rule. Distances are
// never negative, so their bits order as the floats do. recheck_finish then writes the results.
#ifndef BOVW_RECHECK_ROWS
#define BOVW_RECHECK_ROWS 4
#endif
#ifndef BOVW_RECHECK_SPLITS
#define BOVW_RECHECK_SPLITS 0
#endif
#if BOVW_RECHECK_SPLITS
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif

// The nearest word and the histogram count of one flagged row. Every distance +inf (overflow, or a
// range of padding): the CPU keeps word 0, its starting point.
inline void bovw_recheck_result(int row, int nearest, const int row_base, global const int* restrict offsets,
                                const int n_images, const int n_words, global int* restrict best_word,
                                global int* restrict histograms) {
  if (nearest == INT_MAX) nearest = 0;
  best_word[row] = nearest;
  atomic_inc(&histograms[bovw_image_of(offsets, n_images, row_base + row) * n_words + nearest]);
}

kernel void recheck_flagged(global const float* restrict descriptors, const int row_base,
                            global const float* restrict words_t, const int n_words, const int k_padded,
                            global const int* restrict offsets, const int n_images,
                            global int* restrict best_word, global int* restrict histograms,
                            global const int* restrict flagged, global const int* restrict flag_count,
                            global ulong* restrict keys, const int splits,
                            local float* x, local float* dist, local int* word) {
#pragma OPENCL FP_CONTRACT OFF
  const int lid = get_local_id(0);
  const int size = get_local_size(0);
  const int count = *flag_count;
  // Words per range: whole steps of 4 x size words, so that every range walks as the whole did.
  const int step = 4 * size;
  const int span = ((n_words + splits - 1) / splits + step - 1) / step * step;
  const int tasks = (count + BOVW_RECHECK_ROWS - 1) / BOVW_RECHECK_ROWS * splits;
  for (int task = get_group_id(0); task < tasks; task += get_num_groups(0)) {
    const int first = task / splits * BOVW_RECHECK_ROWS;
    const int from = task % splits * span, to = min(from + span, n_words);
    const int rows = min(BOVW_RECHECK_ROWS, count - first);
    for (int e = lid; e < BOVW_RECHECK_ROWS * BOVW_D; e += size) {  // missing rows: zeros, ignored
      const int r = e / BOVW_D;
      x[e] = r < rows ? descriptors[(size_t)flagged[first + r] * BOVW_D + e % BOVW_D] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float best[BOVW_RECHECK_ROWS];
    int best_j[BOVW_RECHECK_ROWS];
#pragma unroll
    for (int r = 0; r < BOVW_RECHECK_ROWS; ++r) {
      best[r] = INFINITY;
      best_j[r] = INT_MAX;  // "none yet": loses every comparison below
    }
    for (int j = from + lid; j < to; j += step) {  // this item's words, in increasing order
      // Words past the padding are clamped to a valid address; words >= to are ignored.
      const int j1 = min(j + size, k_padded - 1), j2 = min(j + 2 * size, k_padded - 1),
                j3 = min(j + 3 * size, k_padded - 1);
      float4 sum[BOVW_RECHECK_ROWS];
#pragma unroll
      for (int r = 0; r < BOVW_RECHECK_ROWS; ++r) sum[r] = (float4)(0.0f);
      // Four steps unrolled: left to NVIDIA's compiler, or not unrolled, the walk was a quarter slower.
#pragma unroll 4
      for (int k = 0; k < BOVW_D; ++k) {
        global const float* row = words_t + (size_t)k * k_padded;
        const float4 c = (float4)(row[j], row[j1], row[j2], row[j3]);
#pragma unroll
        for (int r = 0; r < BOVW_RECHECK_ROWS; ++r) {
          const float4 t = (float4)(x[r * BOVW_D + k]) - c;
          sum[r] += t * t;
        }
      }
#pragma unroll
      for (int r = 0; r < BOVW_RECHECK_ROWS; ++r) {
        const float d[4] = {sum[r].x, sum[r].y, sum[r].z, sum[r].w};
#pragma unroll
        for (int m = 0; m < 4; ++m)
          if (j + m * size < to && d[m] < best[r]) {
            best[r] = d[m];
            best_j[r] = j + m * size;
          }
      }
    }
#pragma unroll
    for (int r = 0; r < BOVW_RECHECK_ROWS; ++r) {
      dist[r * size + lid] = best[r];
      word[r * size + lid] = best_j[r];
    }
    for (int stride = 1; stride < size; stride *= 2) {
      barrier(CLK_LOCAL_MEM_FENCE);
      const int other = lid + stride;
      if (lid % (2 * stride) == 0 && other < size) {
#pragma unroll
        for (int r = 0; r < BOVW_RECHECK_ROWS; ++r) {
          const float d = dist[r * size + other];
          const int j = word[r * size + other];
          if (d < dist[r * size + lid] || (d == dist[r * size + lid] && j < word[r * size + lid])) {
            dist[r * size + lid] = d;
            word[r * size + lid] = j;
          }
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < rows) {
      const int nearest = word[lid * size];
#if BOVW_RECHECK_SPLITS
      if (splits > 1) {
        atom_min(&keys[first + lid], (ulong)as_uint(dist[lid * size]) << 32 | (uint)nearest);
      } else
#endif
        bovw_recheck_result(flagged[first + lid], nearest, row_base, offsets, n_images, n_words, best_word,
                            histograms);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // x, dist and word are reused by the next rows
  }
}

// After recheck_flagged with splits > 1: each flagged row's key holds its nearest word.
kernel void recheck_finish(global const ulong* restrict keys, global const int* restrict flagged,
                           global const int* restrict flag_count, const int row_base,
                           global const int* restrict offsets, const int n_images, const int n_words,
                           global int* restrict best_word, global int* restrict histograms) {
  const int count = *flag_count;
  for (int i = get_global_id(0); i < count; i += get_global_size(0))
    bovw_recheck_result(flagged[i], (int)(keys[i] & 0xffffffffu), row_base, offsets, n_images, n_words, best_word,
                        histograms);
}
