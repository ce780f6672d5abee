// Query driver (issue 21, fixed-point scores): opens a live database made by
// ../list_region_2026-12-02/open_driver.cpp (`make DB N`), waits for its lists to be copied into the
// process's memory, then times Q queries (intersection, top 10, indexed images with 30% of their words
// dropped, on as many threads as OMP_NUM_THREADS gives a query) after 3 warm-up ones, and writes each
// query's ranked names and scores to OUT, so that two libraries' answers can be compared.
#include <bovw/live_database.hpp>
#include "synthetic_images.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::string path = argv[1], out_path = argv[3];
  const std::size_t count = std::strtoul(argv[2], nullptr, 10);
  const bovw::LiveDatabase live = bovw::LiveDatabase::open(path);
  live.waitForCopiedLists();
  SyntheticImages made(65536, 7);  // the seed `make` used
  std::vector<std::vector<std::pair<int, int>>> kept;
  for (int i = 0; i < 2000; ++i) kept.push_back(made.next());
  std::FILE* out = std::fopen(out_path.c_str(), "w");
  std::vector<double> ms;
  for (std::size_t r = 0; r < count + 3; ++r) {
    const auto query = made.query(kept[(r * 7919) % kept.size()]);
    const auto t = Clock::now();
    const auto results = live.database().index().query(query, 10, bovw::Scoring::Intersection);
    const double elapsed = std::chrono::duration<double>(Clock::now() - t).count() * 1e3;
    if (r >= 3) ms.push_back(elapsed);
    for (const auto& result : results) std::fprintf(out, "%s %.15g ", result.name.c_str(), result.score);
    std::fprintf(out, "\n");
  }
  std::fclose(out);
  std::sort(ms.begin(), ms.end());
  std::printf("%zu queries: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", ms.size(), ms[ms.size() / 2],
              ms[ms.size() * 99 / 100], ms.back());
}
