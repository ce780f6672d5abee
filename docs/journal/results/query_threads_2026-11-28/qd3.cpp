// Query driver at scale: builds (once) and saves an index of N synthetic images plus its queries
// (indexed images with 30% of their words dropped), then loads it and times Q exhaustive queries.
#include <bovw/inverted_index.hpp>
#include "synthetic_images.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
using Clock = std::chrono::steady_clock;
static double ms(Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); }
int main(int argc, char** argv) {
  const int n = atoi(argv[1]), nq = atoi(argv[2]);
  const std::string path = argv[3];
  const int K = 65536;
  if (!std::filesystem::exists(path)) {
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
    printf("built and saved %s\n", path.c_str());
    return 0;
  }
  std::vector<std::vector<std::pair<int, int>>> kept;
  {
    std::ifstream qf(path + ".queries");
    std::string line;
    while (std::getline(qf, line)) {
      std::istringstream s(line);
      std::vector<std::pair<int, int>> img;
      int w, c;
      while (s >> w >> c) img.emplace_back(w, c);
      kept.push_back(img);
    }
  }
  SyntheticImages qgen(K, 2);
  auto t0 = Clock::now();
  const bovw::InvertedIndex index = bovw::InvertedIndex::load(path);
  printf("load %.0f ms\n", ms(t0));
  std::vector<SyntheticImages::Row> queries;
  for (int r = 0; r < nq; ++r) queries.push_back(qgen.query(kept[r % kept.size()]));
  std::vector<std::vector<bovw::SearchResult>> reference(nq);
  const int rounds = argc > 4 ? atoi(argv[4]) : 4;
  for (int round = 0; round < rounds; ++round) {
    const char* v = getenv("BOVW_DPF") ? getenv("BOVW_DPF") : "0";
    std::vector<double> t;
    int differ = 0;
    for (int r = -3; r < nq; ++r) {
      const auto& q = queries[(r + nq) % nq];
      auto a = Clock::now();
      auto res = index.query(q, 10, bovw::Scoring::Intersection);
      if (r < 0) continue;
      t.push_back(ms(a));
      if (reference[r].empty()) reference[r] = res;
      else for (size_t k = 0; k < res.size(); ++k) differ += res[k].id != reference[r][k].id || res[k].score != reference[r][k].score;
    }
    std::sort(t.begin(), t.end());
    printf("variant %s p50 %.2f p99 %.2f ms, results differing %d\n", v, t[t.size() / 2], t[std::min(t.size() - 1, (size_t)(0.99 * t.size()))], differ);
  }
}
