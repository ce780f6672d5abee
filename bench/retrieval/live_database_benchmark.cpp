// Live databases against today's single-file database, side by side in one run, on synthetic
// histograms shaped like real ones (issue 21): K = 65,536 words, each image 500 distinct words drawn
// with popularity 1/rank^0.8, counts 1 + geometric(0.6); the queries are indexed images with 30% of
// their words dropped; intersection scoring, top 10, one searching thread, whose query splits its
// images over `--query-threads` OpenMP threads (1 by default: the measure).
//
// For each image count N it reports
//   file database (ImageDatabase, the .bovwdb file): add rate, save, file size, load, first query
//     after loading (the normalisers), query p50 / p99;
//   live database (LiveDatabase, LMDB): add rate in durable writes of 1,000 images and of 1 image
//     (the checkpoints the writes make on their own included), remove rate (writes of 1), bytes per
//     image on disk, open as the writes left it (from their last checkpoint and the writes after it),
//     a checkpoint written then, the open from it with nothing to replay (median of 3 processes'
//     worth: each open in this process; until searchable and until its lists are copied), resident
//     bytes per posting of the opened copy, query p50 / p99 (its lists copied), and query p50 / p99
//     while another thread adds one image at a time;
//   for both, the query p50 / p99 of the exhaustive search (the default: every posting of the query's
//   words) and of the pruned one (MaxScore) on the same index, the queries on which
//   the two answered differently (must be 0), and the posting lists' bytes per posting
//   (InvertedIndex::postingBytes: their capacity and per-word overhead).
// Timings are medians and percentiles of the individual calls after warm-up queries.
//
// Usage: bovw_live_database_bench [--images 10000,100000] [--queries 200] [--folder DIR] [--json FILE]
//          [--seed 1] [--query-threads 1]
#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/live_database.hpp>

#include "synthetic_images.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Row = Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>;

constexpr int kWords = 65536;
constexpr std::size_t kTop = 10;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(p * static_cast<double>(values.size())))];
}

// Resident memory of this process, from /proc/self/statm.
double residentBytes() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

// The process's own resident memory (RssAnon in /proc/self/status: the heap and the region an open
// copies the lists into): unlike the resident size, without the store's pages that an open read and
// the process still maps (the page cache's, shared and reclaimable).
double ownBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return 1024.0 * std::stod(line.substr(8));  // "RssAnon:  N kB"
  return 0;
}

Row denseRow(const std::vector<std::pair<int, int>>& image) {
  Row row = Row::Zero(kWords);
  for (const auto& [w, c] : image) row[w] = c;
  return row;
}

bovw::NamedImageWords namedWords(const std::string& name, const std::vector<std::pair<int, int>>& image) {
  bovw::NamedImageWords named{name, {}};
  for (const auto& [w, c] : image) named.words.words.insert(named.words.words.end(), c, w);
  return named;
}

// Query latencies in milliseconds, after `warmup` untimed queries (the first builds the normalisers).
std::vector<double> queryTimes(const bovw::InvertedIndex& index, const std::vector<Row>& queries, std::size_t warmup,
                               bovw::QueryStrategy strategy = bovw::QueryStrategy::Exhaustive) {
  const bovw::ScoringOptions options;  // intersection, counts, alpha = 1
  for (std::size_t i = 0; i < warmup && i < queries.size(); ++i) index.query(queries[i], kTop, options, strategy);
  std::vector<double> times;
  for (const Row& q : queries) {
    const auto start = Clock::now();
    index.query(q, kTop, options, strategy);
    times.push_back(1e3 * secondsSince(start));
  }
  return times;
}

nlohmann::json latency(const std::vector<double>& ms) {
  return {{"p50_ms", percentile(ms, 0.5)}, {"p99_ms", percentile(ms, 0.99)}, {"count", ms.size()}};
}

// The queries that the pruned and the exhaustive search answer differently (ids, order or score bits):
// 0, or the pruned search is wrong.
std::size_t differingAnswers(const bovw::InvertedIndex& index, const std::vector<Row>& queries) {
  const bovw::ScoringOptions options;
  std::size_t differing = 0;
  for (const Row& q : queries) {
    const auto pruned = index.query(q, kTop, options, bovw::QueryStrategy::Pruned);
    const auto exhaustive = index.query(q, kTop, options, bovw::QueryStrategy::Exhaustive);
    bool same = pruned.size() == exhaustive.size();
    for (std::size_t r = 0; same && r < pruned.size(); ++r)
      same = pruned[r].id == exhaustive[r].id && pruned[r].score == exhaustive[r].score;
    differing += same ? 0 : 1;
  }
  return differing;
}

