// Sparse accumulate microbenchmark: segments of sorted random ids within a block of B images.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>
using Clock = std::chrono::steady_clock;
struct List { std::vector<uint32_t> ids; std::vector<uint16_t> counts; double q, idf; };
static double table[256];
template <int V>
__attribute__((noinline)) void run(const std::vector<List>& lists, double* score, const double* scale, double* pairs, uint32_t begin, uint32_t end) {
  for (const List& l : lists) {
    const uint32_t* ids = l.ids.data(); const uint16_t* counts = l.counts.data();
    const size_t n = l.ids.size();
    const double q = l.q, idf = l.idf;
    uint16_t largest = 0;
    if (V == 0) {
      for (size_t i = 0; i < n && ids[i] < end; ++i) {
        uint32_t id = ids[i]; uint16_t c = counts[i]; largest = std::max(largest, c);
        double d = table[c < 256 ? c : 0] * idf * scale[id];
        score[id] += std::min(q, d);
      }
    } else if (V == 1) {  // 16-entry per-word table, no largest
      double tw[16]; for (int c = 0; c < 16; ++c) tw[c] = table[c] * idf;
      for (size_t i = 0; i < n && ids[i] < end; ++i) {
        uint32_t id = ids[i]; uint16_t c = counts[i]; largest = std::max(largest, c);
        double d = tw[c < 16 ? c : 0] * scale[id];
        score[id] += std::min(q, d);
      }
    } else if (V == 2) {  // AoS pairs
      for (size_t i = 0; i < n && ids[i] < end; ++i) {
        uint32_t id = ids[i]; uint16_t c = counts[i]; largest = std::max(largest, c);
        double d = table[c < 256 ? c : 0] * idf * pairs[2 * id + 1];
        pairs[2 * id] += std::min(q, d);
      }
    } else if (V == 3) {  // unrolled by 4, all loads first
      size_t i = 0;
      for (; i + 4 <= n && ids[i + 3] < end; i += 4) {
        uint32_t a = ids[i], b = ids[i+1], c2 = ids[i+2], e = ids[i+3];
        double da = table[counts[i] < 256 ? counts[i] : 0] * idf * scale[a];
        double db = table[counts[i+1] < 256 ? counts[i+1] : 0] * idf * scale[b];
        double dc = table[counts[i+2] < 256 ? counts[i+2] : 0] * idf * scale[c2];
        double de = table[counts[i+3] < 256 ? counts[i+3] : 0] * idf * scale[e];
        double sa = score[a], sb = score[b], sc = score[c2], se = score[e];
        score[a] = sa + std::min(q, da); score[b] = sb + std::min(q, db); score[c2] = sc + std::min(q, dc); score[e] = se + std::min(q, de);
      }
      for (; i < n && ids[i] < end; ++i) {
        uint32_t id = ids[i]; uint16_t c = counts[i];
        double d = table[c < 256 ? c : 0] * idf * scale[id];
        score[id] += std::min(q, d);
      }
    }
    if (largest > 60000) score[0] += 1;
  }
}
int main(int argc, char** argv) {
  const uint32_t B = argc > 1 ? atoi(argv[1]) : 16384;
  std::mt19937_64 rng(1);
  for (int c = 0; c < 256; ++c) table[c] = c == 0 ? 0 : 1.0 + std::log(c);
  std::vector<List> lists(300);
  size_t total = 0;
  for (auto& l : lists) {
    double p = std::uniform_real_distribution<double>(0.005, 0.19)(rng);
    std::bernoulli_distribution in(p); std::geometric_distribution<int> extra(0.6);
    for (uint32_t id = 0; id < B; ++id) if (in(rng)) { l.ids.push_back(id); l.counts.push_back(1 + extra(rng)); }
    l.q = 0.01; l.idf = 2.5; total += l.ids.size();
  }
  std::vector<double> score(B, 0), scale(B), pairs(2 * B, 0);
  for (uint32_t i = 0; i < B; ++i) { scale[i] = 1e-3 * (1 + i % 7); pairs[2*i+1] = scale[i]; }
  for (int rep = 0; rep < 3; ++rep)
  for (int v = 0; v < 4; ++v) {
    std::vector<double> t;
    for (int r = 0; r < 30; ++r) {
      auto a = Clock::now();
      if (v == 0) run<0>(lists, score.data(), scale.data(), pairs.data(), 0, B);
      if (v == 1) run<1>(lists, score.data(), scale.data(), pairs.data(), 0, B);
      if (v == 2) run<2>(lists, score.data(), scale.data(), pairs.data(), 0, B);
      if (v == 3) run<3>(lists, score.data(), scale.data(), pairs.data(), 0, B);
      t.push_back(std::chrono::duration<double, std::nano>(Clock::now() - a).count() / total);
    }
    std::sort(t.begin(), t.end());
    printf("B %u variant %d: %.2f ns/posting (postings %zu)\n", B, v, t[t.size()/2], total);
  }
}
