// Tiled on tensor cores: the tiled kernel's search (kernels/tiled.cl) with the dot products on
// NVIDIA's tensor cores through inline PTX, certified exact. Operands are TF32 (mma.sync.m16n8k8:
// tiled-tf32) or, with BOVW_F16, FP16 (mma.sync.m16n8k16: tiled-fp16): the same 11-bit
// significand, so the same certificate, at twice the rate and half the bytes, but a narrower range
// (the host keeps TF32 for vocabularies outside it; a row outside it goes to the exact re-check).
//
// Each warp (32 work-items) owns 16 x BOVW_MT descriptor rows, held in registers for the whole
// kernel as A fragments, and walks all words in n-tiles of 8, BOVW_NT at a time: the words come
// rounded and already in B-fragment order (one float2 per lane per k-step), so a warp reads
// each n-tile with coalesced 256-byte loads. With BOVW_STAGE > 0 (the default on NVIDIA GPUs) the
// work-group walks the words in chunks of BOVW_STAGE n-tiles, double buffered in local memory: while
// the warps compute on one chunk, the next is on its way (cp.async on NVIDIA GPUs: the copy holds no
// registers, and no step waits for its words from L2, as each step did when the warps read global
// memory). Every group reads all K words, so a group of few rows turns the words into most of the
// kernel's L2 traffic (1M rows in groups of 64 read 4 GB of TF32 words at K = 1,024, D = 64). The
// accumulators start at -||c||^2 / 2, so each ends as s = x.c - ||c||^2 / 2 = -e / 2.
//
// Each lane keeps, for each of its rows, the two largest s and a value that bounds all its other
// scores, folding a tile's two columns of a row as a pair: four min/max instructions a score. So
// that the words need no compare-and-select, the lane writes its own running index of the score
// into the score's low mantissa bits (the perturbation is part of the error bound) and the index
// rides along; the words go in blocks of 1,024, so that index needs 8 bits at most, and each
// block's two best are filed with their words decoded, its bound as a value. At the end each row
// is decided by the certificate (kernels/tensor_certificate.h) over what the four lanes that share
// it kept: when the runner-up is beyond the margin, the best word is golden. Otherwise, when every
// lane's bound is beyond it, each word within the margin is one of the lanes' two best, whose words
// are known, and their golden distances (the CPU's sum in feature order, no FMA) decide the row
// here. Otherwise a lane's bound is within the margin (three of its words, or two of one pair), and
// the row goes to the flagged list that tiled.cl's recheck_flagged scans exactly. docs/KERNELS.md
// derives the margin.
//
// Without BOVW_PTX_MMA (any device other than NVIDIA's) the mma is emulated with the same output
// layout, reading its operands from memory: slower, but the rest of the kernel runs as it does on
// the GPU, so the certificate's logic is tested wherever OpenCL runs (PoCL in CI).
#include "common.h"
#include "tensor_certificate.h"

#ifndef BOVW_MT
#define BOVW_MT 2  // m-tiles of 16 rows per warp
#endif
#ifndef BOVW_NT
#define BOVW_NT 2  // n-tiles of 8 words per step
#endif
#ifndef BOVW_WARPS
#define BOVW_WARPS 4  // warps per work-group
#endif
#ifndef BOVW_PTX_MMA
#define BOVW_PTX_MMA 0
#endif
#ifndef BOVW_STAGE
#define BOVW_STAGE 0  // n-tiles per local-memory chunk of the words; 0: warps read them from global memory
#endif
#ifndef BOVW_F16
#define BOVW_F16 0  // FP16 operands (m16n8k16) instead of TF32 (m16n8k8)
#endif
#ifndef BOVW_MARGIN_SCALE
#define BOVW_MARGIN_SCALE BOVW_TENSOR_MARGIN_SLACK  // 0 decides every near-tie unchecked (tests)
#endif

#if BOVW_F16
#define BOVW_KW 16  // features per k-step (mma's k)
#else
#define BOVW_KW 8
#endif
#define BOVW_PAIR (BOVW_KW / 8)  // operands per 32-bit fragment register: two halves, or one TF32
#define BOVW_KS ((BOVW_D + BOVW_KW - 1) / BOVW_KW)  // k-steps
#define BOVW_BM (16 * BOVW_MT * BOVW_WARPS)  // rows per work-group
#define BOVW_THREADS (32 * BOVW_WARPS)
#define BOVW_SUMS (2 * BOVW_BM)  // golden distances a group sums itself; rows beyond go to the re-check

