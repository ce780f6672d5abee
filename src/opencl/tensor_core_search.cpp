// The tensor-core search (kernels/tiled_tensor.cl) on the host side: the words in B-fragment order,
// rounded as the device rounds its operands (TF32 as cvt.rna, or FP16 to nearest even), their
// starting scores, and the two launches (the certified tensor-core pass, then the exact re-check of
// what it could not certify). On NVIDIA devices the products run on mma.sync; elsewhere the kernel
// emulates it (tests only: slow).
#include "opencl/device_search.hpp"
#include "opencl/exact_recheck.hpp"

#include <bovw/error.hpp>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace bovw::detail {

namespace {

// cvt.rna.tf32.f32 on the host: the nearest TF32 value, ties away from zero (10 stored bits).
float roundToTf32(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

// The tensor cores' operand format. FP16 has TF32's 11-bit significand, so the same certificate
// holds, and mma.sync runs it at twice the rate from half the bytes; but its range is narrower.
enum class Operands { TF32, FP16 };

// The FP16 operand of a value (Eigen's conversion: to nearest, ties to even, subnormals, infinity
// past 65504), as bits and as a float.
std::uint16_t fp16Bits(float value) { return Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(value)); }
float roundToFp16(float value) { return static_cast<float>(Eigen::half(value)); }

float roundOperand(float value, Operands operands) {
  return operands == Operands::FP16 ? roundToFp16(value) : roundToTf32(value);
}

// A vocabulary runs on FP16 operands only if every value is within FP16's range and the words'
// relative rounding (rho, below) stays near TF32's 2^-11: FP16's subnormals (below 2^-14) round
// more coarsely, and a larger rho widens every row's margin.
constexpr double kLargestFp16 = 65504;
constexpr double kFp16RhoLimit = 0x1.0p-10;

// n-tiles of 8 words in one block of the kernel's word loop (BOVW_BLOCK_TILES in tiled_tensor.cl).
constexpr int kBlockTiles = 128;

// The shape of a work-group: warps, 16-row m-tiles per warp, 8-word n-tiles per step, n-tiles per
// chunk staged in local memory. From TileSizes: group_rows = warps, rows_per_item = m-tiles,
// words_per_item = n-tiles, depth = staged n-tiles (1: none, the warps read global memory).
struct TensorShape {
  int warps, m_tiles, n_tiles, stage;
};

TensorShape checkedShape(const TileSizes& t) {
  const TensorShape shape{t.group_rows, t.rows_per_item, t.words_per_item, t.depth == 1 ? 0 : t.depth};
  auto refuse = [](const char* what, int value, const std::string& rule) {
    throw InvalidInput(std::string("tile sizes for tiled-tf32 and tiled-fp16: ") + what + " = " +
                       std::to_string(value) + " " + rule);
  };
  auto check = [&](int value, int most, const char* what) {
    if (value < 1 || value > most) refuse(what, value, "must be 1.." + std::to_string(most));
  };
  check(shape.warps, 16, "warps per group");
  check(shape.m_tiles, 4, "16-row tiles per warp");
  // A step must not straddle two blocks of the word loop: the lane's running index has 8 bits.
  if (shape.n_tiles != 1 && shape.n_tiles != 2 && shape.n_tiles != 4)
    refuse("8-word tiles per step", shape.n_tiles, "must be 1, 2 or 4");
  if (shape.stage != 0 && (shape.stage % shape.n_tiles != 0 || kBlockTiles % shape.stage != 0))
    refuse("8-word tiles staged in local memory", shape.stage,
           "must be 1 (none) or a multiple of the tiles per step that divides " + std::to_string(kBlockTiles));
  return shape;
}

const char* nameOf(Operands operands) { return operands == Operands::FP16 ? "tiled-fp16" : "tiled-tf32"; }

class TensorCoreSearch final : public DeviceSearch {
 public:
  TensorCoreSearch(DeviceContext& device, const HistogrammerConfig& config, Operands operands)
      : device_(device),
        asked_(operands),
        operands_(operands),
        shape_(checkedShape(config.tiles)),
        ptx_(device.info().vendor.find("NVIDIA") != std::string::npos),
        block_words_(8 * shape_.n_tiles),
        recheck_(device, config.work_group_size),
        extra_options_(config.build_options) {}

