// ShardedDatabase: loading and checking the shards and the global model; the ranking itself is
// sharded_ranking.cpp's, shared with DistributedShards.
#include <bovw/sharded_database.hpp>

#include "retrieval/shard_identity.hpp"
#include "retrieval/sharded_ranking.hpp"

#include <bovw/error.hpp>
#include <bovw/geometric_verification.hpp>

#include <algorithm>

namespace bovw {

namespace {

using retrieval_detail::ShardIdentity;

// The shards, once each is found to share the first one's vocabulary and features (before their
// models are merged, so that a shard of another K is named rather than failing the merge).
std::vector<ImageDatabase> checkedShards(std::vector<ImageDatabase> shards, const std::vector<std::string>& sources) {
  std::vector<ShardIdentity> identities;
  for (const auto& shard : shards) identities.push_back(ShardIdentity::of(shard));
  retrieval_detail::expectShardsAgree(identities, sources);
  return shards;
}

TfIdfModel globalModel(const std::vector<ImageDatabase>& shards) {
  TfIdfModel model(shards.front().vocabulary().size());
  for (const auto& shard : shards) model += shard.index().model();
  return model;
}

}  // namespace

ShardedDatabase::ShardedDatabase(std::vector<ImageDatabase> shards, std::vector<std::string> sources)
    : shards_(checkedShards(std::move(shards), sources)), sources_(std::move(sources)), model_(globalModel(shards_)) {}

ShardedDatabase ShardedDatabase::load(const std::string& path) {
  std::vector<ImageDatabase> shards;
  std::vector<std::string> sources;
  if (!looksLikeShardManifest(path)) {
    shards.push_back(ImageDatabase::load(path));
    return ShardedDatabase(std::move(shards), {path});
  }
  const ShardManifest manifest = ShardManifest::read(path);
  const ShardIdentity expected = ShardIdentity::of(manifest);
  for (std::size_t s = 0; s < manifest.shards.size(); ++s) {
    sources.push_back(manifest.resolve(path, s));
    // A missing or damaged shard: load's IoError or InvalidInput names the shard's file.
    shards.push_back(ImageDatabase::load(sources.back()));
    ShardIdentity::of(shards.back()).expectSame(expected, {path, sources.back()}, sources.back(), "the manifest says");
  }
  return ShardedDatabase(std::move(shards), std::move(sources));
}

ShardManifest ShardedDatabase::manifestFor(const ImageDatabase& database, std::vector<std::string> shards) {
  const ShardIdentity identity = ShardIdentity::of(database);
  return {std::move(shards), identity.words, identity.descriptor_type, identity.fingerprint, identity.features};
}

std::size_t ShardedDatabase::size() const {
  std::size_t total = 0;
  for (const auto& shard : shards_) total += shard.index().size();
  return total;
}

std::vector<ShardedResult> ShardedDatabase::query(HistogramRef histogram, std::size_t top_k,
                                                  const ScoringOptions& options) const {
  retrieval_detail::expectImages(model_);
  std::vector<retrieval_detail::NumberedShard> all;
  for (std::size_t s = 0; s < shards_.size(); ++s) all.push_back({s, &shards_[s]});
  return retrieval_detail::queryShards(all, histogram, top_k, options, model_);
}

bool ShardedDatabase::storesKeypoints() const {
  return std::all_of(shards_.begin(), shards_.end(), [](const ImageDatabase& s) { return s.storesKeypoints(); });
}

std::vector<ShardedVerifiedResult> ShardedDatabase::verify(const ImageWords& query,
                                                           const std::vector<ShardedResult>& ranking,
                                                           const VerificationOptions& options,
                                                           VerificationReport* report) const {
  for (std::size_t s = 0; s < shards_.size(); ++s)
    if (!shards_[s].storesKeypoints()) throw retrieval_detail::shardWithoutKeypoints(sources_[s]);
  // verifyRanking knows images by one id: the result's position in `ranking` stands for it, and the
  // lookup finds the keypoints in the result's shard.
  const KeypointLookup lookup = [&](ImageId position) {
    const ShardedResult& r = ranking[position];
    return shards_[r.shard].keypoints(r.id);
  };
  return retrieval_detail::fromPositions(
      ranking, verifyRanking(query, retrieval_detail::byPosition(ranking), lookup, options, report));
}

}  // namespace bovw
