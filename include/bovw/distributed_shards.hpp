// A sharded database spread over the ranks of a job (bovw/communicator.hpp): each rank holds some
// of the shards, the global TF-IDF model is the exact sum of every shard's model over the ranks,
// and queries and geometric verification are collective: each rank scores or verifies the results
// of its own shards, rank 0 merges them. The results (names, scores, order) are those of a
// ShardedDatabase of all the shards, and so those of the unsharded database, for any number of
// ranks; over singleProcess() it is a ShardedDatabase.
//
// Every member function marked collective must be called by all ranks, in the same order, with
// the same top_k and options. A failure on any rank is raised on every rank alike
// (bovw/rank_agreement.hpp), so no rank is left waiting: over one rank the failure itself, as
// ShardedDatabase throws it (IoError, InvalidInput naming the file, ...); over several ranks
// RanksFailed, whose message is that failure's where every rank failed alike, else each failed
// rank's ("rank 1: ...; rank 0: ...").
#pragma once

#include <bovw/communicator.hpp>
#include <bovw/geometric_verification.hpp>
#include <bovw/image_database.hpp>
#include <bovw/sharded_database.hpp>
#include <bovw/tfidf_model.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace bovw {

// Read-only once built (as ShardedDatabase); keeps a reference to `ranks`, which must outlive it.
class DistributedShards {
 public:
  // Collective. `shards` are this rank's, `indices` their places among all the database's shards
  // (every index 0 .. n-1 held by exactly one rank), `sources` their names for messages. Every
  // rank checks every shard's vocabulary and features against shard 0's, so a mismatch fails on
  // all ranks with ShardedDatabase's message naming the shard. Fails (InvalidInput over one rank)
  // also if no rank holds a shard, a shard index is held twice or by none, or the three lists
  // differ in length.
  DistributedShards(Communicator& ranks, std::vector<ImageDatabase> shards, std::vector<std::size_t> indices,
                    std::vector<std::string> sources);

  // Collective. A manifest (looksLikeShardManifest, as rank 0 sees the file), read by rank 0 and
  // sent to every rank: rank r loads the shards s with s mod R == r, each checked against the
  // manifest (and no two of them one file, as ShardedDatabase::load checks); a manifest replaced
  // meanwhile is read again, as there. A single .bovwdb file: rank 0 loads it as shard 0. So rank 0 always holds shard 0. A manifest, or a shard, that any rank
  // cannot load fails on every rank with ShardedDatabase::load's error naming the file: over one
  // rank that IoError or InvalidInput itself, over several RanksFailed listing the failed ranks'
  // errors in shard order (the first failed shard first).
  static DistributedShards load(Communicator& ranks, const std::string& path);

  Communicator& ranks() const { return ranks_; }
  std::size_t shardCount() const { return sources_.size(); }  // on all ranks
  const std::string& source(std::size_t shard) const { return sources_.at(shard); }
  // This rank's shards: the i-th is shard localIndex(i) of the database.
  std::size_t localShardCount() const { return shards_.size(); }
  const ImageDatabase& localShard(std::size_t i) const { return shards_.at(i); }
  std::size_t localIndex(std::size_t i) const { return indices_.at(i); }

  const TfIdfModel& model() const { return model_; }  // the sum of all shards' models, on every rank
  std::size_t size() const { return static_cast<std::size_t>(model_.images()); }  // images in all shards
  bool storesKeypoints() const { return without_keypoints_ == shardCount(); }  // every shard does

  // Collective: ShardedDatabase::query over all shards. `histogram` is read on rank 0 and sent to
  // the others (theirs is ignored: pass an empty one); each rank sends rank 0 its shards' top
  // `top_k`. Returns the merged ranking on rank 0, an empty list on the others. Fails on every
  // rank where ShardedDatabase::query throws.
  std::vector<ShardedResult> query(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options) const;
  // Collective: the same for a query image's words, as ImageDatabase::query ranks them (Scoring::Hamming
  // needs them), every shard scored with model(). `query` is read on rank 0 and sent to the others.
  std::vector<ShardedResult> query(const ImageWords& query, std::size_t top_k, const ScoringOptions& options) const;

  // Collective: ShardedDatabase::verify over all shards. `query` and `ranking` are read on rank 0
  // (the ranking query() returned there; the others' are ignored): rank 0 sends the query's words
  // and the shortlisted results' places, each rank verifies those of its shards and sends back
  // their inliers, rank 0 re-ranks. Returns the verified ranking on rank 0, an empty list on the
  // others; the report (rank 0's) counts every rank's checks, its milliseconds are rank 0's time in
  // the whole call. Fails on every rank naming the first shard without keypoints.
  std::vector<ShardedVerifiedResult> verify(const ImageWords& query, const std::vector<ShardedResult>& ranking,
                                            const VerificationOptions& options,
                                            VerificationReport* report = nullptr) const;

 private:
  // Collective: every rank's top list (`mine`) gathered on rank 0 and merged; empty on the others.
  std::vector<ShardedResult> merged(const std::vector<ShardedResult>& mine, std::size_t top_k) const;

  Communicator& ranks_;
  std::vector<ImageDatabase> shards_;
  std::vector<std::size_t> indices_;
  std::vector<std::string> sources_;  // of every shard, by index
  std::size_t without_keypoints_ = 0;  // the first shard that stores no keypoints; shardCount(): none
  TfIdfModel model_;
};

}  // namespace bovw