  std::string describe() const override {
    if (kernels_width_ < 0)  // the layout depends on D: as asked, until the first batch
      return std::string(nameOf(asked_)) + " (" + std::to_string(shape_.warps) + " warps of " + std::to_string(shape_.m_tiles) +
             "x16 rows, " + std::to_string(shape_.n_tiles) + "x8 words per step, " +
             std::to_string(8 * shape_.stage) + " words staged; fewer m-tiles and more warps at large D)" +
             (ptx_ ? ", mma.sync" : ", mma emulated");
    const std::string fell_back =
        operands_ != asked_ ? " (TF32 operands: the vocabulary's values are outside FP16's range)" : "";
    return std::string(nameOf(operands_)) + fell_back + " " + std::to_string(block_rows_) + " rows per group (" +
           std::to_string(warps_) + " warps of " + std::to_string(m_tiles_) + "x16 rows, " +
           std::to_string(shape_.n_tiles) + "x8 words per step, " +
           (stage_ > 0 ? "words staged in local memory " + std::to_string(8 * stage_) + " at a time"
                       : "words read from global memory") +
           ")" + (ptx_ ? ", mma.sync" : ", mma emulated") +
           ", re-check work-group " + std::to_string(recheck_.groupSize());
  }

  void prepare(int d) override {
    if (d == kernels_width_ && operands_ == kernels_operands_) return;
    // A warp holds its rows' A fragments in 4 x m-tiles x k-steps registers (a k-step: 8 TF32
    // features, 16 FP16): at most 64, or the kernel spills (D = 128 with 2 TF32 m-tiles ran 2.4x
    // slower than D = 64 instead of 2x).
    m_tiles_ = std::max(1, std::min(shape_.m_tiles, 16 / kSteps(d)));
    // Fewer m-tiles take more warps (up to 8), so that the group keeps its rows: every group reads
    // all K words, and the fewer its rows the more that costs (an H200 at D = 128: 2 m-tiles capped
    // to 1 ran 1M x 1,024 in 4.12 ms with 4 warps, 3.82 with 8; docs/PERFORMANCE.md).
    warps_ = std::max(shape_.warps,
                      std::min(8, (shape_.warps * shape_.m_tiles + m_tiles_ - 1) / m_tiles_));
    threads_ = 32 * warps_;
    if (static_cast<std::size_t>(threads_) > device_.info().max_work_group_size)
      throw CapacityError(std::string(nameOf(asked_)) + ": " + std::to_string(threads_) +
                          " work-items per group exceed " + device_.info().name + "'s maximum of " +
                          std::to_string(device_.info().max_work_group_size));
    block_rows_ = 16 * m_tiles_ * warps_;
    // The group's local memory beside the chunks, per row: its quad's top threes and words, its
    // norms, two slots of golden distances and a flag; and two counters.
    const std::uint64_t merge_bytes = static_cast<std::uint64_t>(block_rows_) * ((4 * (3 + 2) + 3 + 2) * 4 + 1) + 8;
    // The staged chunk shrinks (halving keeps it a divisor of the block) until the group's local
    // memory fits its two chunk buffers: the default shape must run at every D. Below one step, no
    // staging. A tile's bytes: its B fragments, and the 8 starting values.
    const std::uint64_t tile_bytes = static_cast<std::uint64_t>(kSteps(d)) * 32 * 8 + 8 * 4;
    stage_ = shape_.stage;
    while (stage_ >= shape_.n_tiles && merge_bytes + 2 * stage_ * tile_bytes > device_.info().local_memory)
      stage_ /= 2;
    if (stage_ < shape_.n_tiles) stage_ = 0;
    const std::string width = "-cl-std=CL1.2 -DBOVW_D=" + std::to_string(d);
    const std::string options = width + " -DBOVW_MT=" + std::to_string(m_tiles_) +
                                " -DBOVW_NT=" + std::to_string(shape_.n_tiles) +
                                " -DBOVW_WARPS=" + std::to_string(warps_) +
                                " -DBOVW_STAGE=" + std::to_string(stage_) +
                                " -DBOVW_F16=" + (operands_ == Operands::FP16 ? "1" : "0") +
                                " -DBOVW_PTX_MMA=" + (ptx_ ? "1 " : "0 ") + extra_options_;
    search_ = device_.programs().kernel("tiled_tensor", "histogram_tiled_tensor", options);
    const auto limit = search_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_.device());
    if (static_cast<std::size_t>(threads_) > limit)
      throw CapacityError("kernel 'histogram_tiled_tensor' can run at most " + std::to_string(limit) +
                          " work-items per group on " + device_.info().name + ", asked for " +
                          std::to_string(threads_) + ": choose fewer warps");
    recheck_.prepare(width + recheck_.options(d));
    kernels_width_ = d;
    kernels_operands_ = operands_;
  }