// Where the warps read the words' B fragments: the group's local copy or global memory.
#if BOVW_STAGE
#define BOVW_B_SPACE local
#else
#define BOVW_B_SPACE global
#endif

// cvt.rna.tf32.f32: round to the nearest TF32 value, ties away from zero (on the magnitude bits).
inline uint bovw_tf32(float v) {
#if BOVW_PTX_MMA
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return r;
#else
  const uint bits = as_uint(v);
  return (bits & 0x7f800000u) == 0x7f800000u ? bits : (bits + 0x1000u) & 0xffffe000u;
#endif
}

// The operand the tensor core multiplies, as a float: TF32 (above), or FP16 rounded to nearest,
// ties to even (cvt.rn.f16.f32), with FP16's subnormals (multiples of 2^-24) and infinity past its
// largest value, 65504. On NVIDIA GPUs the conversion's own instructions (without branches: the
// software form's made the prologue half of the kernel's samples at D = 128).
inline float bovw_operand(float v) {
#if BOVW_F16 && BOVW_PTX_MMA
  float r;
  asm("{ .reg .b16 h; cvt.rn.f16.f32 h, %1; cvt.f32.f16 %0, h; }" : "=f"(r) : "f"(v));
  return r;
#elif BOVW_F16
  const float a = fabs(v);
  if (!(a < 65520.0f)) return v * INFINITY;                      // beyond FP16 (and NaN)
  if (a < 0x1.0p-14f) return rint(v * 0x1.0p24f) * 0x1.0p-24f;  // FP16's subnormals
  const uint bits = as_uint(v);
  return as_float((bits + 0x0fffu + ((bits >> 13) & 1u)) & 0xffffe000u);  // 10 stored bits, ties to even
#else
  return as_float(bovw_tf32(v));
#endif
}

