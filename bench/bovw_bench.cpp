// `bovw-bench`: every backend and kernel variant on the chapter's grid, with the device's ceilings;
// or, with --tune, the tiled kernel's tile shapes on one size. A program of its own beside the
// benchmark library, so that the `bovw` program links the bovw library only.
#include "histogram_benchmark.hpp"

#include <CLI/CLI.hpp>

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <regex>
#include <utility>

namespace bovw::bench {

namespace {

struct BenchArguments {
  std::string device;
  std::vector<std::string> sizes;
  std::vector<std::string> variants;
  std::string json;
  std::string tiles;
  std::string tune;         // NxK of the --tune run
  std::string save_tuning;  // where --tune writes its best tile sizes
  BenchmarkOptions options;
} args;

ProblemSize parseSize(const std::string& text) {
  static const std::regex pattern(R"((\d+)[xX](\d+))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern))
    throw InvalidInput("--sizes: '" + text + "' is not NxK (for example 65536x128)");
  ProblemSize size{0, 0};
  try {
    size = {std::stoll(m[1]), std::stoi(m[2])};
  } catch (const std::out_of_range&) {
    throw InvalidInput("--sizes: '" + text + "' is out of range");
  }
  if (size.n < 1 || size.k < 1) throw InvalidInput("--sizes: '" + text + "' needs N >= 1 and K >= 1");
  return size;
}

// The CPU contenders of the grid. Not OpenCL (its variants are named instead), nor the approximate
// backend: the grid rates exact searches of K x D per descriptor; bovw_large_vocabulary_bench
// measures the approximate one with its recall.
std::vector<Backend> benchedCpuBackends() {
  std::vector<Backend> backends;
  for (Backend b : allBackends())
    if (b != Backend::OpenCL && b != Backend::OpenMPApproximate) backends.push_back(b);
  return backends;
}

Contender parseContender(const std::string& name) {
  for (Backend backend : benchedCpuBackends())
    if (name == toString(backend)) return {backend, KernelVariant::Baseline};
  return {Backend::OpenCL, parseKernelVariant(name)};
}

int tuneTiles() {
  const ProblemSize size = parseSize(args.tune);
  const auto report = runTuning(args.options, size, [](const TileSizes& tiles, const Measurement& m) {
    if (m.skipped.empty())
      spdlog::info("tiles {}: kernel {:.3f} ms, {:.1f} GFLOP/s, {} differing", toString(tiles), m.kernel_ms,
                   m.gflops, m.differing_assignments);
    else
      spdlog::warn("tiles {}: skipped ({})", toString(tiles), m.skipped);
  });
  printTuning(std::cout, report);
  const nlohmann::json json = toJson(report);
  if (!args.json.empty()) {
    writeFileAtomically(args.json, [&](std::ostream& out) { out << json.dump(2) << "\n"; });
    std::cout << "wrote " << args.json << "\n";
  }
  if (!args.save_tuning.empty()) {
    saveTuningFile(args.save_tuning, {report.device.name, report.best, size.n, size.k, report.dimension, report.date});
    std::cout << "wrote " << args.save_tuning << " (use it with --tuning)\n";
  }
  return 0;
}

// Positive numbers, said the way a user reads (CLI11's PositiveNumber prints the double range).
const CLI::Validator kPositive(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
      return value > 0 ? std::string() : "must be positive, not " + text;
    },
    "positive");

void addOptions(CLI::App* command) {
  std::vector<std::string> contenders;
  for (Backend b : benchedCpuBackends()) contenders.emplace_back(toString(b));
  for (KernelVariant v : allKernelVariants()) contenders.emplace_back(toString(v));
  contenders.emplace_back(toString(KernelVariant::Auto));
  command->add_option("--device", args.options.device, "OpenCL device spec (see bovw devices)");
  command->add_option("--sizes", args.sizes,
                      "NxK problem sizes (default: N in 4096,16384,65536 x K in 8,16,64,128,256, and 1048576x1024)")
      ->delimiter(',');
  command->add_option("--variants", args.variants, "contenders to run (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(contenders));
  command->add_option("--dimension", args.options.dimension, "descriptor width D")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  command->add_option("--work-group", args.options.work_group_size)->check(kPositive)->capture_default_str();
  command->add_option("--repetitions", args.options.repetitions, "timed runs per case (median reported)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_option("--warmup", args.options.warmup)->check(CLI::Range(0, 1000))->capture_default_str();
  command->add_option("--max-seconds", args.options.max_seconds,
                      "skip (and say so) any case estimated to take longer than this")
      ->check(kPositive)
      ->capture_default_str();
  command->add_option("--seed", args.options.seed)->capture_default_str();
  command->add_option("--json", args.json, "also write the results as JSON");
  command->add_option("--tiles", args.tiles, "tiled variant's tile sizes TM,TN,ROWS,WORDS,DEPTH");
  command->add_option("--build-options", args.options.build_options,
                      "extra OpenCL compiler options for the device variants, appended to bovw's own "
                      "(for example -cl-nv-maxrregcount=128 on NVIDIA)");
  auto* tune = command->add_option("--tune", args.tune,
                                   "instead of the grid: time the tiled kernel with each candidate tile shape "
                                   "on one NxK size (for example 1048576x1024)");
  command->add_option("--save-tuning", args.save_tuning, "with --tune: write the fastest exact tile sizes here")
      ->needs(tune);
}

// Before minutes of timing: each output can be written (bovw/atomic_file.hpp's writeProblem).
void checkOutputs() {
  const std::pair<const char*, std::string> outputs[] = {{"--json", args.json}, {"--save-tuning", args.save_tuning}};
  for (const auto& [option, path] : outputs)
    if (!path.empty())
      if (const auto problem = writeProblem(path)) throw IoError(std::string(option) + " '" + path + "': " + *problem);
  if (!args.json.empty() && args.json == args.save_tuning)
    throw InvalidInput("--json and --save-tuning name the same file '" + args.json + "'");
}

int runBench() {
  checkOutputs();
  if (!args.tiles.empty()) args.options.tiles = parseTileSizes(args.tiles);
  if (!args.tune.empty()) return tuneTiles();
  for (const auto& s : args.sizes) args.options.sizes.push_back(parseSize(s));
  for (const auto& v : args.variants) args.options.contenders.push_back(parseContender(v));
  const auto report = runBenchmark(args.options, [](const Measurement& m) {
    if (m.skipped.empty())
      spdlog::info("{} N={} K={}: kernel {:.3f} ms, {:.1f} GFLOP/s", m.contender, m.size.n, m.size.k,
                   m.kernel_ms, m.gflops);
    else
      spdlog::warn("{} N={} K={}: skipped ({})", m.contender, m.size.n, m.size.k, m.skipped);
  });
  printTable(std::cout, report);
  if (!args.json.empty()) {
    writeFileAtomically(args.json, [&](std::ostream& out) { out << toJson(report).dump(2) << "\n"; });
    std::cout << "\nwrote " << args.json << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace bovw::bench

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("bovw-bench");
  logger->set_pattern("bovw-bench: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  CLI::App app{"bovw-bench: time every backend and kernel variant (profiling events, medians) against the "
               "device's measured ceilings"};
  bovw::bench::addOptions(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);  // prints the help, or the usage error
    return status == 0 ? 0 : 2;      // exit status 2 for every usage error, as bovw
  }
  try {
    return bovw::bench::runBench();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
