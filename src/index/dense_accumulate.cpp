// addDenseWords: a scalar loop, and an AVX-512 one chosen at run time. Compiled without contraction
// (src/CMakeLists.txt): score + q * d must stay a multiply and an add, as in the sparse loop, and not
// become a fused multiply-add, which rounds once instead of twice.
//
// Why a run of words in one pass: a pass a word read and wrote the block's scores and scales in L2
// once for every dense word of the query (44-60 of them at a million synthetic images), where one
// pass keeps 64 images' sums and scales in registers and reads only each word's count bytes.
#include "index/dense_accumulate.hpp"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bovw::index_detail {

namespace {

// Each word's counts are fetched four groups ahead: a query reads 40-60 such streams at once, more than
// the hardware prefetcher follows (docs/journal/2026-12-05.md). A T0 hint (into every cache level): with
// NTA the lines were dropped before use on the H200 host's Xeon. A prefetch never faults, even past
// the array's end.
constexpr std::size_t kPrefetchAhead = 4 * kDenseGroup;

template <bool kCosine>
std::size_t addScalar(const DenseWord* words, std::size_t n, const double* scale, double* score, std::size_t begin,
                      std::size_t end) {
  std::size_t id = begin;
  for (; end - id >= kDenseGroup; id += kDenseGroup) {
    double sum[kDenseGroup];
    std::copy(score + id, score + id + kDenseGroup, sum);
    for (std::size_t j = 0; j < n; ++j) {
      const DenseWord& w = words[j];
      if (id >= w.span) continue;
      if (w.span - id < kDenseGroup) return id;
      // The group's counts checked first, in a loop of its own without a branch, so that the loop
      // that adds has none either; fetched ahead as in the vector loop.
      const std::uint8_t* counts = w.counts + id;
      __builtin_prefetch(counts + kPrefetchAhead);
      std::uint8_t largest = 0;
      for (std::size_t i = 0; i < kDenseGroup; ++i) largest = std::max(largest, counts[i]);
      if (largest >= kDenseTabledCounts) return id;
      for (std::size_t i = 0; i < kDenseGroup; ++i) {
        const double d = w.term_idf[counts[i]] * scale[id + i];
        sum[i] += kCosine ? w.q * d : std::min(w.q, d);
      }
    }
    std::copy(sum, sum + kDenseGroup, score + id);
  }
  return id;
}

#if defined(__x86_64__)
// Eight registers of sums and eight of scales. For each word, the group's 64 count bytes (one cache
// line) are checked for counts beyond the table at once, then widened eight at a time to 64-bit
// indices that select the term weights from the word's 16-entry table held in two registers.
// _mm512_min_pd(d, q) is d < q ? d : q, as std::min(q, d). GCC 12's intrinsics start some results
// from an undefined register and then warn that it may be used uninitialised (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <bool kCosine>
__attribute__((target("avx512f,avx512bw"))) std::size_t addAvx512(const DenseWord* words, std::size_t n,
                                                                   const double* scale, double* score,
                                                                   std::size_t begin, std::size_t end) {
  constexpr int kVectors = static_cast<int>(kDenseGroup / 8);
  const __m512i untabled = _mm512_set1_epi8(static_cast<char>(0x100 - kDenseTabledCounts));
  std::size_t id = begin;
  for (; end - id >= kDenseGroup; id += kDenseGroup) {
    __m512d sum[kVectors], s[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      sum[v] = _mm512_loadu_pd(score + id + 8 * v);
      s[v] = _mm512_loadu_pd(scale + id + 8 * v);
    }
    for (std::size_t j = 0; j < n; ++j) {
      const DenseWord& w = words[j];
      if (id >= w.span) continue;
      if (w.span - id < kDenseGroup) return id;
      _mm_prefetch(reinterpret_cast<const char*>(w.counts + id + kPrefetchAhead), _MM_HINT_T0);  // never faults
      if (_mm512_test_epi8_mask(_mm512_loadu_si512(w.counts + id), untabled) != 0) return id;
      const __m512d low = _mm512_loadu_pd(w.term_idf), high = _mm512_loadu_pd(w.term_idf + 8);
      const __m512d q = _mm512_set1_pd(w.q);
      for (int v = 0; v < kVectors; ++v) {
        const __m512i c =
            _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.counts + id + 8 * v)));
        const __m512d d = _mm512_mul_pd(_mm512_permutex2var_pd(low, c, high), s[v]);
        sum[v] = _mm512_add_pd(sum[v], kCosine ? _mm512_mul_pd(q, d) : _mm512_min_pd(d, q));
      }
    }
    for (int v = 0; v < kVectors; ++v) _mm512_storeu_pd(score + id + 8 * v, sum[v]);
  }
  return id;
}
#pragma GCC diagnostic pop

bool hasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return has;
}
#endif

}  // namespace

std::size_t addDenseWords(const DenseWord* words, std::size_t n, bool cosine, const double* scale, double* score,
                          std::size_t begin, std::size_t end) {
#if defined(__x86_64__)
  if (hasAvx512())
    return cosine ? addAvx512<true>(words, n, scale, score, begin, end)
                  : addAvx512<false>(words, n, scale, score, begin, end);
#endif
  return addDenseWordsScalar(words, n, cosine, scale, score, begin, end);
}

std::size_t addDenseWordsScalar(const DenseWord* words, std::size_t n, bool cosine, const double* scale,
                                double* score, std::size_t begin, std::size_t end) {
  return cosine ? addScalar<true>(words, n, scale, score, begin, end)
                : addScalar<false>(words, n, scale, score, begin, end);
}

}  // namespace bovw::index_detail
