// Open driver (issue 21; from ../live_in_place_2026-12-02/open_driver.cpp, the process's own memory
// now RssAnon, which counts the region the lists are copied into, where mallinfo counted the heap):
// makes a live database of N synthetic images (K = 65,536, the bench's images, batches of 1,000, a
// checkpoint at the end), or times LiveDatabase::open of one (one open per process) and then Q
// queries (intersection, top 10, queries: indexed images with 30% of their words dropped), or adds M
// more images after its checkpoint (which the next open replays), or after the open adds M images
// one write at a time and reports the rate and the own memory after them ("writes"), or writes a
// checkpoint after the open ("checkpoint").
#include <bovw/live_database.hpp>
#include "synthetic_images.hpp"
#include "index/index_editor.hpp"
#include "index/posting_list.hpp"
#include <string>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
using Clock = std::chrono::steady_clock;
static double rss() { std::ifstream s("/proc/self/statm"); double a, b; s >> a >> b; return b * 4096; }
static double heap() {  // RssAnon, bytes
  std::ifstream s("/proc/self/status");
  for (std::string line; std::getline(s, line);)
    if (line.rfind("RssAnon:", 0) == 0) return 1024.0 * std::stod(line.substr(8));
  return 0;
}
static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
static void addImages(bovw::LiveDatabase& live, SyntheticImages& gen, const std::string& prefix, std::size_t n) {
  for (std::size_t b = 0; b < n; b += 1000) {
    std::vector<bovw::NamedImageWords> batch;
    for (std::size_t i = b; i < std::min(n, b + 1000); ++i) {
      bovw::NamedImageWords named{prefix + std::to_string(i) + ".jpg", {}};
      for (const auto& [w, c] : gen.next()) named.words.words.insert(named.words.words.end(), c, w);
      batch.push_back(std::move(named));
    }
    live.add(batch);
  }
}
int main(int argc, char** argv) {
  const std::string mode = argv[1], path = argv[2];
  const std::size_t n = argc > 3 ? std::atol(argv[3]) : 0;
  if (mode == "make") {
    const bovw::Vocabulary vocabulary(bovw::Descriptors::Zero(65536, 64), bovw::DescriptorType::parse("surf64"));
    auto t = Clock::now();
    bovw::LiveDatabase live = bovw::LiveDatabase::create(path, vocabulary, bovw::FeatureSpec("surf"));
    SyntheticImages gen(65536, 7);
    addImages(live, gen, "img/", n);
    live.checkpoint();
    printf("made %zu images in %.1f s\n", n, since(t));
    return 0;
  }
  const double heap_before = heap();
  auto t = Clock::now();
  bovw::LiveDatabase live = bovw::LiveDatabase::open(path, getenv("MAPPED") ? bovw::PostingMemory::Mapped : bovw::PostingMemory::Copied);
  const double open = since(t);
  const auto& o = live.opening();
  const auto& index = live.database().index();
  printf("open %.3f s, %zu images, %llu postings, from %s%s; rss %.2f GB, own %.3f GB (%.2f bytes a posting), postingBytes %.2f a posting\n",
         open, (size_t)index.size(), (unsigned long long)index.postingCount(),
         o.checkpoint ? ("checkpoint " + std::to_string(*o.checkpoint)).c_str() : "records", o.refused.c_str(),
         rss() / 1e9, (heap() - heap_before) / 1e9, (heap() - heap_before) / index.postingCount(),
         double(index.postingBytes()) / index.postingCount());
  if (mode == "writes") {
    SyntheticImages gen(65536, 13);
    t = Clock::now();
    const std::string run = "w" + std::to_string(::getpid()) + "-";  // names new in each run
    for (std::size_t i = 0; i < n; ++i) addImages(live, gen, run + std::to_string(i) + "/", 1);
    printf("%zu single writes: %.1f images/s; own %.3f GB\n", n, n / since(t), (heap() - heap_before) / 1e9);
  }
  if (mode == "checkpoint") {
    t = Clock::now();
    live.checkpoint();
    printf("checkpoint in %.1f s\n", since(t));
  }
  if (mode == "add") {
    SyntheticImages gen(65536, 11);
    t = Clock::now();
    addImages(live, gen, "more/", n);
    printf("added %zu in %.1f s\n", n, since(t));
  }
  if (mode == "query" || mode == "query2") {
   for (int round = 0; round < (mode == "query2" ? 2 : 1); ++round) {
    if (round == 1) {
      auto& data = const_cast<bovw::index_detail::IndexData&>(bovw::index_detail::IndexEditor::data(index));
      t = Clock::now();
      for (auto& list : data.postings) list.eraseIf([](bovw::ImageId) { return false; });
      printf("owned every list in %.1f s\n", since(t));
    }
    SyntheticImages gen(65536, 7);  // the same images as made: queries are indexed images
    std::vector<std::vector<std::pair<int, int>>> kept;
    for (std::size_t i = 0; i < 2000; ++i) kept.push_back(gen.next());
    std::vector<double> ms;
    for (std::size_t r = 0; r < n + 3; ++r) {
      const auto q = gen.query(kept[(r * 7919) % kept.size()]);
      t = Clock::now();
      const auto res = index.query(q, 10, bovw::Scoring::Intersection);
      if (r == 0) printf("first query %.1f ms\n", since(t) * 1e3);
      if (r >= 3) ms.push_back(since(t) * 1e3);
      if (res.empty()) return 1;
    }
    std::sort(ms.begin(), ms.end());
    printf("queries %zu: p50 %.2f ms, p99 %.2f ms; rss %.2f GB\n", ms.size(), ms[ms.size() / 2], ms[ms.size() * 99 / 100], rss() / 1e9);
   }
  }
}
