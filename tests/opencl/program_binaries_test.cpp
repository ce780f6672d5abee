// The on-disk program cache (src/opencl/program_binaries.hpp, program_cache.hpp): a stored binary
// runs like the program compiled from source; damaged, truncated and foreign entries are noticed,
// compiled again and replaced; caches filling one folder at once leave only whole entries; a
// disabled store writes nothing; the folder follows the environment.
#include "opencl/device_context.hpp"
#include "opencl/program_binaries.hpp"
#include "opencl/program_cache.hpp"
#include "support/io_test_support.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace bovw {
namespace {

using detail::ProgramBinaryStore;
using detail::ProgramCache;
using detail::ProgramKey;

ProgramKey sampleKey(const std::string& options = "-DX=1") {
  ProgramKey key;
  key.file = "transpose";
  key.options = options;
  key.source = "kernel void k() {}";
  key.platform = "Test Platform";
  key.device = "Test Device";
  key.device_version = "OpenCL 3.0";
  key.driver_version = "1.2.3";
  return key;
}

const std::vector<unsigned char> kBinary = {0, 1, 2, 3, 250, 251, 252, 253, 7, 7, 7, 7, 42};

// Sets an environment variable for one scope and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

class ProgramStore : public test::ScratchDirTest {
 protected:
  std::string folder() const { return (dir_ / "kernels").string(); }
  // Loads `key` with stderr captured: the binary, and what was said.
  std::optional<std::vector<unsigned char>> loadNoting(const ProgramBinaryStore& store, const ProgramKey& key,
                                                       std::string& said) {
    testing::internal::CaptureStderr();
    auto binary = store.load(key);
    said = testing::internal::GetCapturedStderr();
    return binary;
  }
};

TEST_F(ProgramStore, RoundTripsAndMissesQuietly) {
  const ProgramBinaryStore store(folder());
  std::string said;
  EXPECT_FALSE(loadNoting(store, sampleKey(), said));  // no folder yet: a plain miss
  EXPECT_EQ(said, "");
  store.save(sampleKey(), kBinary);
  EXPECT_EQ(loadNoting(store, sampleKey(), said), kBinary);
  EXPECT_EQ(said, "");
  // Every part of the key matters: each change is another entry, absent so far.
  for (auto change : std::vector<void (*)(ProgramKey&)>{
           [](ProgramKey& k) { k.file = "tiled"; }, [](ProgramKey& k) { k.options += " "; },
           [](ProgramKey& k) { k.source += "\n"; }, [](ProgramKey& k) { k.platform = "Other"; },
           [](ProgramKey& k) { k.device = "Other"; }, [](ProgramKey& k) { k.device_version = "OpenCL 1.2"; },
           [](ProgramKey& k) { k.driver_version = "1.2.4"; }}) {
    ProgramKey other = sampleKey();
    change(other);
    EXPECT_NE(other.fileName(), sampleKey().fileName());
    EXPECT_FALSE(loadNoting(store, other, said));
    EXPECT_EQ(said, "");
  }
  EXPECT_EQ(entries(), std::set<std::string>{"kernels"});
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder()), std::filesystem::directory_iterator()), 1);
}

TEST_F(ProgramStore, DamagedTruncatedAndForeignEntriesAreRefusedWithOneLine) {
  const ProgramBinaryStore store(folder());
  store.save(sampleKey(), kBinary);
  const std::string path = store.pathOf(sampleKey());
  const std::string good = test::readBytes(path);
  ASSERT_GT(good.size(), kBinary.size() + 16);

  std::vector<std::pair<std::string, std::string>> cases;  // what, bytes
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, std::size_t{20}, good.size() / 2, good.size() - 1})
    cases.emplace_back("truncated to " + std::to_string(cut), good.substr(0, cut));
  for (std::size_t at : {std::size_t{3}, std::size_t{9}, std::size_t{14}, std::size_t{30}, good.size() - 10,
                         good.size() - 3}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    cases.emplace_back("byte " + std::to_string(at) + " flipped", flipped);
  }
  cases.emplace_back("a byte appended", good + "x");
  // A whole, valid entry of another key under this key's name (what a digest collision would look like).
  ProgramKey other = sampleKey("-DX=2");
  store.save(other, kBinary);
  cases.emplace_back("another key's entry", test::readBytes(store.pathOf(other)));

  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    test::writeBytes(path, bytes);
    std::string said;
    EXPECT_FALSE(loadNoting(store, sampleKey(), said));
    EXPECT_NE(said.find("bovw: kernel cache: '" + path + "' is unusable"), std::string::npos) << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
  }
  store.save(sampleKey(), kBinary);  // what ProgramCache does after compiling again: the entry is whole again
  std::string said;
  EXPECT_EQ(loadNoting(store, sampleKey(), said), kBinary);
  EXPECT_EQ(said, "");
}

