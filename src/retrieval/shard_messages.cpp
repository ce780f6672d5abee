// The fields of sharded search's rank messages: counts first, every count checked against the
// bytes left before anything is allocated for it.
#include "retrieval/shard_messages.hpp"

#include "distributed/rank_message.hpp"

namespace bovw::retrieval_detail {

using detail::readCount;
using detail::readText;
using detail::writeText;

void writeShards(detail::ByteWriter& out, const std::vector<ShardDescription>& shards) {
  out.u64(shards.size());
  for (const ShardDescription& s : shards) {
    out.u64(s.index);
    writeText(out, s.source);
    out.i32(s.identity.words);
    writeText(out, s.identity.descriptor_type);
    out.u64(s.identity.fingerprint);
    writeText(out, s.identity.features);
    out.number<std::uint8_t>(s.stores_keypoints ? 1 : 0);
  }
}

std::vector<ShardDescription> readShards(detail::ByteReader& in) {
  std::vector<ShardDescription> shards(readCount(in, 45, "the shard count"));  // 45: the fixed fields
  for (ShardDescription& s : shards) {
    s.index = in.u64("a shard's index");
    s.source = readText(in, "a shard's name");
    s.identity.words = in.i32("a shard's K");
    s.identity.descriptor_type = readText(in, "a shard's descriptor type");
    s.identity.fingerprint = in.u64("a shard's fingerprint");
    s.identity.features = readText(in, "a shard's features");
    s.stores_keypoints = in.number<std::uint8_t>("whether a shard stores keypoints") != 0;
  }
  return shards;
}

void writeResults(detail::ByteWriter& out, const std::vector<ShardedResult>& results) {
  out.u64(results.size());
  for (const ShardedResult& r : results) {
    out.u64(r.shard);
    out.u32(r.id);
    writeText(out, r.name);
    out.f64(r.score);
  }
}

std::vector<ShardedResult> readResults(detail::ByteReader& in) {
  std::vector<ShardedResult> results(readCount(in, 28, "the result count"));  // 28: the fixed fields
  for (ShardedResult& r : results) {
    r.shard = in.u64("a result's shard");
    r.id = in.u32("a result's id");
    r.name = readText(in, "a result's name");
    r.score = in.f64("a result's score");
  }
  return results;
}

void writeShortlist(detail::ByteWriter& out, const std::vector<ShortlistEntry>& shortlist) {
  out.u64(shortlist.size());
  for (const ShortlistEntry& e : shortlist) {
    out.u64(e.shard);
    out.u32(e.id);
  }
}

std::vector<ShortlistEntry> readShortlist(detail::ByteReader& in) {
  std::vector<ShortlistEntry> shortlist(readCount(in, 12, "the shortlist's length"));
  for (ShortlistEntry& e : shortlist) {
    e.shard = in.u64("a shortlisted shard");
    e.id = in.u32("a shortlisted id");
  }
  return shortlist;
}

void writeMatches(detail::ByteWriter& out, const std::vector<ShortlistMatch>& matches) {
  out.u64(matches.size());
  for (const ShortlistMatch& m : matches) {
    out.u64(m.position);
    out.i32(m.match.correspondences);
    out.i32(m.match.inliers);
    out.f64(m.match.log10_false_alarms);
    writeText(out, m.match.implausible);
    out.number<std::uint8_t>(m.match.homography ? 1 : 0);
    if (m.match.homography)
      for (int i = 0; i < 9; ++i) out.f64(m.match.homography->val[i]);
  }
}

std::vector<ShortlistMatch> readMatches(detail::ByteReader& in) {
  std::vector<ShortlistMatch> matches(readCount(in, 33, "the match count"));  // 33: the fixed fields
  for (ShortlistMatch& m : matches) {
    m.position = in.u64("a shortlist position");
    m.match.correspondences = in.i32("a match's pair count");
    m.match.inliers = in.i32("an inlier count");
    m.match.log10_false_alarms = in.f64("a match's false alarms");
    m.match.implausible = readText(in, "why a homography is implausible");
    const auto has_homography = in.number<std::uint8_t>("whether a match has a homography");
    if (has_homography > 1) in.fail("a homography flag of " + std::to_string(has_homography));
    if (has_homography) {
      cv::Matx33d h;
      for (int i = 0; i < 9; ++i) h.val[i] = in.f64("a homography's element");
      m.match.homography = h;
    }
  }
  return matches;
}

}  // namespace bovw::retrieval_detail
