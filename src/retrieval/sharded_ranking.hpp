// The ranking of a sharded database, in one place for the shards of one process (ShardedDatabase)
// and for shards spread over ranks (DistributedShards): each shard scored with the global model,
// the shards' top lists merged by score descending, then shard order, then id (the unsharded
// index's order for contiguous shards), and the positions by which geometric verification knows
// the results of a merged ranking. Sharing this code is what makes both give the same results.
#pragma once

#include <bovw/error.hpp>
#include <bovw/geometric_verification.hpp>
#include <bovw/image_database.hpp>
#include <bovw/sharded_database.hpp>
#include <bovw/tfidf_model.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace bovw::retrieval_detail {

// A shard and its index among all the database's shards.
struct NumberedShard {
  std::size_t index;
  const ImageDatabase* database;
};

// Throws InvalidInput "sharded database is empty" when `global` counts no image.
void expectImages(const TfIdfModel& global);

// The top `top_k` of `shards` (every non-empty one scored with `global`, one thread per shard when
// there are several), in mergedRanking's order. Throws as InvertedIndex::query: the first failing
// shard's error, in the order of `shards`.
std::vector<ShardedResult> queryShards(const std::vector<NumberedShard>& shards, HistogramRef histogram,
                                       std::size_t top_k, const ScoringOptions& options, const TfIdfModel& global);

// The best `top_k` of `candidates` (the shards' top lists, in any order) by score descending, then
// shard, then id: a total order, so the result does not depend on the order of `candidates`.
std::vector<ShardedResult> mergedRanking(std::vector<ShardedResult> candidates, std::size_t top_k);

// `ranking` as verifyRanking takes it: each result's position in `ranking` stands for its id (ids
// are per shard, positions are unique).
std::vector<SearchResult> byPosition(const std::vector<ShardedResult>& ranking);
// Verified results of byPosition(ranking) with their shards and ids again.
std::vector<ShardedVerifiedResult> fromPositions(const std::vector<ShardedResult>& ranking,
                                                 std::vector<VerifiedResult> verified);

// The error of verifying over a shard without keypoints, naming the shard.
InvalidInput shardWithoutKeypoints(const std::string& source);

}  // namespace bovw::retrieval_detail
