// OpenMPTiled: the nearest word as argmin_j e_j with e_j = ||c_j||^2 - 2 x.c_j (||x||^2 does not
// change the argmin). The x.c_j of a few descriptors against a panel of words is a small matrix
// product, computed like a register-blocked GEMM: a block of MR descriptors x 2 vectors of words of
// running sums stays in registers across the feature loop (AVX-512: 12 x 32, AVX2: 6 x 16, baseline
// SSE2: 4 x 8; one kernel per target, chosen at run time), and the argmin is fused into it, so no
// N x K matrix is ever written. Each sum starts at ||c_j||^2 and adds (-2 x_k) c_k with FMA (this
// file may contract; src/CMakeLists.txt).
//
// Exactness. Per descriptor the kernel keeps the smallest e (best1, its word b) and the second
// smallest (best2). If best2 - best1 > margin (below), b is the golden answer (the OpenMP backend's:
// plain float sums of (x_k - c_k)^2 in feature order, no FMA, ties to the lower word). Otherwise the
// descriptor is scanned again with that very golden code (golden_scan.cpp), so results equal the
// OpenMP backend's on every input. NaN or inf anywhere makes the test false, which re-checks.
//
// The margin: the bound of the OpenCL Tiled kernel (kernels/tiled.cl, docs/KERNELS.md). With
// u = 2^-24, g = gamma_{D+2} = (D+2)u / (1 - (D+2)u), a = ||x||, nb = ||c_b||, d_j = ||x - c_j||^2
// exact, and j* the golden answer:
//  - golden: the computed G_j = fl(sum (x_k - c_k)^2) is within g d_j of d_j (a subtraction, a square
//    and at most D-1 additions: D+2 roundings on any path);
//  - expanded: e_j = ||c_j||^2 (summed in double, rounded once) plus D terms (-2x_k) c_jk (FMA, or
//    products and additions) is within g (||c_j||^2 + 2 sum |x_k c_jk|) <= g ||c_j|| (||c_j|| + 2a) of
//    the exact ||c_j||^2 - 2 x.c_j = d_j - a^2 (-2x is exact);
//  - if j* != b, G_j* <= G_b gives d_j* - d_b <= 2g d_b (to first order), and
//      e_j* - e_b <= (d_j* - d_b) + err_j* + err_b <= 2g d_b + g R (R + 2a) + g nb (nb + 2a),
//    where d_b = a^2 + (exact e_b) <= db = ||x||^2 + e_b + g nb (nb + 2a), and ||c_j*|| <= R =
//    min(max_j ||c_j||, a + sqrt(d_j*)) <= min(max ||c||, a + sqrt(db) (1 + 2g)).
// So when every other word has e_j - e_b above that bound, j* = b. The margin is the bound times
// 1.25, which covers the first-order terms and the float evaluation of the bound itself (including
// ||x||^2, which enters db against e_b ~ -||x||^2 and costs at most sqrt(g) a in R). Plus an absolute
// term: each product, FMA or rounding to float may lose up to 2^-150 to underflow, which relative
// bounds miss; at most 4D + 4 such losses enter, far below (D+2) 2^-120. Overflow: while
// S_max = (2a + max ||c||)^2 < 1e30, no e_j, partial sum or distance that the bound uses overflows;
// otherwise (or if S_max is NaN) the descriptor is re-checked.
#include "cpu/tiled_cpu_histogrammer.hpp"

#include "cpu/golden_scan.hpp"

#include <bovw/error.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace bovw::detail {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int kVectorsPerPanel = 2;  // a panel of words is 2 vectors wide
constexpr int kMaxRows = 12;         // the largest MR of the kernels below
constexpr int kMaxPanelWords = 32;   // the widest panel (AVX-512: 2 x 16 floats)
constexpr int kBlocksPerTile = 8;    // row blocks that share each chunk of words while it is in cache
constexpr std::size_t kChunkBytes = 128 * 1024;  // packed words per chunk: fits any L2

// The vocabulary packed for the kernels: panels of `panel_words` words, each panel D x panel_words
// (feature-major, so a feature's words are contiguous vectors). Padding words are 0 with norm +inf:
// their e is +inf and never wins nor comes within the margin.
struct PackedWords {
  int d = 0;
  int panel_words = 0;
  int panels = 0;
  std::vector<float> values;  // panels x D x panel_words
  std::vector<float> norms;   // ||c_j||^2, summed in double and rounded to float; padding +inf
  float max_norm = 0;         // the largest ||c_j|| (for the overflow guard)
};

