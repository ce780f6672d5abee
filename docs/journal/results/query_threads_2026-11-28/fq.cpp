// The first query after loading a saved index (the normalisers: IncrementalNorms for intersection)
// and the second; one process per measurement.
#include <bovw/inverted_index.hpp>
#include "synthetic_images.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
using Clock = std::chrono::steady_clock;
static double ms(Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); }
int main(int argc, char** argv) {
  const std::string path = argv[1];
  std::ifstream qf(path + ".queries");
  std::string line;
  std::getline(qf, line);
  std::istringstream s(line);
  std::vector<std::pair<int, int>> img;
  int w, c;
  while (s >> w >> c) img.emplace_back(w, c);
  SyntheticImages qgen(65536, 2);
  auto t0 = Clock::now();
  const bovw::InvertedIndex index = bovw::InvertedIndex::load(path);
  printf("load %.0f ms; ", ms(t0));
  const auto q = qgen.query(img);
  for (bovw::Scoring scoring : {bovw::Scoring::Intersection, bovw::Scoring::Cosine}) {
    auto a = Clock::now();
    auto r1 = index.query(q, 10, scoring);
    const double first = ms(a);
    a = Clock::now();
    auto r2 = index.query(q, 10, scoring);
    printf("%s first %.1f ms second %.1f ms top %s %.17g; ", scoring == bovw::Scoring::Cosine ? "cosine" : "intersection", first, ms(a), r1[0].name.c_str(), r1[0].score);
  }
  printf("\n");
}
