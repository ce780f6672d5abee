// addDenseWords: a scalar loop, and an AVX-512 one chosen at run time, which holds 64 images' sums in
// registers while it adds every dense word's contributions to them; a pass over the block's scores for
// each word read and wrote them in L2 once a word (a query of a million images on the 2-core VM: p50
// 19-20 ms against 21-23, docs/journal/2026-12-05.md). Compiled without contraction
// (src/CMakeLists.txt): q * d and term * scale must each be rounded as the definition's.
#include "index/dense_accumulate.hpp"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bovw::index_detail {

namespace {

template <bool kCosine>
void addScalar(const DenseWord* words, std::size_t n, const double* scale, std::int64_t* score, std::size_t begin,
               std::size_t end, std::uint8_t* large) {
  for (std::size_t j = 0; j < n; ++j) {
    const DenseWord& w = words[j];
    std::uint8_t largest = 0;
    for (std::size_t id = begin; id < std::min(end, w.span); ++id) {
      const std::uint8_t c = w.counts[id];
      largest = std::max(largest, c);
      const double d = w.term_idf[c < kDenseTabledCounts ? c : 0] * scale[id];
      score[id] += scoreUnits(kCosine ? w.q * d : std::min(w.q, d));
    }
    if (largest >= kDenseTabledCounts) large[j] = 1;
  }
}

#if defined(__x86_64__)
// 64 images at a time, eight to a register: for each word their count bytes (one cache line), widened
// to 64-bit indices, select the term weights from the word's 16-entry table (counts of 16 and more
// select 0 by the mask), and the contributions are rounded up to units (scoreUnits) and added to the
// sums. The
// 64 images' scales and sums stay in registers across the words. _mm512_min_pd(d, q) is d < q ? d : q,
// as std::min(q, d). GCC 12's intrinsics start some results from an undefined register and then warn
// that it may be used uninitialised (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <bool kCosine>
__attribute__((target("avx512f,avx512dq,avx512bw"))) void addAvx512(const DenseWord* words, std::size_t n,
                                                                     const double* scale, std::int64_t* score,
                                                                     std::size_t begin, std::size_t end,
                                                                     std::uint8_t* large) {
  constexpr int kVectors = 8;  // 64 images
  // Each word's counts are fetched four cache lines ahead, past the caches' other contents: a query
  // reads 40-60 such streams a block, more than the hardware prefetcher follows (a million images on
  // the 2-core VM: 30-36 ms a query without it, 19-20 with it; eight or sixteen lines ahead, slower).
  constexpr std::size_t kAhead = 4 * 8 * kVectors;
  std::size_t common = end;  // below every word's span: every word has a count byte there
  for (std::size_t j = 0; j < n; ++j) common = std::min(common, std::max(begin, words[j].span));
  const __m512i limit = _mm512_set1_epi64(kDenseTabledCounts);
  const __m512i untabled = _mm512_set1_epi8(static_cast<char>(0xff - (kDenseTabledCounts - 1)));
  const __m512d unit = _mm512_set1_pd(kScoreUnit);
  std::size_t id = begin;
  for (; id + 8 * kVectors <= common; id += 8 * kVectors) {
    __m512i sum[kVectors];
    __m512d s[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      sum[v] = _mm512_loadu_si512(score + id + 8 * v);
      s[v] = _mm512_loadu_pd(scale + id + 8 * v);
    }
    for (std::size_t j = 0; j < n; ++j) {
      const DenseWord& w = words[j];
      _mm_prefetch(reinterpret_cast<const char*>(w.counts + id + kAhead), _MM_HINT_NTA);
      if (_mm512_test_epi8_mask(_mm512_loadu_si512(w.counts + id), untabled) != 0) large[j] = 1;
      const __m512d low = _mm512_loadu_pd(w.term_idf), high = _mm512_loadu_pd(w.term_idf + 8);
      const __m512d q = _mm512_set1_pd(w.q);
      for (int v = 0; v < kVectors; ++v) {
        const __m512i c = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.counts + id + 8 * v)));
        const __mmask8 tabled = _mm512_cmplt_epu64_mask(c, limit);
        const __m512d d = _mm512_mul_pd(_mm512_maskz_permutex2var_pd(tabled, low, c, high), s[v]);
        const __m512d added = kCosine ? _mm512_mul_pd(q, d) : _mm512_min_pd(d, q);
        const __m512i units = _mm512_cvt_roundpd_epi64(_mm512_mul_pd(added, unit), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
        sum[v] = _mm512_add_epi64(sum[v], units);
      }
    }
    for (int v = 0; v < kVectors; ++v) _mm512_storeu_si512(score + id + 8 * v, sum[v]);
  }
  // The vector registers' upper halves cleared before the scalar tail and the caller's SSE code: GCC
  // leaves it out before the tail call, and every SSE instruction after it then waited on the dirty
  // registers (the query's sparse loop ran 2.5x slower).
  _mm256_zeroupper();
  addScalar<kCosine>(words, n, scale, score, id, end, large);
}
#pragma GCC diagnostic pop

bool hasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512bw");
  return has;
}
#endif

}  // namespace

void addDenseWords(const DenseWord* words, std::size_t n, bool cosine, const double* scale, std::int64_t* score,
                   std::size_t begin, std::size_t end, std::uint8_t* large) {
#if defined(__x86_64__)
  if (hasAvx512()) {
    if (cosine)
      addAvx512<true>(words, n, scale, score, begin, end, large);
    else
      addAvx512<false>(words, n, scale, score, begin, end, large);
    return;
  }
#endif
  addDenseWordsScalar(words, n, cosine, scale, score, begin, end, large);
}

void addDenseWordsScalar(const DenseWord* words, std::size_t n, bool cosine, const double* scale, std::int64_t* score,
                         std::size_t begin, std::size_t end, std::uint8_t* large) {
  if (cosine)
    addScalar<true>(words, n, scale, score, begin, end, large);
  else
    addScalar<false>(words, n, scale, score, begin, end, large);
}

}  // namespace bovw::index_detail
