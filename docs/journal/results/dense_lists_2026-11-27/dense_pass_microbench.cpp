// Dense words: one pass per word over a block (today) against one pass over the block adding every
// dense word per chunk of 8 images (scores kept in a register).
#include <immintrin.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>
using Clock = std::chrono::steady_clock;
struct W { const uint8_t* counts; double q; double t[16]; };
__attribute__((target("avx512f"), noinline)) void perWord(const std::vector<W>& ws, const double* scale, double* score, size_t n) {
  for (const W& w : ws) {
    const __m512d lo = _mm512_loadu_pd(w.t), hi = _mm512_loadu_pd(w.t + 8), q = _mm512_set1_pd(w.q);
    const __m512i lim = _mm512_set1_epi64(16);
    for (size_t i = 0; i + 8 <= n; i += 8) {
      __m512i c = _mm512_maskz_cvtepu8_epi64(0xff, _mm_loadl_epi64((const __m128i*)(w.counts + i)));
      __mmask8 m = _mm512_cmplt_epu64_mask(c, lim);
      __m512d d = _mm512_mul_pd(_mm512_maskz_permutex2var_pd(m, lo, c, hi), _mm512_loadu_pd(scale + i));
      _mm512_storeu_pd(score + i, _mm512_add_pd(_mm512_loadu_pd(score + i), _mm512_min_pd(d, q)));
    }
  }
}
__attribute__((target("avx512f"), noinline)) void fused(const std::vector<W>& ws, const double* scale, double* score, size_t n) {
  const __m512i lim = _mm512_set1_epi64(16);
  for (size_t i = 0; i + 8 <= n; i += 8) {
    const __m512d s = _mm512_loadu_pd(scale + i);
    __m512d acc = _mm512_loadu_pd(score + i);
    for (const W& w : ws) {
      __m512i c = _mm512_maskz_cvtepu8_epi64(0xff, _mm_loadl_epi64((const __m128i*)(w.counts + i)));
      __mmask8 m = _mm512_cmplt_epu64_mask(c, lim);
      __m512d d = _mm512_mul_pd(_mm512_maskz_permutex2var_pd(m, _mm512_loadu_pd(w.t), c, _mm512_loadu_pd(w.t + 8)), s);
      acc = _mm512_add_pd(acc, _mm512_min_pd(d, _mm512_set1_pd(w.q)));
    }
    _mm512_storeu_pd(score + i, acc);
  }
}
int main() {
  const size_t n = 16384, words = 48;
  std::mt19937_64 rng(1);
  std::vector<std::vector<uint8_t>> counts(words, std::vector<uint8_t>(n));
  std::vector<W> ws(words);
  for (size_t w = 0; w < words; ++w) {
    double p = std::uniform_real_distribution<double>(0.2, 1.0)(rng);
    for (auto& c : counts[w]) c = std::bernoulli_distribution(p)(rng) ? 1 + std::geometric_distribution<int>(0.6)(rng) % 15 : 0;
    ws[w].counts = counts[w].data(); ws[w].q = 0.01; ws[w].t[0] = 0;
    for (int c = 1; c < 16; ++c) ws[w].t[c] = 1 + std::log(c);
  }
  std::vector<double> scale(n, 0.001), score(n, 0);
  for (int rep = 0; rep < 3; ++rep)
    for (int v = 0; v < 2; ++v) {
      std::vector<double> t;
      for (int r = 0; r < 50; ++r) {
        auto a = Clock::now();
        if (v == 0) perWord(ws, scale.data(), score.data(), n); else fused(ws, scale.data(), score.data(), n);
        t.push_back(std::chrono::duration<double, std::nano>(Clock::now() - a).count() / (n * words));
      }
      std::sort(t.begin(), t.end());
      printf("%s: %.3f ns per image-word\n", v == 0 ? "per word" : "fused   ", t[t.size() / 2]);
    }
}
