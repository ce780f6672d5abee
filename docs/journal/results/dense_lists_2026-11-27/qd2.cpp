// First query after loading: builds (once) and saves an index of N synthetic images, then loads it and
// times the first query (the normalisers) and the next ones.
#include <bovw/inverted_index.hpp>
#include "synthetic_images.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
using Clock = std::chrono::steady_clock;
static double ms(Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); }
int main(int argc, char** argv) {
  const int n = atoi(argv[1]);
  const std::string path = argv[2];
  const int K = 65536;
  SyntheticImages gen(K, 1);
  std::vector<std::vector<std::pair<int, int>>> kept;
  Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> row(K);
  if (!std::filesystem::exists(path)) {
    bovw::InvertedIndex index(bovw::VocabularySignature{K, 64, bovw::DescriptorType::parse("surf64"), 0});
    for (int i = 0; i < n; ++i) {
      auto img = gen.next();
      row.setZero();
      for (auto& [w, c] : img) row[w] = c;
      index.add("i" + std::to_string(i), row);
    }
    index.save(path);
    printf("built and saved %s\n", path.c_str());
  }
  SyntheticImages qgen(K, 2);
  auto t = Clock::now();
  const bovw::InvertedIndex index = bovw::InvertedIndex::load(path);
  const double load = ms(t);
  std::vector<double> times;
  for (int r = 0; r < 11; ++r) {
    auto q = qgen.query(qgen.next());
    t = Clock::now();
    auto res = index.query(q, 10, bovw::Scoring::Intersection);
    times.push_back(ms(t));
  }
  std::sort(times.begin() + 1, times.end());
  printf("n %d load %.0f ms first query %.0f ms, next median %.1f ms, bytes/posting %.3f\n", n, load, times[0], times[6],
         (double)index.postingBytes() / index.postingCount());
}
