// The CPU nearest-word search: the golden reference. Each distance is the plain float sum of
// (x_k - c_k)^2 in feature order k = 0..D-1, exactly as a naive loop would compute it, with no FMA;
// the scan itself (words transposed so SIMD lanes run over words, 4 descriptors x 16 words of running
// sums in registers, AVX-512/AVX2/baseline chosen at run time) lives in golden_scan.cpp, which the
// OpenMPTiled backend shares for its re-checks.
#include "cpu/cpu_histogrammer.hpp"

#include "cpu/golden_scan.hpp"

#include <chrono>
#include <string>

namespace bovw::detail {

namespace {

class CpuHistogrammer final : public CpuBackend {
 public:
  explicit CpuHistogrammer(int threads) : CpuBackend(threads) {}

  std::string description() const override {
    return threadSetting() == 1 ? "serial (1 thread)" : "openmp (" + std::to_string(threadCount()) + " threads)";
  }

 protected:
  void computeImpl(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                   std::int32_t* assignments, Histograms& histograms, StageTimes& times) override {
    const auto start = std::chrono::steady_clock::now();
    prepareGolden(vocabulary);
    goldenNearestWords(batch.descriptors(), nullptr, batch.descriptors().rows(), goldenWords(), assignments,
                       threadCount());
    countWords(batch, assignments, histograms);
    times.kernel_ms = millisecondsSince(start);
  }
};

}  // namespace

std::unique_ptr<Histogrammer> makeCpuHistogrammer(int threads) {
  return std::make_unique<CpuHistogrammer>(threads);
}

}  // namespace bovw::detail