// Query latencies of both strategies on one index, the exhaustive one being the path before pruning.
void measureQueries(nlohmann::json& into, const bovw::InvertedIndex& index, const std::vector<Row>& queries,
                    std::uint64_t postings) {
  into["query"] = latency(queryTimes(index, queries, 3));
  into["query_pruned"] = latency(queryTimes(index, queries, 3, bovw::QueryStrategy::Pruned));
  into["query_answers_differing"] = differingAnswers(index, queries);
  into["posting_bytes_per_posting"] = static_cast<double>(index.postingBytes()) / static_cast<double>(postings);
}

nlohmann::json measure(std::size_t n, std::size_t query_count, const std::string& folder, std::uint64_t seed) {
  SyntheticImages synthetic(kWords, seed);
  std::vector<std::vector<std::pair<int, int>>> images(n);
  for (auto& image : images) image = synthetic.next();
  std::vector<Row> queries;
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  std::mt19937_64 rng(seed + 1);
  for (std::size_t q = 0; q < query_count; ++q) queries.push_back(synthetic.query(images[pick(rng)]));
  std::uint64_t postings = 0;
  for (const auto& image : images) postings += image.size();
  // The words' values play no part here; the database needs a vocabulary its features fit (SURF's 64).
  const bovw::Vocabulary vocabulary(bovw::Descriptors::Zero(kWords, 64), bovw::DescriptorType::parse("surf64"));
  const bovw::FeatureSpec features("surf");
  nlohmann::json result = {{"images", n}, {"postings", postings}};

  // Today's database: in memory, saved and loaded whole.
  {
    bovw::ImageDatabase database(vocabulary, features);
    auto start = Clock::now();
    for (std::size_t i = 0; i < n; ++i) database.add("images/" + std::to_string(i) + ".jpg", denseRow(images[i]));
    const double add = secondsSince(start);
    const std::string file = folder + "/file.bovwdb";
    start = Clock::now();
    database.save(file);
    const double save = secondsSince(start);
    const double before = residentBytes();
    start = Clock::now();
    const bovw::ImageDatabase loaded = bovw::ImageDatabase::load(file);
    const double load = secondsSince(start);
    const double resident = residentBytes() - before;
    start = Clock::now();
    loaded.index().query(queries.front(), kTop);
    const double first = secondsSince(start);
    result["file"] = {{"add_images_per_s", n / add},
                      {"save_s", save},
                      {"file_bytes", std::filesystem::file_size(file)},
                      {"load_s", load},
                      {"resident_bytes_per_posting", resident / static_cast<double>(postings)},
                      {"first_query_ms", 1e3 * first}};
    measureQueries(result["file"], loaded.index(), queries, postings);
    std::filesystem::remove(file);
  }

  // The live database.
  const std::string path = folder + "/live.bovwlive";
  {
    bovw::LiveDatabase live = bovw::LiveDatabase::create(path, vocabulary, features);
    const std::size_t singles = std::min<std::size_t>(200, n / 10);
    const std::size_t batched = n - singles;
    auto start = Clock::now();
    for (std::size_t begin = 0; begin < batched; begin += 1000) {
      std::vector<bovw::NamedImageWords> batch;
      for (std::size_t i = begin; i < std::min(batched, begin + 1000); ++i)
        batch.push_back(namedWords("images/" + std::to_string(i) + ".jpg", images[i]));
      live.add(batch);
    }
    const double add_batched = secondsSince(start);
    start = Clock::now();
    for (std::size_t i = batched; i < n; ++i) live.add({namedWords("images/" + std::to_string(i) + ".jpg", images[i])});
    const double add_single = secondsSince(start);
    start = Clock::now();
    for (std::size_t i = batched; i < n; ++i) live.remove({"images/" + std::to_string(i) + ".jpg"});
    const double remove_single = secondsSince(start);
    // Back in, so that the database holds the same N images as the file.
    std::vector<bovw::NamedImageWords> rest;
    for (std::size_t i = batched; i < n; ++i) rest.push_back(namedWords("images/" + std::to_string(i) + ".jpg", images[i]));
    live.add(rest);
    result["live"] = {{"add_images_per_s_batches_of_1000", batched / add_batched},
                      {"add_images_per_s_batches_of_1", singles / add_single},
                      {"remove_images_per_s_batches_of_1", singles / remove_single},
                      {"single_writes", singles}};
  }
  {
    // As the writes left it: their last checkpoint, then the writes after it replayed.
    auto start = Clock::now();
    std::optional<bovw::LiveDatabase> opened(bovw::LiveDatabase::open(path));
    result["live"]["open_s"] = secondsSince(start);
    result["live"]["open_writes_replayed"] = opened->generation() - opened->opening().checkpoint.value_or(0);
    result["live"]["disk_bytes_per_image"] =
        static_cast<double>(std::filesystem::file_size(path + "/data.mdb")) / static_cast<double>(n);
    start = Clock::now();
    opened->checkpoint();
    result["live"]["checkpoint_s"] = secondsSince(start);
    result["live"]["disk_bytes_per_image_after_checkpoint"] =
        static_cast<double>(std::filesystem::file_size(path + "/data.mdb")) / static_cast<double>(n);
    // Searchable when open returns; its lists copied into the process's memory a while after.
    std::vector<double> opens, copied;
    for (int r = 0; r < 3; ++r) {
      opened.reset();
      start = Clock::now();
      opened.emplace(bovw::LiveDatabase::open(path));
      opens.push_back(secondsSince(start));
      opened->waitForCopiedLists();
      copied.push_back(secondsSince(start));
    }
    result["live"]["open_from_checkpoint_s"] = percentile(opens, 0.5);
    result["live"]["open_from_checkpoint_copied_s"] = percentile(copied, 0.5);
  }
  {
    const double before = residentBytes(), own_before = ownBytes();
    bovw::LiveDatabase live = bovw::LiveDatabase::open(path);
    live.waitForCopiedLists();
    const double resident = residentBytes() - before;
    result["live"]["resident_bytes_per_posting"] = resident / static_cast<double>(postings);
    result["live"]["own_bytes_per_posting"] = (ownBytes() - own_before) / static_cast<double>(postings);
    measureQueries(result["live"], live.database().index(), queries, postings);

    // Searches while another thread adds one image at a time (new images of the same kind).
    std::atomic<bool> done{false};
    std::size_t written = 0;
    std::thread writer([&] {
      SyntheticImages more(kWords, seed + 2);
      while (!done) live.add({namedWords("more/" + std::to_string(written++) + ".jpg", more.next())});
    });
    std::vector<double> during;
    for (const Row& q : queries) {
      const auto query_start = Clock::now();
      live.database().index().query(q, kTop);
      during.push_back(1e3 * secondsSince(query_start));
    }
    done = true;
    writer.join();
    result["live"]["query_during_writes"] = latency(during);
    result["live"]["writes_during_queries"] = written;
  }
  std::filesystem::remove_all(path);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Live databases against the single-file database: add, remove, open, size, memory, queries"};
  std::vector<std::size_t> counts = {10000, 100000};
  std::size_t queries = 200;
  std::string folder = std::filesystem::temp_directory_path().string();
  std::string json;
  std::uint64_t seed = 1;
  app.add_option("--images", counts, "image counts, comma-separated")->delimiter(',');
  app.add_option("--queries", queries, "queries per measurement")->check(CLI::PositiveNumber);
  app.add_option("--folder", folder, "where the databases are written (a real disk: fsync is measured)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--json", json, "also write the results as JSON");
  app.add_option("--seed", seed, "random seed of the synthetic images");
  int query_threads = 1;
  app.add_option("--query-threads", query_threads, "OpenMP threads a query's images are split over")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  omp_set_num_threads(query_threads);
  try {
    nlohmann::json all = nlohmann::json::array();
    for (std::size_t n : counts) {
      nlohmann::json r = measure(n, queries, folder, seed);
      r["query_threads"] = query_threads;
      std::cout << r.dump(2) << std::endl;
      all.push_back(r);
    }
    if (!json.empty()) std::ofstream(json) << all.dump(2) << "\n";
  } catch (const bovw::Error& e) {
    std::cerr << "bovw_live_database_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
