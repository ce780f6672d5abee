// addDenseWord: a scalar loop, and an AVX-512 one chosen at run time. Compiled without contraction
// (src/CMakeLists.txt): score + q * d must stay a multiply and an add, as in the sparse loop, and not
// become a fused multiply-add, which rounds once instead of twice.
#include "index/dense_accumulate.hpp"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bovw::index_detail {

namespace {

template <bool kCosine>
bool addScalar(const DenseWord& w, const double* scale, double* score, std::size_t begin, std::size_t end) {
  std::uint8_t largest = 0;
  for (std::size_t id = begin; id < end; ++id) {
    const std::uint8_t c = w.counts[id];
    largest = std::max(largest, c);
    const double d = w.term_idf[c < kDenseTabledCounts ? c : 0] * scale[id];
    score[id] += kCosine ? w.q * d : std::min(w.q, d);
  }
  return largest >= kDenseTabledCounts;
}

#if defined(__x86_64__)
// Eight images at a time: their count bytes widened to 64-bit indices select the term weights from
// the 16-entry table held in two registers (counts of 16 and more select 0 by the mask).
// _mm512_min_pd(d, q) is d < q ? d : q, as std::min(q, d). GCC 12's intrinsics start some results
// from an undefined register and then warn that it may be used uninitialised (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <bool kCosine>
__attribute__((target("avx512f"))) bool addAvx512(const DenseWord& w, const double* scale, double* score,
                                                  std::size_t begin, std::size_t end) {
  const __m512d low = _mm512_loadu_pd(w.term_idf);
  const __m512d high = _mm512_loadu_pd(w.term_idf + 8);
  const __m512d q = _mm512_set1_pd(w.q);
  const __m512i limit = _mm512_set1_epi64(kDenseTabledCounts);
  __mmask8 large = 0;
  std::size_t id = begin;
  for (; id + 8 <= end; id += 8) {
    const __m512i c = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.counts + id)));
    const __mmask8 tabled = _mm512_cmplt_epu64_mask(c, limit);
    large |= static_cast<__mmask8>(~tabled);
    const __m512d term = _mm512_maskz_permutex2var_pd(tabled, low, c, high);
    const __m512d d = _mm512_mul_pd(term, _mm512_loadu_pd(scale + id));
    const __m512d added = kCosine ? _mm512_mul_pd(q, d) : _mm512_min_pd(d, q);
    _mm512_storeu_pd(score + id, _mm512_add_pd(_mm512_loadu_pd(score + id), added));
  }
  return addScalar<kCosine>(w, scale, score, id, end) || large != 0;
}
#pragma GCC diagnostic pop

bool hasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
#endif

}  // namespace

bool addDenseWord(const DenseWord& word, bool cosine, const double* scale, double* score, std::size_t begin,
                  std::size_t end) {
#if defined(__x86_64__)
  if (hasAvx512())
    return cosine ? addAvx512<true>(word, scale, score, begin, end) : addAvx512<false>(word, scale, score, begin, end);
#endif
  return addDenseWordScalar(word, cosine, scale, score, begin, end);
}

bool addDenseWordScalar(const DenseWord& word, bool cosine, const double* scale, double* score, std::size_t begin,
                        std::size_t end) {
  return cosine ? addScalar<true>(word, scale, score, begin, end) : addScalar<false>(word, scale, score, begin, end);
}

}  // namespace bovw::index_detail
