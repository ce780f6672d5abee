// What every shard of a sharded database must share with the others (K, descriptor type, vocabulary
// fingerprint, feature spec), and the one check of it that names the odd shard. Used where shards
// are loaded from a manifest, joined in one process (ShardedDatabase) and spread over the ranks of a
// job (DistributedShards), so all three refuse a mismatch with the same message; and that the
// shards a manifest lists are distinct files.
#pragma once

#include <bovw/image_database.hpp>
#include <bovw/shard_manifest.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bovw::retrieval_detail {

struct ShardIdentity {
  int words = 0;
  std::string descriptor_type;
  std::uint64_t fingerprint = 0;
  std::string features;

  static ShardIdentity of(const ImageDatabase& database);
  static ShardIdentity of(const ShardManifest& manifest);

  // Throws InvalidInput naming `files` and the first difference: "shard 'SHARD' has WHAT GOT, OTHER
  // WANT" (`other`: "the manifest says", "but shard 'X' has").
  void expectSame(const ShardIdentity& expected, const std::vector<std::string>& files, const std::string& shard,
                  const std::string& other) const;
};

// Throws InvalidInput if there is no shard, if `sources` (the shards' names) are not one per shard,
// or naming the first shard, in order, that differs from the first one.
void expectShardsAgree(const std::vector<ShardIdentity>& shards, const std::vector<std::string>& sources);

// Throws InvalidInput naming `manifest` if two of `sources` (its shards' paths as resolved) are one
// file: compared by the file itself (device and inode), not by the text, so that "S-0.bovwdb" and
// "./S-0.bovwdb", a symbolic or a hard link to it are found to be the same shard, which would be
// counted twice. A path that names no file is passed over (loading it will say so).
void expectDistinctFiles(const std::string& manifest, const std::vector<std::string>& sources);

}  // namespace bovw::retrieval_detail
