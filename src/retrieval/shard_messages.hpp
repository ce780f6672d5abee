// What the ranks of a sharded search send each other (DistributedShards), as fields of a rank
// message (distributed/rank_message.hpp): the shards each rank holds, top lists of results, the
// shortlist to verify and the inliers counted for it (a query's histogram and words travel as the
// shared fields of rank_message.hpp and image_words_message.hpp). Scores
// travel as the bits of their doubles, so merged rankings are exact.
#pragma once

#include "io/byte_reader.hpp"
#include "io/byte_writer.hpp"
#include "retrieval/shard_identity.hpp"

#include <bovw/geometric_verification.hpp>
#include <bovw/image_words.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/sharded_database.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bovw::retrieval_detail {

// A shard as the other ranks know it.
struct ShardDescription {
  std::size_t index = 0;  // among all the database's shards
  std::string source;     // its path, for messages
  ShardIdentity identity;
  bool stores_keypoints = false;
};
void writeShards(detail::ByteWriter& out, const std::vector<ShardDescription>& shards);
std::vector<ShardDescription> readShards(detail::ByteReader& in);

void writeResults(detail::ByteWriter& out, const std::vector<ShardedResult>& results);
std::vector<ShardedResult> readResults(detail::ByteReader& in);

// A shortlisted result: where its keypoints are.
struct ShortlistEntry {
  std::size_t shard = 0;
  ImageId id = 0;
};
void writeShortlist(detail::ByteWriter& out, const std::vector<ShortlistEntry>& shortlist);
std::vector<ShortlistEntry> readShortlist(detail::ByteReader& in);

// A rank's geometric match of the shortlist's entry `position`: its inliers and homography.
struct ShortlistMatch {
  std::size_t position = 0;
  GeometricMatch match;
};
void writeMatches(detail::ByteWriter& out, const std::vector<ShortlistMatch>& matches);
std::vector<ShortlistMatch> readMatches(detail::ByteReader& in);

}  // namespace bovw::retrieval_detail