TEST_F(ProgramStore, ADisabledStoreKeepsNothing) {
  const ProgramBinaryStore store;
  EXPECT_FALSE(store.enabled());
  store.save(sampleKey(), kBinary);
  EXPECT_FALSE(store.load(sampleKey()));
  EXPECT_TRUE(entries().empty());
}

TEST_F(ProgramStore, AFolderThatCannotBeMadeCostsOneLineAndNothingElse) {
  test::writeBytes(path("file"), "not a folder");
  const ProgramBinaryStore store(path("file") + "/kernels");
  testing::internal::CaptureStderr();
  store.save(sampleKey(), kBinary);  // must not throw
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_LE(std::count(said.begin(), said.end(), '\n'), 1) << said;
  EXPECT_FALSE(store.load(sampleKey()));
}

TEST_F(ProgramStore, TheFolderFollowsTheEnvironment) {
  ScopedEnv cache_dir("BOVW_CACHE_DIR", nullptr), xdg("XDG_CACHE_HOME", nullptr), home("HOME", "/home/someone"),
      enabled("BOVW_KERNEL_CACHE", nullptr);
  EXPECT_EQ(ProgramBinaryStore::fromEnvironment().folder(), "/home/someone/.cache/bovw/kernels");
  {
    ScopedEnv set("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(ProgramBinaryStore::fromEnvironment().folder(), "/xdg/bovw/kernels");
    ScopedEnv own("BOVW_CACHE_DIR", "/own");
    EXPECT_EQ(ProgramBinaryStore::fromEnvironment().folder(), "/own");
    for (const char* off : {"off", "0"}) {
      ScopedEnv switched("BOVW_KERNEL_CACHE", off);
      EXPECT_FALSE(ProgramBinaryStore::fromEnvironment().enabled()) << off;
    }
    ScopedEnv on("BOVW_KERNEL_CACHE", "on");
    EXPECT_EQ(ProgramBinaryStore::fromEnvironment().folder(), "/own");
  }
  ScopedEnv no_home("HOME", nullptr);
  EXPECT_FALSE(ProgramBinaryStore::fromEnvironment().enabled());
}

// --- On the OpenCL device: ProgramCache with a store ---

constexpr int kRows = 37, kCols = 19, kTile = 8;
const std::string kOptions = "-DBOVW_TILE=" + std::to_string(kTile);

// Transposes a kRows x kCols matrix with kernels/transpose.cl from `programs`, on a queue of `context`.
std::vector<float> transposeWith(ProgramCache& programs, const cl::Context& context, const cl::Device& device) {
  std::vector<float> in(kRows * kCols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f - 3.0f;
  cl::Kernel kernel = programs.kernel("transpose", "transpose", kOptions);
  cl::CommandQueue queue(context, device);
  cl::Buffer input(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * in.size(), in.data());
  cl::Buffer output(context, CL_MEM_WRITE_ONLY, sizeof(float) * in.size());
  kernel.setArg(0, input);
  kernel.setArg(1, output);
  kernel.setArg(2, kRows);
  kernel.setArg(3, kCols);
  const auto up = [](int v) { return (v + kTile - 1) / kTile * kTile; };
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(up(kCols), up(kRows)), cl::NDRange(kTile, kTile));
  std::vector<float> out(in.size());
  queue.enqueueReadBuffer(output, CL_TRUE, 0, sizeof(float) * out.size(), out.data());
  return out;
}

std::vector<float> expectedTranspose() {
  std::vector<float> out(kRows * kCols);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) out[c * kRows + r] = static_cast<float>(r * kCols + c) * 0.5f - 3.0f;
  return out;
}

