// Scoring shards in parallel with one global model and merging their top lists.
#include "retrieval/sharded_ranking.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <exception>
#include <thread>

#include <omp.h>

namespace bovw::retrieval_detail {

void expectImages(const TfIdfModel& global) {
  if (global.images() == 0) throw InvalidInput("sharded database is empty: none of its shards holds an image");
}

std::vector<ShardedResult> queryShards(const std::vector<NumberedShard>& shards, HistogramRef histogram,
                                       std::size_t top_k, const ScoringOptions& options, const TfIdfModel& global) {
  // Each shard's top_k under the global model holds every image of that shard that can reach the
  // global top_k, so merging them loses nothing.
  std::vector<std::vector<SearchResult>> found(shards.size());
  std::vector<std::exception_ptr> failures(shards.size());
  auto search = [&](std::size_t s) {
    try {
      const InvertedIndex& index = shards[s].database->index();
      if (!index.empty()) found[s] = index.query(histogram, top_k, options, global);
    } catch (...) {
      failures[s] = std::current_exception();
    }
  };
  if (shards.size() == 1) {
    search(0);
  } else {
    // Each shard's query splits its images over OpenMP threads (query_scorer.cpp): the calling
    // thread's share divided among the shards, not a team of every core per shard.
    const int per_shard = std::max(1, omp_get_max_threads() / static_cast<int>(shards.size()));
    std::vector<std::thread> workers;
    workers.reserve(shards.size());
    for (std::size_t s = 0; s < shards.size(); ++s)
      workers.emplace_back([&search, s, per_shard] {
        omp_set_num_threads(per_shard);
        search(s);
      });
    for (auto& worker : workers) worker.join();
  }
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);

  std::vector<ShardedResult> candidates;
  for (std::size_t s = 0; s < found.size(); ++s)
    for (auto& r : found[s]) candidates.push_back({shards[s].index, r.id, std::move(r.name), r.score});
  return mergedRanking(std::move(candidates), top_k);
}

std::vector<ShardedResult> mergedRanking(std::vector<ShardedResult> candidates, std::size_t top_k) {
  const auto better = [](const ShardedResult& a, const ShardedResult& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.shard != b.shard ? a.shard < b.shard : a.id < b.id;
  };
  const std::size_t k = std::min(top_k, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k), candidates.end(), better);
  candidates.resize(k);
  return candidates;
}

std::vector<SearchResult> byPosition(const std::vector<ShardedResult>& ranking) {
  std::vector<SearchResult> positions;
  positions.reserve(ranking.size());
  for (std::size_t r = 0; r < ranking.size(); ++r)
    positions.push_back({static_cast<ImageId>(r), ranking[r].name, ranking[r].score});
  return positions;
}

std::vector<ShardedVerifiedResult> fromPositions(const std::vector<ShardedResult>& ranking,
                                                 std::vector<VerifiedResult> verified) {
  std::vector<ShardedVerifiedResult> results;
  results.reserve(verified.size());
  for (VerifiedResult& v : verified) {
    const ShardedResult& r = ranking.at(v.id);
    v.id = r.id;
    results.push_back({r.shard, std::move(v)});
  }
  return results;
}

InvalidInput shardWithoutKeypoints(const std::string& source) {
  return InvalidInput(source, "this shard stores no keypoints, so results cannot be verified geometrically "
                              "(index the images again with keypoints: bovw index --keypoints)");
}

}  // namespace bovw::retrieval_detail
