// Bad input through the library's public API (issue 2, "Bad input"): each case must raise the
// documented bovw exception kind with a message that names the input and the problem.
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <sys/mman.h>

#include <limits>
#include <optional>
#include <typeinfo>

namespace bovw::test {
namespace {

// Calls `f` and checks it throws E (or a subclass) whose what() contains every needle.
template <typename E, typename F>
testing::AssertionResult throwsWith(F&& f, const std::vector<std::string>& needles, std::string* message = nullptr) {
  try {
    f();
  } catch (const E& e) {
    const std::string what = e.what();
    if (message) *message = what;
    for (const auto& needle : needles)
      if (what.find(needle) == std::string::npos)
        return testing::AssertionFailure() << "message does not mention '" << needle << "': " << what;
    return testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return testing::AssertionFailure() << "threw " << typeid(e).name() << " instead of " << typeid(E).name()
                                       << ": " << e.what();
  } catch (...) {
    return testing::AssertionFailure() << "threw a non-std exception instead of " << typeid(E).name();
  }
  return testing::AssertionFailure() << "did not throw " << typeid(E).name();
}

// Sets (or unsets) an environment variable for one scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1); else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1); else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// --- Data errors, on every backend and variant --------------------------------------------------

class BadData : public testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    if (GetParam().backend == Backend::OpenCL) BOVW_REQUIRE_OPENCL();
    if (GetParam().backend == Backend::OpenMPApproximate) BOVW_REQUIRE_APPROXIMATE_BACKEND();
  }
  std::unique_ptr<Histogrammer> make() { return makeHistogrammer(configFor(GetParam())); }
};

TEST_P(BadData, DescriptorWidthDiffersFromTheVocabulary) {
  BOVW_SEEDED_RNG(rng);
  auto h = make();
  const Vocabulary vocabulary(randomMatrix(rng, 8, 128));
  const Descriptors x = randomMatrix(rng, 10, 64);
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { h->assign(x, vocabulary); }, {"64", "128"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { h->compute(DescriptorBatch(x, {0, 4, 10}), vocabulary); },
                                       {"64", "128"}));
  // An empty array is checked too: 0 x 64 against 128-D words is the wrong file, not "no features".
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { h->assign(Descriptors(0, 64), vocabulary); }, {"64", "128"}));
  // No descriptors at all (an image without features: OpenCV's empty Mat is 0 x 0) and 0 x D are fine.
  EXPECT_TRUE(h->assign(Descriptors(0, 0), vocabulary).empty());
  const Histograms none = h->compute(DescriptorBatch(Descriptors(0, 128), {0, 0}), vocabulary);
  EXPECT_EQ(none.rows(), 1);
  EXPECT_EQ(none.sum(), 0);
}

TEST_P(BadData, NaNOrInfInDescriptorsNamesTheRow) {
  BOVW_SEEDED_RNG(rng);
  auto h = make();
  const Vocabulary vocabulary(randomMatrix(rng, 8, 64));
  const float bad_values[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity()};
  for (float bad : bad_values) {
    for (int row : {0, 17, 99}) {
      Descriptors x = randomMatrix(rng, 100, 64);
      x(row, row % 64) = bad;
      EXPECT_TRUE(throwsWith<InvalidInput>([&] { h->assign(x, vocabulary); }, {"row " + std::to_string(row)}))
          << "value " << bad << " at row " << row;
    }
  }
  // Two bad rows: the first is named.
  Descriptors x = randomMatrix(rng, 100, 64);
  x(80, 3) = bad_values[0];
  x(42, 63) = bad_values[1];
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { h->compute(DescriptorBatch(x, {0, 50, 100}), vocabulary); },
                                       {"row 42"}));
  // The histogrammer is still usable afterwards.
  x(80, 3) = 0.5f;
  x(42, 63) = 0.5f;
  EXPECT_TRUE(matchesBruteForce(x, vocabulary.centroids(), h->assign(x, vocabulary)));
}

