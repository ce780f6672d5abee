// Vocabulary save/load benchmark: a random K x D vocabulary saved as .bovw, .npy and OpenCV
// FileStorage (.yml.gz), then bovw::loadVocabulary timed per format (median of --repeats loads after
// --warmup loads). The files are read right after being written, so the page cache is warm unless
// --cold is given (then each load is preceded by fdatasync + POSIX_FADV_DONTNEED on the file, which
// asks the kernel to drop its cached pages; whether it does is up to the kernel).
//
// Usage: bovw_vocabulary_load_bench [--words 1000000] [--dims 64,128] [--formats bovw,npy,yml.gz]
//          [--filestorage-words 100000] [--repeats 5] [--warmup 1] [--dir DIR] [--keep] [--cold] [--json FILE]
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/vocabulary.hpp>
#include <bovw/vocabulary_io.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

bovw::Vocabulary randomVocabulary(long words, int dims, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-0.5f, 0.5f);
  bovw::Descriptors centroids(words, dims);
  float* data = centroids.data();
  for (Eigen::Index i = 0; i < centroids.size(); ++i) data[i] = value(rng);
  return bovw::Vocabulary(std::move(centroids), bovw::DescriptorType(dims == 64 ? "surf" : "sift", dims));
}

// Asks the kernel to drop the file's cached pages (after flushing them, so they are clean).
void dropFromPageCache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