PackedWords packWords(const Descriptors& c, int panel_words) {
  PackedWords w;
  w.d = static_cast<int>(c.cols());
  w.panel_words = panel_words;
  w.panels = static_cast<int>((c.rows() + panel_words - 1) / panel_words);
  w.values.assign(static_cast<std::size_t>(w.panels) * w.d * panel_words, 0.0f);
  w.norms.assign(static_cast<std::size_t>(w.panels) * panel_words, kInf);
  double max_square = 0;
  for (Eigen::Index j = 0; j < c.rows(); ++j) {
    double square = 0;
    for (Eigen::Index f = 0; f < c.cols(); ++f) square += static_cast<double>(c(j, f)) * c(j, f);
    w.norms[j] = static_cast<float>(square);
    max_square = std::max(max_square, square);
    const std::size_t panel = static_cast<std::size_t>(j / panel_words), lane = static_cast<std::size_t>(j % panel_words);
    for (Eigen::Index f = 0; f < c.cols(); ++f)
      w.values[(panel * w.d + static_cast<std::size_t>(f)) * panel_words + lane] = c(j, f);
  }
  w.max_norm = static_cast<float>(std::sqrt(max_square));
  return w;
}

// Per row block: for every (row, lane) the smallest and second-smallest e seen in that lane and the
// panel of the smallest, row-major MR x panel_words. Kept in memory between chunks of words.
struct LaneBests {
  float best1[kMaxRows * kMaxPanelWords];
  float best2[kMaxRows * kMaxPanelWords];
  std::int32_t panel[kMaxRows * kMaxPanelWords];

  void reset(int values) {
    std::fill(best1, best1 + values, kInf);
    std::fill(best2, best2 + values, kInf);
    std::fill(panel, panel + values, 0);
  }
};

typedef float Float16 __attribute__((vector_size(64)));
typedef std::int32_t Int16 __attribute__((vector_size(64)));
typedef float Float8 __attribute__((vector_size(32)));
typedef std::int32_t Int8 __attribute__((vector_size(32)));
typedef float Float4 __attribute__((vector_size(16)));
typedef std::int32_t Int4 __attribute__((vector_size(16)));

// MR rows (given as -2x, feature-major: xs[k * MR + r]) against panels [first, last): e in MR x 2
// vectors of registers per panel, then folded into the lane bests. Inlined into one function per
// target below, which lowers V to that target's registers.
template <int MR, typename V, typename VI>
inline __attribute__((always_inline)) void scanPanels(const float* xs, const PackedWords& w, int first, int last,
                                                      LaneBests& bests) {
  constexpr int kWidth = sizeof(V) / sizeof(float);
  constexpr int kNV = kVectorsPerPanel;
  constexpr int kPanelWords = kWidth * kNV;
  static_assert(MR <= kMaxRows && kPanelWords <= kMaxPanelWords, "LaneBests is too small for this kernel");
  const int d = w.d;
  V best1[MR][kNV], best2[MR][kNV];
  VI panel_of[MR][kNV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < kNV; ++v) {
      std::memcpy(&best1[r][v], bests.best1 + r * kPanelWords + v * kWidth, sizeof(V));
      std::memcpy(&best2[r][v], bests.best2 + r * kPanelWords + v * kWidth, sizeof(V));
      std::memcpy(&panel_of[r][v], bests.panel + r * kPanelWords + v * kWidth, sizeof(VI));
    }
  for (int p = first; p < last; ++p) {
    const float* words = w.values.data() + static_cast<std::size_t>(p) * d * kPanelWords;
    V acc[MR][kNV];
    for (int v = 0; v < kNV; ++v) {
      V norm;
      std::memcpy(&norm, w.norms.data() + static_cast<std::size_t>(p) * kPanelWords + v * kWidth, sizeof(V));
      for (int r = 0; r < MR; ++r) acc[r][v] = norm;
    }
    for (int k = 0; k < d; ++k) {
      V c[kNV];
      for (int v = 0; v < kNV; ++v) std::memcpy(&c[v], words + k * kPanelWords + v * kWidth, sizeof(V));
      for (int r = 0; r < MR; ++r) {
        const float x = xs[k * MR + r];
        for (int v = 0; v < kNV; ++v) acc[r][v] += x * c[v];
      }
    }
    // best2 = the second smallest of {best1, best2, e}; best1 and its panel replaced only when e
    // is strictly smaller (an equal e makes best2 == best1: a tie, which the margin re-checks).
    const VI this_panel = VI{} + p;
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < kNV; ++v) {
        const V e = acc[r][v];
        const VI nearer = e < best1[r][v];
        const V runner_up = best1[r][v] < e ? e : best1[r][v];
        best2[r][v] = runner_up < best2[r][v] ? runner_up : best2[r][v];
        best1[r][v] = nearer ? e : best1[r][v];
        panel_of[r][v] = nearer ? this_panel : panel_of[r][v];
      }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < kNV; ++v) {
      std::memcpy(bests.best1 + r * kPanelWords + v * kWidth, &best1[r][v], sizeof(V));
      std::memcpy(bests.best2 + r * kPanelWords + v * kWidth, &best2[r][v], sizeof(V));
      std::memcpy(bests.panel + r * kPanelWords + v * kWidth, &panel_of[r][v], sizeof(VI));
    }
}

