// markMatches: a scalar loop (with POPCNT where the CPU has it), and one with AVX-512's 64-bit population
// count, chosen at run time.
#include "retrieval/signature_matches.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bovw::retrieval_detail {

namespace {

BOVW_POPCNT_CLONES void markRange(const std::uint64_t* query, std::size_t query_count, const std::uint64_t* signatures,
               std::size_t begin, std::size_t end, int threshold, std::vector<std::uint64_t>& marks) {
  for (std::size_t b = begin; b < end; ++b)
    for (std::size_t a = 0; a < query_count; ++a)
      if (__builtin_popcountll(query[a] ^ signatures[b]) <= threshold) {
        marks[b / 64] |= std::uint64_t{1} << (b % 64);
        break;
      }
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512vpopcntdq"))) void markAvx512(const std::uint64_t* query,
                                                                    std::size_t query_count,
                                                                    const std::uint64_t* signatures, std::size_t n,
                                                                    int threshold, std::vector<std::uint64_t>& marks) {
  const __m512i limit = _mm512_set1_epi64(threshold);
  std::size_t b = 0;
  for (; b + 8 <= n; b += 8) {
    const __m512i stored = _mm512_loadu_si512(signatures + b);
    __mmask8 near = 0;
    for (std::size_t a = 0; a < query_count; ++a) {
      const __m512i bits = _mm512_popcnt_epi64(_mm512_xor_si512(stored, _mm512_set1_epi64(static_cast<long long>(query[a]))));
      near |= _mm512_cmple_epi64_mask(bits, limit);
    }
    marks[b / 64] |= std::uint64_t{near} << (b % 64);  // b is a multiple of 8: the 8 bits share a word
  }
  markRange(query, query_count, signatures, b, n, threshold, marks);
}

bool hasVectorPopcount() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
  return has;
}
#endif

}  // namespace

void markMatches(const std::uint64_t* query, std::size_t query_count, const std::uint64_t* signatures,
                 std::size_t n, int threshold, std::vector<std::uint64_t>& marks) {
#if defined(__x86_64__)
  if (hasVectorPopcount()) {
    marks.assign((n + 63) / 64, 0);
    markAvx512(query, query_count, signatures, n, threshold, marks);
    return;
  }
#endif
  markMatchesScalar(query, query_count, signatures, n, threshold, marks);
}

void markMatchesScalar(const std::uint64_t* query, std::size_t query_count, const std::uint64_t* signatures,
                       std::size_t n, int threshold, std::vector<std::uint64_t>& marks) {
  marks.assign((n + 63) / 64, 0);
  markRange(query, query_count, signatures, 0, n, threshold, marks);
}

std::size_t nextMark(const std::vector<std::uint64_t>& marks, std::size_t from, std::size_t n) {
  if (from >= n) return n;
  std::size_t word = from / 64;
  std::uint64_t bits = marks[word] & (~std::uint64_t{0} << (from % 64));
  while (bits == 0) {
    if (++word == marks.size()) return n;
    bits = marks[word];
  }
  return word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
}

}  // namespace bovw::retrieval_detail
