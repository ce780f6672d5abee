// A database split into shards: several ImageDatabase files that share a vocabulary and feature
// settings, listed by a manifest (bovw/shard_manifest.hpp). Queries go to every shard at once, each
// scoring its images with the global TF-IDF model (the sum of the shards' models), and the shards'
// top results are merged: the ranking the unsharded database of the same images gives.
#pragma once

#include <bovw/image_database.hpp>
#include <bovw/shard_manifest.hpp>
#include <bovw/tfidf_model.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace bovw {

// Ids are per shard: `id` is the image's id in shard `shard`.
struct ShardedResult {
  std::size_t shard;
  ImageId id;
  std::string name;
  double score;
};

// A verified result of a sharded ranking: `result.id` is the image's id in shard `shard`.
struct ShardedVerifiedResult {
  std::size_t shard;
  VerifiedResult result;
};

// Read-only once built (the shards are not modified through it), so the global model stays that
// of the shards' images; query() may run from several threads at once.
class ShardedDatabase {
 public:
  // `sources` name the shards in error messages (their paths). Throws InvalidInput if there is no
  // shard, or naming the shard and the difference if a shard's vocabulary (K, descriptor type,
  // fingerprint) or feature spec differs from the first shard's.
  ShardedDatabase(std::vector<ImageDatabase> shards, std::vector<std::string> sources);

  // A manifest (looksLikeShardManifest) and exactly the shards it lists, each checked against the
  // manifest's K, descriptor type, fingerprint and features; or a single .bovwdb file, as one shard.
  // Throws IoError or InvalidInput naming the manifest (also when two of its shards are one file)
  // or the missing or damaged shard. A manifest replaced while its shards are loaded (bovw index
  // overwriting the database) is read again: the result is the old database or the new, never a mix.
  static ShardedDatabase load(const std::string& path);

  // The manifest that describes `shards` (their paths as written, relative to the manifest), with
  // the vocabulary and features of `database` (any of them).
  static ShardManifest manifestFor(const ImageDatabase& database, std::vector<std::string> shards);

  std::size_t shardCount() const { return shards_.size(); }
  const ImageDatabase& shard(std::size_t index) const { return shards_.at(index); }
  const std::string& source(std::size_t index) const { return sources_.at(index); }
  // The shared vocabulary and features (the first shard's, which every shard has).
  const Vocabulary& vocabulary() const { return shards_.front().vocabulary(); }
  const FeatureSpec& features() const { return shards_.front().features(); }
  const TfIdfModel& model() const { return model_; }  // the sum of the shards' models
  std::size_t size() const;  // images in all shards

  // The top `top_k` images of all shards, every shard scored with model() (one thread per non-empty
  // shard when there are several), by score descending, then shard order, then id: for shards that
  // split an image list into contiguous runs, added in order, that is the unsharded index's order
  // (score, then id) exactly. Throws InvalidInput as InvertedIndex::query, and "is empty" when no
  // shard holds an image.
  std::vector<ShardedResult> query(HistogramRef histogram, std::size_t top_k, const ScoringOptions& options) const;

  // Whether every shard stores keypoints (ImageDatabase::storesKeypoints), so verify() can run.
  bool storesKeypoints() const;
  // Geometric re-ranking of `ranking` (from query()) as ImageDatabase::verify does it, each result
  // checked against the keypoints of its own shard: the same results and order as the unsharded
  // database's verify of the same ranking. Throws InvalidInput naming the first shard that stores
  // no keypoints.
  std::vector<ShardedVerifiedResult> verify(const ImageWords& query, const std::vector<ShardedResult>& ranking,
                                            const VerificationOptions& options,
                                            VerificationReport* report = nullptr) const;

 private:
  std::vector<ImageDatabase> shards_;
  std::vector<std::string> sources_;
  TfIdfModel model_;
};

}  // namespace bovw