class CachedPrograms : public ProgramStore {
 protected:
  void SetUp() override {
    ProgramStore::SetUp();
    if (!test::openclAvailable()) GTEST_SKIP() << "no OpenCL platform installed (Debian: apt install pocl-opencl-icd)";
    device_ = detail::findDevice("").device;
  }
  // A cache of its own context, as a new process would have; runs the transpose and reports how it was made.
  ProgramCache::Counts run(const ProgramBinaryStore& store, std::string* said = nullptr) {
    cl::Context context(device_);
    ProgramCache programs(context, device_, store);
    if (said) testing::internal::CaptureStderr();
    const std::vector<float> out = transposeWith(programs, context, device_);
    if (said) *said = testing::internal::GetCapturedStderr();
    EXPECT_EQ(out, expectedTranspose());
    return programs.counts();
  }
  std::string entryPath() const {
    for (const auto& e : std::filesystem::directory_iterator(folder())) return e.path().string();
    return "";
  }
  std::size_t entryCount() const {
    std::error_code ignored;
    if (!std::filesystem::exists(folder(), ignored)) return 0;
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(folder()),
                                                  std::filesystem::directory_iterator()));
  }

  cl::Device device_;
};

TEST_F(CachedPrograms, ALaterCacheLoadsTheBinaryAndComputesTheSame) {
  const ProgramBinaryStore store(folder());
  const auto cold = run(store);
  EXPECT_EQ(cold.compiled, 1);
  EXPECT_EQ(cold.from_binary, 0);
  ASSERT_EQ(entryCount(), 1u);
  const auto warm = run(store);  // results compared with the reference inside run()
  EXPECT_EQ(warm.compiled, 0);
  EXPECT_EQ(warm.from_binary, 1);
}

TEST_F(CachedPrograms, DamagedOrForeignEntriesAreCompiledAgainAndRepaired) {
  const ProgramBinaryStore store(folder());
  run(store);
  const std::string path = entryPath();
  const std::string good = test::readBytes(path);
  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x01);
  // The right entry of another program (other options) under this one's name.
  cl::Context context(device_);
  ProgramCache other(context, device_, store);
  other.kernel("transpose", "transpose", "-DBOVW_TILE=4");
  std::string foreign;
  for (const auto& e : std::filesystem::directory_iterator(folder()))
    if (e.path().string() != path) foreign = test::readBytes(e.path().string());
  ASSERT_FALSE(foreign.empty());

  for (const auto& [what, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"truncated", good.substr(0, good.size() / 3)}, {"a flipped byte", flipped}, {"foreign", foreign}}) {
    SCOPED_TRACE(what);
    test::writeBytes(path, bytes);
    std::string said;
    const auto repaired = run(store, &said);
    EXPECT_EQ(repaired.compiled, 1);
    EXPECT_EQ(repaired.from_binary, 0);
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
    EXPECT_NE(said.find("is unusable"), std::string::npos) << said;
    const auto after = run(store, &said);  // the entry was replaced by a whole one
    EXPECT_EQ(after.from_binary, 1);
    EXPECT_EQ(said, "");
  }
}

TEST_F(CachedPrograms, CachesFillingOneFolderAtOnceLeaveWholeEntries) {
  const ProgramBinaryStore store(folder());
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> results(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      cl::Context context(device_);
      ProgramCache programs(context, device_, store);  // each its own, as separate processes
      results[t] = transposeWith(programs, context, device_);
      programs.kernel("transpose", "transpose", "-DBOVW_TILE=4");
    });
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) EXPECT_EQ(result, expectedTranspose());
  EXPECT_EQ(entryCount(), 2u);  // one per program, no temporary left behind
  std::string said;
  const auto later = run(store, &said);
  EXPECT_EQ(later.from_binary, 1);
  EXPECT_EQ(said, "");
}

TEST_F(CachedPrograms, WithoutAStoreNothingIsWritten) {
  const auto counts = run(ProgramBinaryStore());
  EXPECT_EQ(counts.compiled, 1);
  EXPECT_EQ(entryCount(), 0u);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace bovw