// images x K bins beyond the 32-bit index the kernels use: refused before anything is allocated.
TEST_P(BadData, HistogramBinsBeyondTheIndexLimitAreACapacityError) {
  BOVW_SEEDED_RNG(rng);
  auto h = make();
  const Vocabulary vocabulary(randomMatrix(rng, 1 << 16, 1));
  const std::vector<std::int64_t> offsets((1 << 15) + 2, 0);  // 32,769 empty images x 65,536 words
  EXPECT_TRUE(throwsWith<CapacityError>([&] { h->compute(DescriptorBatch(Descriptors(0, 1), offsets), vocabulary); },
                                        {"split the batch"}));
}

// N x D beyond the 32-bit index: a 2^25 x 128 view over a lazily mapped zero region (no memory is
// committed; if the library read it all it would only be slow, never wrong).
TEST_P(BadData, DescriptorValuesBeyondTheIndexLimitAreACapacityError) {
  BOVW_SEEDED_RNG(rng);
  const std::size_t rows = std::size_t{1} << 25, cols = 128, bytes = rows * cols * sizeof(float);
  void* region = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) GTEST_SKIP() << "cannot reserve " << bytes << " bytes of address space";
  const Eigen::Map<const Descriptors> huge(static_cast<const float*>(region), rows, cols);
  const Vocabulary vocabulary(randomMatrix(rng, 4, 128));
  auto h = make();
  EXPECT_TRUE(throwsWith<CapacityError>([&] { h->assign(huge, vocabulary); }, {"split the batch"}));
  ::munmap(region, bytes);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BadData, testing::ValuesIn(allBackendCases()),
                         [](const auto& info) { return caseName(info.param); });
// The approximate backend validates like the others. Its one exactness check above (after the NaN
// rows) holds too: 8 words are fewer than its tree's branching, so every word is checked.
INSTANTIATE_TEST_SUITE_P(Approximate, BadData,
                         testing::Values(BackendCase{Backend::OpenMPApproximate, KernelVariant::Baseline}),
                         [](const auto&) { return std::string("openmp_ann"); });  // no '-' in test names

// --- Vocabulary and batch construction ------------------------------------------------------------

TEST(BadVocabulary, NaNOrInfCentroidsAreRefused) {
  BOVW_SEEDED_RNG(rng);
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    Descriptors c = randomMatrix(rng, 20, 64);
    c(13, 5) = bad;
    EXPECT_TRUE(throwsWith<InvalidInput>([&] { Vocabulary v(c); }, {"NaN"})) << bad;
  }
}

