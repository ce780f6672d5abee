// Query-only driver: InvertedIndex of N synthetic images, Q exhaustive queries, p50/p99.
#include <bovw/inverted_index.hpp>
#include "synthetic_images.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
int main(int argc, char** argv) {
  const int n = atoi(argv[1]), nq = atoi(argv[2]);
  const int K = 65536;
  bovw::InvertedIndex index(bovw::VocabularySignature{K, 64, bovw::DescriptorType::parse("surf64"), 0});
  SyntheticImages gen(K, 1);
  std::vector<std::vector<std::pair<int,int>>> kept;
  Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> row(K);
  for (int i = 0; i < n; ++i) {
    auto img = gen.next();
    row.setZero();
    for (auto& [w, c] : img) row[w] = c;
    index.add("i" + std::to_string(i), row);
    if (i % (n / nq + 1) == 0) kept.push_back(img);
  }
  std::vector<double> t;
  double sink = 0;
  for (int r = 0; r < 3 + nq; ++r) {
    auto q = gen.query(kept[r % kept.size()]);
    auto a = std::chrono::steady_clock::now();
    auto res = index.query(q, 10, bovw::Scoring::Intersection);
    auto b = std::chrono::steady_clock::now();
    sink += res.empty() ? 0 : res[0].score;
    if (r >= 3) t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  printf("n %d p50 %.3f p99 %.3f ms bytes/posting %.3f (%g)\n", n, t[t.size()/2], t[std::min(t.size()-1, (size_t)(0.99*t.size()))],
         (double)index.postingBytes() / index.postingCount(), sink);
}