using ScanFunction = void (*)(const float*, const PackedWords&, int, int, LaneBests&);

__attribute__((target("avx512f,fma"))) void scanPanelsAvx512(const float* xs, const PackedWords& w, int first,
                                                             int last, LaneBests& bests) {
  scanPanels<12, Float16, Int16>(xs, w, first, last, bests);
}

__attribute__((target("avx2,fma"))) void scanPanelsAvx2(const float* xs, const PackedWords& w, int first,
                                                        int last, LaneBests& bests) {
  scanPanels<6, Float8, Int8>(xs, w, first, last, bests);
}

void scanPanelsBaseline(const float* xs, const PackedWords& w, int first, int last, LaneBests& bests) {
  scanPanels<4, Float4, Int4>(xs, w, first, last, bests);
}

struct Kernel {
  const char* name;
  int rows;         // MR
  int panel_words;  // 2 vectors of the target
  ScanFunction scan;
  bool supported;
};

// The widest kernel this CPU runs; $BOVW_CPU_KERNEL (avx512, avx2 or sse2) caps it, so that the tests
// can check the narrower kernels on a wider CPU.
Kernel selectKernel() {
  __builtin_cpu_init();
  const bool fma = __builtin_cpu_supports("fma");
  const Kernel kernels[] = {
      {"avx512", 12, 32, scanPanelsAvx512, __builtin_cpu_supports("avx512f") && fma},
      {"avx2", 6, 16, scanPanelsAvx2, __builtin_cpu_supports("avx2") && fma},
      {"sse2", 4, 8, scanPanelsBaseline, true}};
  std::size_t first = 0;
  if (const char* cap = std::getenv("BOVW_CPU_KERNEL"); cap && *cap) {
    while (first < std::size(kernels) && std::string_view(cap) != kernels[first].name) ++first;
    if (first == std::size(kernels))
      throw InvalidInput("BOVW_CPU_KERNEL='" + std::string(cap) + "'; valid: avx512, avx2, sse2");
  }
  while (!kernels[first].supported) ++first;
  return kernels[first];
}

struct Candidate {
  float best1;
  float best2;
  std::int32_t word;
};

// The lanes of one row folded into its smallest e, its word and the second-smallest e.
Candidate foldLanes(const LaneBests& bests, int row, int panel_words) {
  Candidate c{kInf, kInf, 0};
  for (int lane = 0; lane < panel_words; ++lane) {
    const int i = row * panel_words + lane;
    c.best2 = std::min(c.best2, bests.best2[i]);
    if (bests.best1[i] < c.best1) {
      c.best2 = std::min(c.best2, c.best1);
      c.best1 = bests.best1[i];
      c.word = bests.panel[i] * panel_words + lane;
    } else {
      c.best2 = std::min(c.best2, bests.best1[i]);
    }
  }
  return c;
}

// True when the candidate is provably the golden answer (the derivation is at the top of the file).
bool decided(const float* x, const PackedWords& w, const Candidate& c) {
  float xx = 0;
  for (int k = 0; k < w.d; ++k) xx += x[k] * x[k];
  const float g = static_cast<float>(w.d + 2) * 0x1p-24f;
  const float nx = std::sqrt(xx);
  const float nb = std::sqrt(w.norms[c.word]);
  const float db = std::max(xx + c.best1 + g * nb * (nb + 2 * nx), 0.0f);
  const float r = std::min(w.max_norm, nx + std::sqrt(db) * (1 + 2 * g));
  const float margin = 1.25f * g * (2 * db + r * (r + 2 * nx) + nb * (nb + 2 * nx)) +
                       static_cast<float>(w.d + 2) * 0x1p-120f;
  const float s_max = (2 * nx + w.max_norm) * (2 * nx + w.max_norm);
  return s_max < 1e30f && c.best2 - c.best1 > margin;
}

