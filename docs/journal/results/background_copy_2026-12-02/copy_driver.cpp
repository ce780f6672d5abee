// Copy driver (issue 21; databases made by ../list_region_2026-12-02/open_driver.cpp's `make`): one
// LiveDatabase::open per process, PostingMemory::Copied unless MAPPED is set, and how long until it
// is searchable (open returns) and until its lists are copied (waitForCopiedLists); Q queries
// (intersection, top 10, indexed images with 30% of their words dropped) timed either as soon as the
// open returns, beside the copy ("early"), or after the copy ("after").
#include <bovw/live_database.hpp>
#include "synthetic_images.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

static double ownBytes() {  // RssAnon
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return 1024.0 * std::stod(line.substr(8));
  return 0;
}

// 1 + `count` queries, each an image of the made set with 30% of its words dropped: the first one
// (which computes the normalisers), then p50, p99 and the slowest of the others, in ms.
static void timeQueries(const bovw::LiveDatabase& live, std::size_t count) {
  if (count == 0) return;
  SyntheticImages made(65536, 7);  // the seed `make` used
  std::vector<std::vector<std::pair<int, int>>> kept;
  for (int i = 0; i < 2000; ++i) kept.push_back(made.next());
  std::vector<double> ms;
  for (std::size_t r = 0; r <= count; ++r) {
    const auto query = made.query(kept[(r * 7919) % kept.size()]);
    const auto t = Clock::now();
    if (live.database().index().query(query, 10, bovw::Scoring::Intersection).empty()) std::exit(1);
    ms.push_back(since(t) * 1e3);
  }
  const double first = ms.front();
  ms.erase(ms.begin());
  std::sort(ms.begin(), ms.end());
  std::printf("first query %.1f ms, %zu more: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", first, ms.size(),
              ms[ms.size() / 2], ms[ms.size() * 99 / 100], ms.back());
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string mode = argv[1], path = argv[2];
  const std::size_t queries = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 0;
  const double own_before = ownBytes();
  const auto start = Clock::now();
  const bovw::LiveDatabase live =
      bovw::LiveDatabase::open(path, std::getenv("MAPPED") ? bovw::PostingMemory::Mapped : bovw::PostingMemory::Copied);
  const double searchable = since(start);
  if (mode == "early") timeQueries(live, queries);
  const bool copied = live.waitForCopiedLists();
  const double done = since(start);
  const auto postings = static_cast<double>(live.database().index().postingCount());
  std::printf("searchable after %.3f s, %s after %.3f s; %zu images, own memory %.2f bytes a posting\n", searchable,
              copied ? "copied" : "not copied", done, live.database().index().size(), (ownBytes() - own_before) / postings);
  if (mode == "after") timeQueries(live, queries);
}