TEST(BadVocabulary, EmptyVocabularyIsRefused) {
  EXPECT_TRUE(throwsWith<InvalidInput>([] { Vocabulary v(Descriptors(0, 64)); }, {"K = 0"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([] { Vocabulary v(Descriptors(5, 0)); }, {"D = 0"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([] { Vocabulary v(Descriptors(0, 0)); }, {}));
}

TEST(BadOffsets, MustStartAtZeroNeverDecreaseAndEndAtN) {
  const Descriptors x = Descriptors::Zero(10, 64);
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { DescriptorBatch b(x, {1, 10}); }, {"offsets", "first", "1"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { DescriptorBatch b(x, {-1, 10}); }, {"offsets", "-1"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { DescriptorBatch b(x, {0, 5, 3, 10}); }, {"offsets", "decrease"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { DescriptorBatch b(x, {0, 5}); }, {"offsets", "10"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { DescriptorBatch b(x, {0, 5, 11}); }, {"offsets", "11"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { DescriptorBatch b(x, {0, 12, 10}); }, {"offsets"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { DescriptorBatch b(x, {}); }, {"offsets"}));
  // Valid edge cases are accepted.
  EXPECT_NO_THROW(DescriptorBatch(x, {0, 0, 10, 10}));
  EXPECT_NO_THROW(DescriptorBatch(Descriptors(0, 64), {0}));
  EXPECT_EQ(DescriptorBatch(x, {0, 0, 10, 10}).imageCount(), 3);
}

// --- Names and configuration ---------------------------------------------------------------------

TEST(Names, UnknownBackendListsTheValidNames) {
  EXPECT_TRUE(throwsWith<InvalidInput>([] { parseBackend("cuda"); }, {"cuda", "serial", "openmp", "opencl"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([] { parseBackend(""); }, {"serial", "openmp", "opencl"}));
  ASSERT_EQ(allBackends().size(), 5u);
  for (Backend b : allBackends()) EXPECT_EQ(parseBackend(toString(b)), b);
}

TEST(Names, UnknownVariantListsTheValidNames) {
  EXPECT_TRUE(throwsWith<InvalidInput>([] { parseKernelVariant("gpu6"); },
                                       {"gpu6", "baseline", "coalesced", "float4", "local", "constant",
                                        "tiled", "tiled-tf32", "tiled-fp16", "auto"}));
  ASSERT_EQ(allKernelVariants().size(), 8u);
  for (KernelVariant v : allKernelVariants()) EXPECT_EQ(parseKernelVariant(toString(v)), v);
  EXPECT_EQ(parseKernelVariant("auto"), KernelVariant::Auto);
}

TEST(Config, NonPositiveWorkGroupOrNegativeThreadsAreRefused) {
  HistogrammerConfig config;
  config.backend = Backend::OpenMP;
  config.threads = -1;
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { makeHistogrammer(config); }, {"threads"}));
  config = {};
  config.backend = Backend::OpenCL;
  config.work_group_size = 0;
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { makeHistogrammer(config); }, {"work-group"}));
  config = {};
  config.backend = Backend::OpenMPApproximate;
  config.approximate_checks = 0;
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { makeHistogrammer(config); }, {"approximate checks", "0"}));
}

// --- Devices ---------------------------------------------------------------------------------------

TEST(BadDevice, UnknownSpecListsTheAvailableDevices) {
  BOVW_REQUIRE_OPENCL();
  const std::string first = listDevices().front().name;
  EXPECT_TRUE(throwsWith<InvalidInput>([] { selectDevice("no-such-device"); },
                                       {"no-such-device", "available", first}));
  EXPECT_TRUE(throwsWith<InvalidInput>([] { selectDevice("97:3"); }, {"97:3", "available"}));
  HistogrammerConfig config = openclConfig(KernelVariant::Baseline);
  config.device = "no-such-device";
  EXPECT_TRUE(throwsWith<InvalidInput>([&] { makeHistogrammer(config); }, {"no-such-device", first}));
}

TEST(BadDevice, BovwDeviceVariableNamingAMissingDevice) {
  BOVW_REQUIRE_OPENCL();
  ScopedEnv env("BOVW_DEVICE", "no-such-device-from-env");
  EXPECT_TRUE(throwsWith<InvalidInput>([] { selectDevice(""); }, {"BOVW_DEVICE", "no-such-device-from-env"}));
  EXPECT_TRUE(throwsWith<InvalidInput>([] { makeHistogrammer(openclConfig(KernelVariant::Float4)); },
                                       {"BOVW_DEVICE", "no-such-device-from-env", "available"}));
  // An explicit spec wins over the variable.
  EXPECT_NO_THROW(selectDevice(listDevices().front().name));
}

class BadDeviceConfig : public testing::TestWithParam<KernelVariant> {
 protected:
  void SetUp() override { BOVW_REQUIRE_OPENCL(); }
};

TEST_P(BadDeviceConfig, BuildOptionsThatBreakCompilationSurfaceTheLog) {
  BOVW_SEEDED_RNG(rng);
  HistogrammerConfig config = openclConfig(GetParam());
  config.build_options = "-DBOVW_D=garbage_width";
  const Vocabulary vocabulary(randomMatrix(rng, 4, 64));
  const Descriptors x = randomMatrix(rng, 10, 64);
  try {
    makeHistogrammer(config)->assign(x, vocabulary);
    ADD_FAILURE() << "no KernelBuildError";
  } catch (const KernelBuildError& e) {
    EXPECT_FALSE(e.log().empty());
    EXPECT_NE(e.options().find("garbage_width"), std::string::npos) << e.options();
    EXPECT_NE(std::string(e.what()).find(e.log()), std::string::npos) << "the message carries the log";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << typeid(e).name() << ": " << e.what();
  }
}

TEST_P(BadDeviceConfig, WorkGroupAboveTheDeviceMaximumIsACapacityError) {
  const DeviceInfo& device = testDevice();
  const int too_many = static_cast<int>(device.max_work_group_size) + 1;
  EXPECT_TRUE(throwsWith<CapacityError>([&] { makeHistogrammer(openclConfig(GetParam(), too_many)); },
                                        {std::to_string(too_many), std::to_string(device.max_work_group_size)}));
}

TEST_P(BadDeviceConfig, DeviceMemoryLimitTooSmallIsACapacityError) {
  BOVW_SEEDED_RNG(rng);
  HistogrammerConfig config = openclConfig(GetParam());
  config.device_memory_limit = 64 * 1024;  // 1000 x 64 descriptors alone need 250 KiB
  auto h = makeHistogrammer(config);
  const Vocabulary vocabulary(randomMatrix(rng, 8, 64));
  EXPECT_TRUE(throwsWith<CapacityError>([&] { h->assign(randomMatrix(rng, 1000, 64), vocabulary); },
                                        {"device memory"}));
  // A call that fits the limit still works on the same histogrammer.
  const auto words = randomWords(rng, 50, 8);
  EXPECT_TRUE(assignmentsEqual(words, h->assign(perturbedCopies(rng, vocabulary.centroids(), words), vocabulary)));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, BadDeviceConfig, testing::ValuesIn(allKernelVariants()),
                         [](const auto& info) { return testName(info.param); });

// The variants that stage descriptors in local memory.
class BadLocalMemory : public BadDeviceConfig {};

// Local memory: work-group x D x 4 bytes just over the device's local memory, at a work-group size
// the device accepts (so the local-memory limit, not the work-group limit, is what trips).
TEST_P(BadLocalMemory, OverflowIsACapacityError) {
  const KernelVariant variant = GetParam();
  BOVW_SEEDED_RNG(rng);
  const DeviceInfo& device = testDevice();
  const int wg = static_cast<int>(std::min<std::size_t>(device.max_work_group_size, 256));
  const int d = static_cast<int>(device.local_memory / (4ull * wg)) + 1;
  ASSERT_GT(4ull * wg * d, device.local_memory);
  RecordProperty("local_memory", std::to_string(device.local_memory));
  const Vocabulary vocabulary(randomMatrix(rng, 2, d));
  const Descriptors x = randomMatrix(rng, 3, d);
  auto h = makeHistogrammer(openclConfig(variant, wg));
  EXPECT_TRUE(throwsWith<CapacityError>([&] { h->assign(x, vocabulary); },
                                        {"local memory", std::to_string(device.local_memory)}));
}

INSTANTIATE_TEST_SUITE_P(LocalVariants, BadLocalMemory,
                         testing::Values(KernelVariant::LocalDescriptors, KernelVariant::ConstantCentroids),
                         [](const auto& info) { return testName(info.param); });

TEST(ErrorKinds, EveryKindIsABovwError) {
  EXPECT_TRUE((std::is_base_of_v<Error, InvalidInput>));
  EXPECT_TRUE((std::is_base_of_v<Error, IoError>));
  EXPECT_TRUE((std::is_base_of_v<Error, CapacityError>));
  EXPECT_TRUE((std::is_base_of_v<Error, OpenCLError>));
  EXPECT_TRUE((std::is_base_of_v<Error, KernelBuildError>));
  const OpenCLError e("clEnqueueNDRangeKernel", -5);
  EXPECT_EQ(e.code(), -5);
  EXPECT_NE(std::string(e.what()).find("clEnqueueNDRangeKernel"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("CL_OUT_OF_RESOURCES"), std::string::npos);
  EXPECT_NE(openclErrorName(-12345).find("-12345"), std::string::npos);
}

}  // namespace
}  // namespace bovw::test