class TiledCpuHistogrammer final : public CpuBackend {
 public:
  explicit TiledCpuHistogrammer(int threads) : CpuBackend(threads), kernel_(selectKernel()) {}

  std::string description() const override {
    return "openmp-tiled (" + std::to_string(threadCount()) + " threads, " + kernel_.name + ")";
  }

 protected:
  void computeImpl(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                   std::int32_t* assignments, Histograms& histograms, StageTimes& times) override {
    const auto start = std::chrono::steady_clock::now();
    prepare(vocabulary);
    const auto& x = batch.descriptors();
    const std::int64_t n = x.rows();
    const int d = packed_.d;
    const int mr = kernel_.rows;
    const std::int64_t tile_rows = static_cast<std::int64_t>(mr) * kBlocksPerTile;
    const std::int64_t tiles = (n + tile_rows - 1) / tile_rows;
    const int chunk_panels = std::max<int>(
        1, static_cast<int>(kChunkBytes / (sizeof(float) * static_cast<std::size_t>(d) * kernel_.panel_words)));
    const int threads = threadCount();
    std::vector<std::vector<std::int64_t>> undecided(static_cast<std::size_t>(threads));

#pragma omp parallel num_threads(threads)
    {
      std::vector<float> xs(static_cast<std::size_t>(tile_rows) * d);  // -2x of the tile, per block D x MR
      std::vector<LaneBests> bests(kBlocksPerTile);
      auto& mine = undecided[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
      for (std::int64_t tile = 0; tile < tiles; ++tile) {
        const std::int64_t first_row = tile * tile_rows;
        const int blocks = static_cast<int>(std::min<std::int64_t>(kBlocksPerTile, (n - first_row + mr - 1) / mr));
        // Rows past the end repeat the last row (their results are discarded).
        for (int i = 0; i < blocks * mr; ++i) {
          const float* row = x.row(std::min(first_row + i, n - 1)).data();
          float* block = xs.data() + static_cast<std::size_t>(i / mr) * d * mr;
          for (int k = 0; k < d; ++k) block[k * mr + i % mr] = -2.0f * row[k];
        }
        for (int b = 0; b < blocks; ++b) bests[b].reset(mr * kernel_.panel_words);
        for (int p = 0; p < packed_.panels; p += chunk_panels)
          for (int b = 0; b < blocks; ++b)
            kernel_.scan(xs.data() + static_cast<std::size_t>(b) * d * mr, packed_, p,
                         std::min(p + chunk_panels, packed_.panels), bests[b]);
        for (int i = 0; i < blocks * mr && first_row + i < n; ++i) {
          const Candidate c = foldLanes(bests[i / mr], i % mr, kernel_.panel_words);
          if (decided(x.row(first_row + i).data(), packed_, c))
            assignments[first_row + i] = c.word;
          else
            mine.push_back(first_row + i);
        }
      }
    }

    const auto recheck_start = std::chrono::steady_clock::now();
    std::vector<std::int64_t> recheck;
    for (const auto& rows : undecided) recheck.insert(recheck.end(), rows.begin(), rows.end());
    goldenNearestWords(x, recheck.data(), static_cast<std::int64_t>(recheck.size()), goldenWords(), assignments,
                       threads);
    times.recheck_ms = millisecondsSince(recheck_start);
    times.rechecked_rows = times.fully_rechecked_rows = static_cast<std::int64_t>(recheck.size());
    countWords(batch, assignments, histograms);
    times.kernel_ms = millisecondsSince(start);
  }

 private:
  // Packs the words again when the vocabulary changed (Vocabulary::id()), with its golden layout.
  void prepare(const Vocabulary& vocabulary) {
    if (prepareGolden(vocabulary)) packed_ = packWords(vocabulary.centroids(), kernel_.panel_words);
  }

  Kernel kernel_;
  PackedWords packed_;
};

}  // namespace

std::unique_ptr<Histogrammer> makeTiledCpuHistogrammer(int threads) {
  return std::make_unique<TiledCpuHistogrammer>(threads);
}

}  // namespace bovw::detail