#if BOVW_PTX_MMA
#if BOVW_F16
// Two operands, already FP16 values, packed as the fragments hold them: `lo` in the low half.
inline uint bovw_pack_f16(float lo, float hi) {
  uint r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
#endif

// c += A * B for one warp, A 16 x BOVW_KW and B BOVW_KW x 8. Fragments (PTX ISA), with g = lane / 4,
// t = lane % 4, c = {C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]}:
// - mma.m16n8k16 .f16, two halves a register, the lower index in the low half:
//   a = {A[g][2t..2t+1], A[g+8][2t..2t+1], A[g][2t+8..2t+9], A[g+8][2t+8..2t+9]},
//   b = {B[2t..2t+1][g], B[2t+8..2t+9][g]};
// - mma.m16n8k8 .tf32: a = {A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]}, b = {B[t][g], B[t+4][g]}.
#if BOVW_F16
#define BOVW_MMA "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#else
#define BOVW_MMA "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
#endif
inline void bovw_mma(float c[4], const uint a[4], uint b0, uint b1) {
  asm volatile(BOVW_MMA " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#else
// An FP16 operand from its bits (the host stores the words' fragments as FP16 pairs).
inline float bovw_f16_value(uint bits) {
  const uint e = (bits >> 10) & 0x1fu, m = bits & 0x3ffu;
  const float magnitude = e == 0 ? (float)m * 0x1.0p-24f
                                 : e == 31 ? (m ? NAN : INFINITY) : as_float(((e + 112u) << 23) | (m << 13));
  return bits & 0x8000u ? -magnitude : magnitude;
}

// The B operand of feature k of the step (0 <= k < BOVW_KW) that lane `holder` holds.
inline float bovw_b_operand(float2 b, int k) {
#if BOVW_F16
  const uint reg = as_uint(k < 8 ? b.x : b.y);
  return bovw_f16_value(k % 2 ? reg >> 16 : reg & 0xffffu);
#else
  return k < 4 ? b.x : b.y;
#endif
}

// The same step emulated: the lane's four outputs (the c layout above) from the operands in
// memory, A from the descriptor rows [row0, row0 + 16) and B from the fragments of n-tile `tile`
// of words_frag (lane g * 4 + t holds B[t][g] and B[t+4][g] of a TF32 step; B[2t..2t+1][g] and
// B[2t+8..2t+9][g] of an FP16 one), where the GPU's warps read them too. The products of two
// operands are exact in float. No barriers, so it runs fast enough on a CPU.
inline void bovw_mma_emulated(float c[4], global const float* descriptors, int n, int row0,
                              BOVW_B_SPACE const float2* words_frag, int tile, int ks, int lane) {
  const int g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = row0 + g + 8 * (i / 2);
    const int col = 2 * t + i % 2;
    float sum = 0.0f;
    for (int k = 0; k < BOVW_KW; ++k) {
      const int feature = BOVW_KW * ks + k;
      const float x = row < n && feature < BOVW_D ? descriptors[(size_t)row * BOVW_D + feature] : 0.0f;
      const int holder = col * 4 + (k % (4 * BOVW_PAIR)) / BOVW_PAIR;
      const float2 b = words_frag[((size_t)tile * BOVW_KS + ks) * 32 + holder];
      sum += bovw_operand(x) * bovw_b_operand(b, k);
    }
    c[i] += sum;
  }
}
#endif

// Words per block of the word loop, in n-tiles of 8: within a block a lane's running index (2 per
// n-tile) fits 8 bits, whatever K is; between blocks the lane files its block's two best, words
// decoded, and its bound into its row's running state. BOVW_NT and BOVW_STAGE divide it (the host
// checks).
#define BOVW_BLOCK_TILES 128
// Where n-tile `tile` and the starting values of this lane's two words of it are: in the staged
// chunk, or in all the words.
#if BOVW_STAGE
#define BOVW_FRAG_TILE(tile) ((tile) - chunk_start)
#define BOVW_TILE_START(tile) tile_starts[((tile) - chunk_start) * 4 + t]
#else
#define BOVW_FRAG_TILE(tile) ((size_t)(tile))
#define BOVW_TILE_START(tile) starts[((tile) * 8 + 2 * t) / 2]
#endif

#if BOVW_STAGE
// Copies of 16 bytes from global into local memory that the warps do not wait for: cp.async on
// NVIDIA GPUs (sm_80 and later; a local pointer's value is its address in the shared window), plain
// copies elsewhere. bovw_copies_wait waits for this work-item's copies; a barrier after it makes
// everyone's visible.
inline void bovw_copy16(local float4* to, global const float4* from) {
#if BOVW_PTX_MMA
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((uint)(size_t)to), "l"(from) : "memory");
#else
  *to = *from;
#endif
}

inline void bovw_copies_commit(void) {
#if BOVW_PTX_MMA
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

inline void bovw_copies_wait(void) {
#if BOVW_PTX_MMA
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}

// The group's rows of one m-tile go through the chunk buffers before the words do: the copies are
// all in flight at once, where each lane's own loads waited one after another (on an H100 at
// D = 128 the kernel took 9% longer so). Chunk c (16 bytes) of a staged row r sits at c ^ (r % 8),
// so that a warp's fragment reads meet distinct banks. Where the rows do not fit the buffers, or D
// is not a multiple of 32, each lane loads its own values (bovw_row_values).
#define BOVW_STAGED_ROWS (BOVW_D % 32 == 0 && BOVW_WARPS * 16 * BOVW_D <= 2 * BOVW_STAGE * BOVW_KS * 64)

#if BOVW_STAGED_ROWS
// Starts the copies of the 16 rows from `first` (zeros past n) into the warp's 16 x D floats at `to`.
inline void bovw_stage_rows(local float4* to, global const float* descriptors, int n, int first, int lane) {
  const int chunks = BOVW_D / 4;
  for (int i = lane; i < 16 * chunks; i += 32) {
    const int r = i / chunks, c = i % chunks;
    local float4* slot = to + r * chunks + (c ^ (r % 8));
    if (first + r < n)
      bovw_copy16(slot, (global const float4*)(descriptors + (size_t)(first + r) * BOVW_D) + c);
    else
      *slot = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
  }
  bovw_copies_commit();
}

// Features k0 .. k0 + BOVW_PAIR - 1 of staged row r (one chunk: k0 is even for a pair).
inline void bovw_staged_values(float v[BOVW_PAIR], local const float* rows, int r, int k0) {
  local const float* at = rows + r * BOVW_D + (((k0 / 4) ^ (r % 8)) * 4) + k0 % 4;
#if BOVW_PAIR == 2
  const float2 pair = *(local const float2*)at;
  v[0] = pair.x;
  v[1] = pair.y;
#else
  v[0] = *at;
#endif
}
#endif

// Starts the copy of n-tiles [first, end) of the words' fragments and of their starting values
// (4 float2 an n-tile) into one of the group's two chunk buffers.
inline void bovw_stage_chunk(local float4* frags_to, local float4* starts_to, global const float2* words_frag,
                             global const float2* starts, int first, int end, int lid) {
  global const float4* frags_from = (global const float4*)(words_frag + (size_t)first * BOVW_KS * 32);
  for (int i = lid; i < (end - first) * BOVW_KS * 16; i += BOVW_THREADS) bovw_copy16(frags_to + i, frags_from + i);
  global const float4* starts_from = (global const float4*)(starts + (size_t)first * 4);
  for (int i = lid; i < (end - first) * 2; i += BOVW_THREADS)
    bovw_copy16(starts_to + i, starts_from + i);
  bovw_copies_commit();
}
#endif

// Features k0 .. k0 + BOVW_PAIR - 1 of a row, zeros past n and D: an FP16 pair in one 8-byte load
// where D is even (k0 is then even, and the rows 8-byte aligned).
inline void bovw_row_values(float v[BOVW_PAIR], global const float* descriptors, int n, int row, int k0) {
#if BOVW_PAIR == 2 && BOVW_D % 2 == 0
  const float2 pair = row < n && k0 < BOVW_D ? *(global const float2*)(descriptors + (size_t)row * BOVW_D + k0)
                                             : (float2)(0.0f, 0.0f);
  v[0] = pair.x;
  v[1] = pair.y;
#else
  for (int e = 0; e < BOVW_PAIR; ++e)
    v[e] = row < n && k0 + e < BOVW_D ? descriptors[(size_t)row * BOVW_D + k0 + e] : 0.0f;
#endif
}

// Two of a row's scores, v0 and v1 (one tile's two columns), into the lane's block state: b1 >= b2
// are the two largest of the pairs' winners, b3 bounds every other score (the pairs' losers and
// what b1, b2 evicted). Four min/max instructions a score, where an exact top three takes five; b3
// may exceed b2 (a pair holding two of the lane's three largest), which costs a re-check, not a
// wrong word.
inline void bovw_fold_pair(float* b1, float* b2, float* b3, float v0, float v1) {
  const float high = fmax(v0, v1), low = fmin(v0, v1);
  const float t1 = fmin(*b1, high);
  *b1 = fmax(*b1, high);
  const float t2 = fmin(*b2, t1);
  *b2 = fmax(*b2, t1);
  *b3 = fmax(*b3, fmax(t2, low));
}

// The two largest values with their words, and s3, the largest of the rest: a bound, which may
// exceed s2 (a block's bound, bovw_fold_pair), so what s2 gives up joins it rather than replacing it.
inline void bovw_insert3(float* s1, int* j1, float* s2, int* j2, float* s3, float v, int word) {
  if (v > *s1) {
    *s3 = fmax(*s3, *s2);
    *s2 = *s1;
    *j2 = *j1;
    *s1 = v;
    *j1 = word;
  } else if (v > *s2) {
    *s3 = fmax(*s3, *s2);
    *s2 = v;
    *j2 = word;
  } else {
    *s3 = fmax(*s3, v);
  }
}

// The golden distance: (x_k - c_k)^2 summed in feature order in float, never fused (the CPU's),
// from a descriptor row and a word's row (both D floats). Rows of a multiple of 4 features are read
// 16 bytes at a time, several loads ahead of the sum (read a feature at a time from the transposed
// words, each load 4 KB from the last and waiting for it, the sums of the fifth of the rows that
// need them at D = 128 on uniform data held up their warps).
inline float bovw_golden_distance(global const float* x, global const float* c) {
#pragma OPENCL FP_CONTRACT OFF
  float sum = 0.0f;
#if BOVW_D % 4 == 0
#pragma unroll 8
  for (int k = 0; k < BOVW_D / 4; ++k) {
    const float4 t = ((global const float4*)x)[k] - ((global const float4*)c)[k];
    sum += t.x * t.x;
    sum += t.y * t.y;
    sum += t.z * t.z;
    sum += t.w * t.w;
  }
#else
  for (int k = 0; k < BOVW_D; ++k) {
    const float t = x[k] - c[k];
    sum += t * t;
  }
#endif
  return sum;
}

// Arguments as histogram_tiled's, with the words as rows of D floats (`words`, for the golden sums)
// in place of their transposed form, plus: words_frag (the words TF32-rounded in B-fragment order:
// n-tile, k-step, lane, 2 floats), starts (-||c||^2 / 2 per padded word; padding words a large
// negative so they never win), rho (max_j ||c~_j - c_j|| / ||c_j||: the words' TF32 rounding, for
// the certificate) and index_bits (bits of a lane's running index in a block: log2 of 2 x its
// n-tiles, at most 8).
kernel __attribute__((reqd_work_group_size(BOVW_THREADS, 1, 1)))
void histogram_tiled_tensor(global const float* restrict descriptors, const int n, const int row_base,
                          global const float2* restrict words_frag, global const float2* restrict starts,
                          global const float* restrict words, global const float* restrict norms,
                          const int n_words, const int k_padded, const float max_norm, const float rho,
                          const int index_bits,
                          global const int* restrict offsets, const int n_images,
                          global int* restrict best_word, global int* restrict histograms,
                          global int* restrict flagged, global int* restrict flag_count) {
  local float merge[BOVW_BM * 4 * 3];   // per row, per lane of its quad: the lane's top three
  local int merge_words[BOVW_BM * 4 * 2];  // ... and the words of its first two
  local float row_norms[BOVW_BM * 3];    // per row: the three norms of the certificate
  local int summed;                    // rows of the group decided by a few golden distances
  local uchar needs_sums[BOVW_BM];     // ... which rows those are
  local int sums[BOVW_SUMS];           // ... and the slots of `merge` whose golden distances they need
  local int n_sums;
#if BOVW_STAGE
  local float4 stage[2][BOVW_STAGE * BOVW_KS * 16];  // two chunks of BOVW_STAGE n-tiles of B fragments
  local float4 stage_starts[2][BOVW_STAGE * 2];      // ... and their starting values (4 float2 a tile)
#endif
  const int lid = get_local_id(0);
  if (lid == 0) summed = n_sums = 0;
  const int warp = lid / 32, lane = lid % 32;
  const int g = lane / 4, t = lane % 4;
  const int row0 = get_group_id(0) * BOVW_BM;
  const int warp_row0 = row0 + warp * 16 * BOVW_MT;

  // The warp's rows as A fragments, all D features (zeros past n and past D). On the way each lane
  // adds up its share of its rows' norms for the certificate (||x||^2, and ||x~||^2 and ||x~ - x||^2
  // of the TF32 form) and files it in its slots of `merge`, not yet in use; `row_norms` gets the
  // quad's sums. The epilogue's own pass over each row's D loads was 9% of the kernel's samples.
#if BOVW_PTX_MMA
  uint a[BOVW_MT][BOVW_KS][4];
#endif
#pragma unroll
  for (int m = 0; m < BOVW_MT; ++m) {
    float xx[2] = {0.0f, 0.0f}, tt[2] = {0.0f, 0.0f}, rr[2] = {0.0f, 0.0f};
#if BOVW_STAGE && BOVW_STAGED_ROWS
    local float4* warp_rows = &stage[0][0] + warp * 16 * (BOVW_D / 4);
    bovw_stage_rows(warp_rows, descriptors, n, warp_row0 + 16 * m, lane);
    bovw_copies_wait();
    barrier(CLK_LOCAL_MEM_FENCE);  // the lanes' copies visible to the warp (OpenCL has no warp barrier)
#endif
#pragma unroll
    for (int ks = 0; ks < BOVW_KS; ++ks)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        // Register i's operands: features k0 .. k0 + BOVW_PAIR - 1 of its row.
        const int row = warp_row0 + 16 * m + g + 8 * (i % 2);
        const int k0 = BOVW_KW * ks + BOVW_PAIR * t + (BOVW_KW / 2) * (i / 2);
        float v[BOVW_PAIR], rounded[BOVW_PAIR];
#if BOVW_STAGE && BOVW_STAGED_ROWS
        bovw_staged_values(v, (local const float*)warp_rows, g + 8 * (i % 2), k0);
#else
        bovw_row_values(v, descriptors, n, row, k0);
#endif
#pragma unroll
        for (int e = 0; e < BOVW_PAIR; ++e) {
          rounded[e] = bovw_operand(v[e]);
          xx[i % 2] += v[e] * v[e];
          tt[i % 2] += rounded[e] * rounded[e];
          rr[i % 2] += (rounded[e] - v[e]) * (rounded[e] - v[e]);  // the difference is exact (Sterbenz; v where it rounds to 0)
        }
#if BOVW_PTX_MMA
#if BOVW_F16
        a[m][ks][i] = bovw_pack_f16(rounded[0], rounded[1]);
#else
        a[m][ks][i] = as_uint(rounded[0]);
#endif
#endif
      }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int slot = (warp * 16 * BOVW_MT + 16 * m + g + 8 * h) * 4 + t;
      merge[slot * 3 + 0] = xx[h];
      merge[slot * 3 + 1] = tt[h];
      merge[slot * 3 + 2] = rr[h];
    }
#if BOVW_STAGE && BOVW_STAGED_ROWS
    barrier(CLK_LOCAL_MEM_FENCE);  // read before the next m-tile's rows (or the words) go there
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int r = lid; r < BOVW_BM; r += BOVW_THREADS)
    for (int e = 0; e < 3; ++e)
      row_norms[r * 3 + e] = merge[(r * 4 + 0) * 3 + e] + merge[(r * 4 + 1) * 3 + e] +
                             merge[(r * 4 + 2) * 3 + e] + merge[(r * 4 + 3) * 3 + e];
  barrier(CLK_LOCAL_MEM_FENCE);

  // Rows of this lane: m-tile m, half h (g or g + 8) is row slot 2m + h. b: the block's two best
  // and bound (bovw_fold_pair), indices in their low bits, in registers; the row's two best so far,
  // words decoded, and its bound, in the lane's own slots of `merge` (touched once per block:
  // registers stay free for the loop).
  float b1[2 * BOVW_MT], b2[2 * BOVW_MT], b3[2 * BOVW_MT];
#pragma unroll
  for (int r = 0; r < 2 * BOVW_MT; ++r) {
    const int slot = (warp * 16 * BOVW_MT + 16 * (r / 2) + g + 8 * (r % 2)) * 4 + t;
    merge[slot * 3 + 0] = merge[slot * 3 + 1] = merge[slot * 3 + 2] = -INFINITY;
    merge_words[slot * 2 + 0] = merge_words[slot * 2 + 1] = -1;
  }
  const uint low = (1u << index_bits) - 1u, keep = ~low;

  const int n_tiles = k_padded / 8;
#if BOVW_STAGE
  bovw_stage_chunk(stage[0], stage_starts[0], words_frag, starts, 0, min(BOVW_STAGE, n_tiles), lid);
#endif
  for (int block = 0; block < n_tiles; block += BOVW_BLOCK_TILES) {
#pragma unroll
    for (int r = 0; r < 2 * BOVW_MT; ++r) b1[r] = b2[r] = b3[r] = -INFINITY;
#if BOVW_STAGE
    for (int chunk = block; chunk < min(block + BOVW_BLOCK_TILES, n_tiles); chunk += BOVW_STAGE) {
      const int chunk_start = chunk, chunk_end = min(chunk + BOVW_STAGE, n_tiles);
      const int buffer = (chunk / BOVW_STAGE) & 1;
      // This chunk is in, and every warp is done with the other buffer (the last chunk): the next
      // chunk goes there while the warps compute on this one.
      bovw_copies_wait();
      barrier(CLK_LOCAL_MEM_FENCE);
      if (chunk_end < n_tiles)
        bovw_stage_chunk(stage[buffer ^ 1], stage_starts[buffer ^ 1], words_frag, starts, chunk_end,
                         min(chunk_end + BOVW_STAGE, n_tiles), lid);
      local const float2* frags = (local const float2*)stage[buffer];
      local const float2* tile_starts = (local const float2*)stage_starts[buffer];
#else
    {  // the whole block straight from global memory
      const int chunk_start = block, chunk_end = min(block + BOVW_BLOCK_TILES, n_tiles);
      global const float2* frags = words_frag;
#endif
      for (int nt0 = chunk_start; nt0 < chunk_end; nt0 += BOVW_NT) {
        float c[BOVW_MT][BOVW_NT][4];
#pragma unroll
        for (int u = 0; u < BOVW_NT; ++u) {
          const float2 start = BOVW_TILE_START(nt0 + u);
#pragma unroll
          for (int m = 0; m < BOVW_MT; ++m) {
            c[m][u][0] = c[m][u][2] = start.x;
            c[m][u][1] = c[m][u][3] = start.y;
          }
        }
#pragma unroll
        for (int ks = 0; ks < BOVW_KS; ++ks)
#pragma unroll
          for (int u = 0; u < BOVW_NT; ++u) {
            const float2 b = frags[(BOVW_FRAG_TILE(nt0 + u) * BOVW_KS + ks) * 32 + lane];
#pragma unroll
            for (int m = 0; m < BOVW_MT; ++m) {
#if BOVW_PTX_MMA
              bovw_mma(c[m][u], a[m][ks], as_uint(b.x), as_uint(b.y));
#else
              bovw_mma_emulated(c[m][u], descriptors, n, warp_row0 + 16 * m, frags, BOVW_FRAG_TILE(nt0 + u), ks, lane);
#endif
            }
          }
        // Fold the scores, each carrying the lane's running index in the block, 2 * n-tile + column.
#pragma unroll
        for (int u = 0; u < BOVW_NT; ++u) {
          const uint index = 2u * (uint)(nt0 + u - block);
#pragma unroll
          for (int m = 0; m < BOVW_MT; ++m)
#pragma unroll
            for (int h = 0; h < 2; ++h) {  // row g, then g + 8: columns 2t and 2t + 1 each
              const float v0 = as_float((as_uint(c[m][u][2 * h]) & keep) | index);
              const float v1 = as_float((as_uint(c[m][u][2 * h + 1]) & keep) | (index + 1u));
              const int r = 2 * m + h;
              bovw_fold_pair(&b1[r], &b2[r], &b3[r], v0, v1);
            }
        }
      }
    }
    // The block's two best into the row's, with their words (n-tile block + index / 2, column
    // 2t + index % 2), and its bound; -inf (nothing yet) never goes in.
#pragma unroll
    for (int r = 0; r < 2 * BOVW_MT; ++r) {
      const int slot = (warp * 16 * BOVW_MT + 16 * (r / 2) + g + 8 * (r % 2)) * 4 + t;
      float s1 = merge[slot * 3 + 0], s2 = merge[slot * 3 + 1], s3 = merge[slot * 3 + 2];
      int j1 = merge_words[slot * 2 + 0], j2 = merge_words[slot * 2 + 1];
      const float found[2] = {b1[r], b2[r]};
      for (int e = 0; e < 2; ++e) {
        const uint index = as_uint(found[e]) & low;
        bovw_insert3(&s1, &j1, &s2, &j2, &s3, found[e], (block + (int)(index / 2)) * 8 + 2 * t + (int)(index % 2));
      }
      s3 = fmax(s3, b3[r]);  // a bound only: its word is not kept, even where it exceeds s2
      merge[slot * 3 + 0] = s1;
      merge[slot * 3 + 1] = s2;
      merge[slot * 3 + 2] = s3;
      merge_words[slot * 2 + 0] = j1;
      merge_words[slot * 2 + 1] = j2;
    }
  }

  // The four lanes of a quad share rows: merge their top threes.
  barrier(CLK_LOCAL_MEM_FENCE);

  // Each row is decided by its certificate (below), or left to a few golden distances, or flagged
  // for the full re-check. The candidates for golden distances are the slots of the quad's kept
  // words within the margin (the others' slots become +inf); their sums come after, spread over the
  // group, since a row has one work-item and a few rows of each warp need sums.
  for (int r = lid; r < BOVW_BM; r += BOVW_THREADS) {
    const int row = row0 + r;
    needs_sums[r] = 0;
    if (row >= n) break;
    // The three largest s over the quad, with the words of the first two; and the largest of the
    // lanes' thirds, which bounds every score whose word no lane kept.
    float s1 = -INFINITY, s2 = -INFINITY, s3 = -INFINITY, unkept = -INFINITY;
    int j1 = -1, j2 = -1;
    for (int q = 0; q < 4; ++q) {
      for (int e = 0; e < 3; ++e)
        bovw_insert3(&s1, &j1, &s2, &j2, &s3, merge[(r * 4 + q) * 3 + e],
                     e < 2 ? merge_words[(r * 4 + q) * 2 + e] : -1);
      unkept = fmax(unkept, merge[(r * 4 + q) * 3 + 2]);
    }
    // ||x||^2, and the norms of the row's operands (TF32 or FP16) and of their rounding, for the certificate.
    const float xx = row_norms[r * 3 + 0], tt = row_norms[r * 3 + 1], rr = row_norms[r * 3 + 2];
    // A square below FLT_MIN may be flushed to zero: each norm may miss up to sqrt(D) 2^-63.
    const float lost = sqrt((float)BOVW_D) * 0x1.0p-63f;
    const float e1 = -2.0f * s1, e2 = -2.0f * s2;
    // nx bounds both ||x|| and ||x~|| (1 + rho) >= ||x~|| ||c~|| / ||c||, the products' magnitudes:
    // FP16's subnormals may round up by more than (1 + 2^-11) (docs/KERNELS.md).
    const float nx = fmax(sqrt(xx), sqrt(tt) * (1.0f + rho)) + lost;
    const float margin = bovw_tensor_margin(nx * nx, e1, sqrt(norms[max(j1, 0)]), max_norm,
                                          bovw_tensor_operand_factor(sqrt(tt) + lost, sqrt(rr) + lost, rho),
                                          BOVW_D, index_bits, BOVW_MARGIN_SCALE);
    // Overflow guard as in tiled.cl; scores this close to zero may have lost their index (a
    // subnormal flushed to zero), and a padding word among the candidates is left to the re-check.
    const float s_max = (2.0f * nx + max_norm) * (2.0f * nx + max_norm);
    const bool trusted = s_max < 1e30f && fabs(s1) > 0x1.0p-99f && fabs(s2) > 0x1.0p-99f &&
                         fabs(unkept) > 0x1.0p-99f && j1 >= 0 && j1 < n_words;
    if (trusted && e2 - e1 > margin) {
      best_word[row] = j1;
      atomic_inc(&histograms[bovw_image_of(offsets, n_images, row_base + row) * n_words + j1]);
      continue;
    }
    // When every word no lane kept is beyond the margin, the golden word is one of the kept words
    // within it (j1 at least), unless one of those is unknown, a padding word or a lost index.
    bool summable = trusted && -2.0f * unkept - e1 > margin;
    for (int i = 0; i < 8 && summable; ++i) {
      const float s = merge[(r * 4 + i / 2) * 3 + i % 2];
      const int j = merge_words[(r * 4 + i / 2) * 2 + i % 2];
      summable = -2.0f * s - e1 > margin || (j >= 0 && j < n_words && fabs(s) > 0x1.0p-99f);
    }
    if (!summable) {
      flagged[atomic_inc(flag_count)] = row;
      continue;
    }
    uint within = 0;
    for (int i = 0; i < 8; ++i)
      if (!(-2.0f * merge[(r * 4 + i / 2) * 3 + i % 2] - e1 > margin)) within |= 1u << i;
    const int first = atomic_add(&n_sums, (int)popcount(within));
    if (first + (int)popcount(within) > BOVW_SUMS) {  // the group's list is full
      for (int i = first; i < BOVW_SUMS; ++i) sums[i] = -1;
      flagged[atomic_inc(flag_count)] = row;
      continue;
    }
    needs_sums[r] = 1;
    for (int i = 0, next = first; i < 8; ++i) {
      const int slot = (r * 4 + i / 2) * 3 + i % 2;
      if (within & (1u << i))
        sums[next++] = slot;
      else
        merge[slot] = INFINITY;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // The golden distances, one a work-item, each into its slot of `merge` (slot = (r * 4 + q) * 3 + e).
  for (int i = lid; i < min(n_sums, BOVW_SUMS); i += BOVW_THREADS) {
    const int slot = sums[i], r = slot / 12, q = slot % 12 / 3, e = slot % 3;
    if (slot < 0) continue;
    merge[slot] = bovw_golden_distance(descriptors + (size_t)(row0 + r) * BOVW_D,
                                       words + (size_t)merge_words[(r * 4 + q) * 2 + e] * BOVW_D);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Those rows: the word of the smallest golden distance, the lower word on a tie, as the CPU's scan
  // in word order picks (the slots beyond the margin are +inf and never win).
  for (int r = lid; r < BOVW_BM; r += BOVW_THREADS) {
    const int row = row0 + r;
    if (row >= n) break;
    if (!needs_sums[r]) continue;
    float best = INFINITY;
    int word = -1;
    for (int i = 0; i < 8; ++i) {
      const float dj = merge[(r * 4 + i / 2) * 3 + i % 2];
      const int j = merge_words[(r * 4 + i / 2) * 2 + i % 2];
      if (dj < best || (dj == best && j < word)) {
        best = dj;
        word = j;
      }
    }
    if (word >= 0) {
      atomic_inc(&summed);
      best_word[row] = word;
      atomic_inc(&histograms[bovw_image_of(offsets, n_images, row_base + row) * n_words + word]);
    } else {
      flagged[atomic_inc(flag_count)] = row;
    }
  }
  // Rows decided by direct sums count as re-checked (StageTimes::rechecked_rows): one global
  // atomic per group, not per row.
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0 && summed > 0) atomic_add(flag_count + 1, summed);
}
