// ShardedDatabase: loading and checking the shards and the global model; the ranking itself is
// sharded_ranking.cpp's, shared with DistributedShards.
#include <bovw/sharded_database.hpp>

#include "retrieval/manifest_switch.hpp"
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

// Exactly the files `manifest` names, each checked against it.
ShardedDatabase loadShards(const std::string& path, const ShardManifest& manifest) {
  std::vector<ImageDatabase> shards;
  std::vector<std::string> sources;
  const ShardIdentity expected = ShardIdentity::of(manifest);
  for (std::size_t s = 0; s < manifest.shards.size(); ++s) sources.push_back(manifest.resolve(path, s));
  retrieval_detail::expectDistinctFiles(path, sources);
  for (const std::string& source : sources) {
    // A missing or damaged shard: load's IoError or InvalidInput names the shard's file.
    shards.push_back(ImageDatabase::load(source));
    ShardIdentity::of(shards.back()).expectSame(expected, {path, source}, source, "the manifest says");
  }
  return ShardedDatabase(std::move(shards), std::move(sources));
}

}  // namespace

ShardedDatabase::ShardedDatabase(std::vector<ImageDatabase> shards, std::vector<std::string> sources)
    : shards_(checkedShards(std::move(shards), sources)), sources_(std::move(sources)), model_(globalModel(shards_)) {}

ShardedDatabase ShardedDatabase::load(const std::string& path) {
  if (!looksLikeShardManifest(path)) {
    std::vector<ImageDatabase> shards;
    shards.push_back(ImageDatabase::load(path));
    return ShardedDatabase(std::move(shards), {path});
  }
  // The shards of the manifest as read once. A writer may switch the manifest to a new generation
  // and remove the old one's shards while they are being loaded (docs/FORMATS.md): a failure when
  // the manifest has changed meanwhile is retried with the new one.
  for (int attempt = 1;; ++attempt) {
    const std::vector<char> text = detail::readFileBytes(path);
    try {
      return loadShards(path, ShardManifest::parse(text, path));
    } catch (const Error&) {
      if (attempt == retrieval_detail::kManifestAttempts || !retrieval_detail::manifestChanged(path, text)) throw;
    }
  }
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
