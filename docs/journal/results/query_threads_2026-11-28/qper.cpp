// Alternates BOVW_PER (ranges per thread) per query at 2 threads.
#include <bovw/inverted_index.hpp>
#include "synthetic_images.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
using Clock = std::chrono::steady_clock;
static double ms(Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); }
int main(int argc, char** argv) {
  const int nq = atoi(argv[1]);
  const std::string path = argv[2];
  std::vector<std::string> pers;
  for (int i = 3; i < argc; ++i) pers.push_back(argv[i]);
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
  SyntheticImages qgen(65536, 2);
  const bovw::InvertedIndex index = bovw::InvertedIndex::load(path);
  std::vector<SyntheticImages::Row> queries;
  for (int r = 0; r < nq; ++r) queries.push_back(qgen.query(kept[r % kept.size()]));
  std::vector<std::vector<double>> t(pers.size());
  std::vector<std::vector<bovw::SearchResult>> ref(nq);
  int differ = 0;
  for (int r = -3; r < nq; ++r) {
    const auto& q = queries[(r + nq) % nq];
    for (size_t v = 0; v < pers.size(); ++v) {
      setenv("BOVW_PER", pers[v].c_str(), 1);
      auto a = Clock::now();
      auto res = index.query(q, 10, bovw::Scoring::Intersection);
      if (r < 0) continue;
      t[v].push_back(ms(a));
      if (ref[r].empty()) ref[r] = res;
      else for (size_t k = 0; k < res.size(); ++k) differ += res[k].id != ref[r][k].id || res[k].score != ref[r][k].score;
    }
  }
  for (size_t v = 0; v < pers.size(); ++v) {
    std::sort(t[v].begin(), t[v].end());
    double sum = 0; for (double x : t[v]) sum += x;
    printf("per %s: p50 %.2f p90 %.2f p99 %.2f max %.2f mean %.2f ms\n", pers[v].c_str(), t[v][t[v].size() / 2], t[v][t[v].size() * 9 / 10], t[v][std::min(t[v].size() - 1, (size_t)(0.99 * t[v].size()))], t[v].back(), sum / t[v].size());
  }
  printf("differing %d\n", differ);
}