  void setVocabulary(const Vocabulary& vocabulary) override {
    if (vocabulary.id() == vocabulary_id_) return;
    vocabulary_id_ = 0;
    const int k = vocabulary.size();
    const int d = vocabulary.dimension();
    const int k_padded = static_cast<int>(roundUp(k, block_words_));
    words_ = uploadResidentWords(device_.context(), vocabulary, k_padded, d);
    const auto& c = vocabulary.centroids();

    // Starting scores -||c||^2 / 2 (the norms rounded once from float64, as in the FP32 path);
    // padding words start so low that they never come near, yet e stays finite. And rho, the
    // largest relative rounding of a word, rounded up (kernels/tensor_certificate.h): FP16 operands
    // where the vocabulary allows them (kFp16RhoLimit), else TF32 (recompiled if need be).
    std::vector<float> starts(k_padded, -0x1.0p125f);
    for (int j = 0; j < k; ++j) {
      double norm = 0;
      for (int f = 0; f < d; ++f) norm += static_cast<double>(c(j, f)) * c(j, f);
      starts[j] = static_cast<float>(-0.5 * norm);
    }
    operands_ = asked_;
    double rho = relativeRounding(c, operands_);
    if (operands_ == Operands::FP16 && !(rho <= kFp16RhoLimit)) {
      operands_ = Operands::TF32;
      rho = relativeRounding(c, operands_);
    }
    rho_ = static_cast<float>(rho * (1 + 1e-6));
    if (kernels_width_ == d) prepare(d);  // the operands changed under a prepared width

    // B fragments: n-tile, k-step, lane, two 32-bit registers, zeros past K and D. Lane g * 4 + t
    // holds word g of the tile: TF32 features t and t + 4 of the 8 of a step; FP16 pairs
    // {2t, 2t + 1} and {2t + 8, 2t + 9} of the 16 of a step, the lower feature in the low half.
    const int steps = kSteps(d), pair = operands_ == Operands::FP16 ? 2 : 1;
    std::vector<std::uint32_t> fragments(static_cast<std::size_t>(k_padded / 8) * steps * 64, 0u);
    for (int tile = 0; tile < k_padded / 8; ++tile)
      for (int step = 0; step < steps; ++step)
        for (int lane = 0; lane < 32; ++lane) {
          const int word = tile * 8 + lane / 4;
          std::uint32_t* out = &fragments[((static_cast<std::size_t>(tile) * steps + step) * 32 + lane) * 2];
          for (int reg = 0; reg < 2; ++reg)
            for (int e = 0; e < pair; ++e) {
              const int feature = step * 8 * pair + pair * (lane % 4) + 4 * pair * reg + e;
              const float value = word < k && feature < d ? c(word, feature) : 0.0f;
              if (operands_ == Operands::FP16) {
                out[reg] |= static_cast<std::uint32_t>(fp16Bits(value)) << (16 * e);
              } else {
                const float rounded = roundToTf32(value);
                std::memcpy(&out[reg], &rounded, sizeof rounded);
              }
            }
        }
    auto upload = [&](auto& data) {
      return cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        sizeof(data[0]) * data.size(), data.data());
    };
    fragments_ = upload(fragments);
    starts_ = upload(starts);
    // The words as rows, for the golden distances the kernel sums itself (16-byte loads a row).
    word_rows_ = cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            sizeof(float) * static_cast<std::size_t>(c.size()), const_cast<float*>(c.data()));
    // A lane's index in a block of the word loop (kernels/tiled_tensor.cl: 128 n-tiles, 2 per tile).
    const int indices = std::min(k_padded / 4, 256);
    index_bits_ = 1;
    while ((1 << index_bits_) < indices) ++index_bits_;
    vocabulary_id_ = vocabulary.id();
  }

  std::uint64_t extraBytes(int n, int d, const Vocabulary& vocabulary) const override {
    const std::uint64_t k_padded = roundUp(vocabulary.size(), block_words_);
    const std::uint64_t words = sizeof(float) * (static_cast<std::uint64_t>(d) * k_padded + k_padded +  // exact
                                                 roundUp(d, 8) * k_padded + k_padded +  // TF32 (FP16: less)
                                                 static_cast<std::uint64_t>(d) * vocabulary.size());  // rows
    return words + sizeof(cl_int) * (static_cast<std::uint64_t>(n) + 1);
  }

  void enqueue(cl::CommandQueue& queue, const DeviceBatch& batch, SearchEvents& events) override {
    const int n = batch.n;
    recheck_.begin(queue, n);
    int a = 0;
    search_.setArg(a++, batch.descriptors);
    search_.setArg(a++, cl_int{n});
    search_.setArg(a++, cl_int{batch.row_base});
    search_.setArg(a++, fragments_);
    search_.setArg(a++, starts_);
    search_.setArg(a++, word_rows_);
    search_.setArg(a++, words_.norms);
    search_.setArg(a++, cl_int{words_.n_words});
    search_.setArg(a++, cl_int{words_.k_padded});
    search_.setArg(a++, cl_float{words_.max_norm});
    search_.setArg(a++, cl_float{rho_});
    search_.setArg(a++, cl_int{index_bits_});
    search_.setArg(a++, batch.offsets);
    search_.setArg(a++, cl_int{batch.images});
    search_.setArg(a++, batch.best_word);
    search_.setArg(a++, batch.histograms);
    search_.setArg(a++, recheck_.flagged());
    search_.setArg(a++, recheck_.count());
    const std::size_t groups = (static_cast<std::size_t>(n) + block_rows_ - 1) / block_rows_;
    events.kernels.emplace_back();
    queue.enqueueNDRangeKernel(search_, cl::NullRange, cl::NDRange(groups * threads_), cl::NDRange(threads_),
                               nullptr, &events.kernels.back());
    recheck_.enqueue(queue, batch, words_, events);
  }

  void startCall() override { recheck_.startCall(); }
  std::int64_t rechecked() const override { return recheck_.rechecked(); }
  std::int64_t fullyRechecked() const override { return recheck_.fullyRechecked(); }

 private:
  // k-steps of the mma over d features: 8 TF32 features a step, 16 FP16.
  int kSteps(int d) const { return operands_ == Operands::FP16 ? (d + 15) / 16 : (d + 7) / 8; }

  // max_j ||c~_j - c_j|| / ||c_j||, c~ the words as `operands` (infinite past FP16's range).
  static double relativeRounding(const Descriptors& c, Operands operands) {
    double rho = 0;
    for (Eigen::Index j = 0; j < c.rows(); ++j) {
      double norm = 0, rounding = 0;
      for (Eigen::Index f = 0; f < c.cols(); ++f) {
        if (operands == Operands::FP16 && !(std::fabs(c(j, f)) <= kLargestFp16))
          return std::numeric_limits<double>::infinity();
        const double delta = static_cast<double>(roundOperand(c(j, f), operands)) - c(j, f);
        norm += static_cast<double>(c(j, f)) * c(j, f);
        rounding += delta * delta;
      }
      if (norm > 0) rho = std::max(rho, std::sqrt(rounding / norm));
    }
    return rho;
  }

  DeviceContext& device_;
  Operands asked_;     // the variant's operands
  Operands operands_;  // what runs: TF32 where the vocabulary does not suit FP16 (setVocabulary)
  TensorShape shape_;
  bool ptx_;  // NVIDIA: mma.sync and cvt.rna through inline PTX
  int m_tiles_ = 1;     // shape_.m_tiles, capped for the width (prepare)
  int warps_ = 1;       // shape_.warps, raised where m-tiles were capped (prepare)
  int threads_ = 32;    // work-items per group: 32 per warp
  int block_rows_ = 0;  // rows per work-group, for the width
  int stage_ = 0;       // shape_.stage, shrunk to the device's local memory for the width (prepare)
  int block_words_;
  ExactRecheck recheck_;
  std::string extra_options_;

  int kernels_width_ = -1;
  Operands kernels_operands_ = Operands::TF32;
  cl::Kernel search_;

  std::uint64_t vocabulary_id_ = 0;
  ResidentWords words_;
  cl::Buffer fragments_, starts_, word_rows_;
  float rho_ = 0;
  int index_bits_ = 1;
};

}  // namespace

std::unique_ptr<DeviceSearch> makeTensorCoreSearch(DeviceContext& device, const HistogrammerConfig& config) {
  return std::make_unique<TensorCoreSearch>(
      device, config, config.variant == KernelVariant::TiledFP16 ? Operands::FP16 : Operands::TF32);
}

}  // namespace bovw::detail