struct Row {
  std::string format;
  long words = 0;
  int dims = 0;
  std::uintmax_t bytes = 0;
  double save_ms = 0;
  double load_ms = 0, load_min_ms = 0, load_max_ms = 0;
  double cold_load_ms = -1;
  bool identical = false;
};

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  long words = 1000000;
  long filestorage_words = 100000;
  std::string dims_text = "64,128";
  std::string formats_text = "bovw,npy,yml.gz";
  int repeats = 5;
  int warmup = 1;
  std::string dir;
  bool keep = false;
  bool cold = false;
  std::string json_path;

  CLI::App app("Vocabulary save/load benchmark (bovw::saveVocabulary / bovw::loadVocabulary)");
  app.add_option("--words", words, "K of the .bovw and .npy vocabularies")->capture_default_str();
  app.add_option("--filestorage-words", filestorage_words,
                 "K of the FileStorage (.yml.gz, .xml.gz, .yml) vocabularies (0: same as --words)")
      ->capture_default_str();
  app.add_option("--dims", dims_text, "comma-separated descriptor widths")->capture_default_str();
  app.add_option("--formats", formats_text, "comma-separated extensions: bovw, npy, yml, yml.gz, xml, xml.gz")
      ->capture_default_str();
  app.add_option("--repeats", repeats, "timed loads per file (median reported)")->capture_default_str();
  app.add_option("--warmup", warmup, "untimed loads before them")->capture_default_str();
  app.add_option("--dir", dir, "where to write the files (default: a new folder in the temp directory)");
  app.add_flag("--keep", keep, "keep the files");
  app.add_flag("--cold", cold, "also time loads after asking the kernel to drop the file from the page cache");
  app.add_option("--json", json_path, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  if (filestorage_words <= 0) filestorage_words = words;

  namespace fs = std::filesystem;
  const bool own_dir = dir.empty();
  if (own_dir) dir = (fs::temp_directory_path() / ("bovw_vocabulary_load_bench_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);

  std::vector<Row> rows;
  try {
    for (const std::string& dim_text : splitList(dims_text)) {
      const int dims = std::stoi(dim_text);
      for (const std::string& format : splitList(formats_text)) {
        const bool filestorage = format != "bovw" && format != "npy";
        const long k = filestorage ? filestorage_words : words;
        const bovw::Vocabulary vocabulary = randomVocabulary(k, dims, 42u + static_cast<unsigned>(dims));
        const std::string path = (fs::path(dir) / ("vocabulary_" + std::to_string(k) + "x" + std::to_string(dims) +
                                                   "." + format)).string();
        Row row;
        row.format = "." + format;
        row.words = k;
        row.dims = dims;
        std::cerr << "[vocabulary_load_bench] " << row.format << " K = " << k << " D = " << dims << ": save" << std::flush;
        auto start = Clock::now();
        bovw::saveVocabulary(path, vocabulary);
        row.save_ms = msSince(start);
        row.bytes = fs::file_size(path);
        std::cerr << " " << fixed(row.save_ms, 0) << " ms, load" << std::flush;
        for (int i = 0; i < warmup; ++i) (void)bovw::loadVocabulary(path);
        std::vector<double> times;
        bool identical = true;
        for (int i = 0; i < repeats; ++i) {
          start = Clock::now();
          const bovw::Vocabulary loaded = bovw::loadVocabulary(path);
          times.push_back(msSince(start));
          identical = identical && loaded.size() == vocabulary.size() &&
                      loaded.dimension() == vocabulary.dimension() &&
                      loaded.centroids() == vocabulary.centroids();
        }
        row.identical = identical;
        row.load_ms = median(times);
        row.load_min_ms = *std::min_element(times.begin(), times.end());
        row.load_max_ms = *std::max_element(times.begin(), times.end());
        std::cerr << " " << fixed(row.load_ms, 1) << " ms" << std::flush;
        if (cold) {
          std::vector<double> cold_times;
          for (int i = 0; i < repeats; ++i) {
            dropFromPageCache(path);
            start = Clock::now();
            (void)bovw::loadVocabulary(path);
            cold_times.push_back(msSince(start));
          }
          row.cold_load_ms = median(cold_times);
          std::cerr << ", cold " << fixed(row.cold_load_ms, 1) << " ms" << std::flush;
        }
        std::cerr << "\n";
        rows.push_back(row);
        if (!keep) fs::remove(path);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "bovw_vocabulary_load_bench: " << e.what() << "\n";
    if (own_dir && !keep) fs::remove_all(dir);
    return 1;
  }
  if (own_dir && !keep) fs::remove_all(dir);

  std::cout << "Loads: median of " << repeats << " after " << warmup
            << " warm-up (page cache warm: each file is read right after it is written)"
            << (cold ? "; cold: after fdatasync + POSIX_FADV_DONTNEED" : "") << ". Save: one atomic write.\n\n";
  std::cout << "| format | K | D | file MB | save ms | load ms (median) | load min-max ms | load GB/s |"
            << (cold ? " cold load ms |" : "") << " round trip |\n";
  std::cout << "|---|---|---|---|---|---|---|---|" << (cold ? "---|" : "") << "---|\n";
  nlohmann::json results = nlohmann::json::array();
  for (const Row& r : rows) {
    const double mb = static_cast<double>(r.bytes) / 1e6;
    std::cout << "| " << r.format << " | " << r.words << " | " << r.dims << " | " << fixed(mb, 1) << " | "
              << fixed(r.save_ms, 0) << " | " << fixed(r.load_ms, 1) << " | " << fixed(r.load_min_ms, 1) << "-"
              << fixed(r.load_max_ms, 1) << " | " << fixed(mb / 1e3 / (r.load_ms / 1e3), 2) << " |"
              << (cold ? " " + fixed(r.cold_load_ms, 1) + " |" : "") << " "
              << (r.identical ? "identical" : "differs") << " |\n";
    results.push_back({{"format", r.format}, {"words", r.words}, {"dims", r.dims}, {"bytes", r.bytes},
                       {"save_ms", r.save_ms}, {"load_ms_median", r.load_ms}, {"load_ms_min", r.load_min_ms},
                       {"load_ms_max", r.load_max_ms}, {"cold_load_ms_median", r.cold_load_ms},
                       {"round_trip_identical", r.identical}});
  }
  if (!json_path.empty()) {
    const nlohmann::json report{{"repeats", repeats}, {"warmup", warmup}, {"cold", cold}, {"results", results}};
    bovw::writeFileAtomically(json_path, [&](std::ostream& out) { out << report.dump(2) << "\n"; });
  }
  return 0;
}
