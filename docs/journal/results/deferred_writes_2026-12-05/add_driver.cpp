// add_driver DB MODE M: what `bovw add` of a folder does to a live database past its features: one
// LiveDatabase::open (MODE mapped: as bovw add opened until 2026-12-05; deferred: as it opens now),
// then one durable write of M synthetic images (the bench's word law, new names each run). Prints
// the open's and the write's seconds and both together; one run per process.
#include <bovw/live_database.hpp>
#include "synthetic_images.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
using Clock = std::chrono::steady_clock;
static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
int main(int argc, char** argv) {
  const std::string path = argv[1], mode = argv[2];
  const std::size_t m = std::atol(argv[3]);
  const auto start = Clock::now();
  bovw::LiveDatabase live = bovw::LiveDatabase::open(
      path, mode == "deferred" ? bovw::PostingMemory::Deferred : bovw::PostingMemory::Mapped);
  const double open = since(start);
  SyntheticImages gen(65536, static_cast<unsigned>(::getpid()));
  std::vector<bovw::NamedImageWords> batch;
  for (std::size_t i = 0; i < m; ++i) {
    bovw::NamedImageWords named{"add" + std::to_string(::getpid()) + "/" + std::to_string(i) + ".jpg", {}};
    for (const auto& [w, c] : gen.next()) named.words.words.insert(named.words.words.end(), c, w);
    batch.push_back(std::move(named));
  }
  const auto write_start = Clock::now();
  live.add(batch);
  const double write = since(write_start);
  std::printf("%s: open %.3f s, write of %zu %.3f s, together %.3f s; %zu images now\n", mode.c_str(), open, m,
              write, open + write, live.size());
}
