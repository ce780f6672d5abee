// Query scaling over threads at N images: builds (once) and saves the index as qd3 does, loads it,
// then for each thread count runs every query (after 3 warm-up ones), two rounds, thread counts in turn.
#include <bovw/inverted_index.hpp>
#include "synthetic_images.hpp"
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
using Clock = std::chrono::steady_clock;
static double ms(Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); }
int main(int argc, char** argv) {
  const int n = atoi(argv[1]), nq = atoi(argv[2]);
  const std::string path = argv[3];
  std::vector<int> threads;
  for (int i = 4; i < argc; ++i) threads.push_back(atoi(argv[i]));
  const int K = 65536;
  if (!std::filesystem::exists(path)) {
    auto t0 = Clock::now();
    SyntheticImages gen(K, 1);
    Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> row(K);
    bovw::InvertedIndex index(bovw::VocabularySignature{K, 64, bovw::DescriptorType::parse("surf64"), 0});
    std::ofstream qf(path + ".queries");
    for (int i = 0; i < n; ++i) {
      auto img = gen.next();
      row.setZero();
      for (auto& [w, c] : img) row[w] = c;
      index.add("i" + std::to_string(i), row);
      if (i % (n / 200 + 1) == 0) {
        for (auto& [w, c] : img) qf << w << ' ' << c << ' ';
        qf << '\n';
      }
    }
    index.save(path);
    printf("built and saved %d images in %.0f s\n", n, ms(t0) / 1000);
  }
  std::vector<std::vector<std::pair<int, int>>> kept;
  std::ifstream qf(path + ".queries");
  std::string line;
  while (std::getline(qf, line)) {
    std::istringstream s(line);
    std::vector<std::pair<int, int>> img;
    int w, c;
    while (s >> w >> c) img.emplace_back(w, c);
    kept.push_back(img);
  }
  SyntheticImages qgen(K, 2);
  auto t0 = Clock::now();
  const bovw::InvertedIndex index = bovw::InvertedIndex::load(path);
  printf("load %.0f ms, %d cores\n", ms(t0), omp_get_num_procs());
  std::vector<SyntheticImages::Row> queries;
  for (int r = 0; r < nq; ++r) queries.push_back(qgen.query(kept[r % kept.size()]));
  std::vector<std::vector<bovw::SearchResult>> ref(nq);
  int differ = 0;
  for (int round = 1; round <= 2; ++round)
    for (int t : threads) {
      omp_set_num_threads(t);
      std::vector<double> times;
      for (int r = -3; r < nq; ++r) {
        const auto& q = queries[(r + nq) % nq];
        auto a = Clock::now();
        auto res = index.query(q, 10, bovw::Scoring::Intersection);
        if (r < 0) continue;
        times.push_back(ms(a));
        if (ref[r].empty()) ref[r] = res;
        else for (size_t k = 0; k < res.size(); ++k) differ += res[k].id != ref[r][k].id || res[k].score != ref[r][k].score;
      }
      std::sort(times.begin(), times.end());
      printf("round %d threads %2d: p50 %.2f p99 %.2f ms\n", round, t, times[times.size() / 2], times[std::min(times.size() - 1, (size_t)(0.99 * times.size()))]);
      fflush(stdout);
    }
  printf("results differing between thread counts and rounds: %d\n", differ);
}
