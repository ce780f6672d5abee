// DistributedShards: which rank holds which shard, the global model summed over the ranks, and the
// collective query and verification. Per query, rank 0 broadcasts the histogram's non-zero counts
// and gathers each rank's top list (top_k results at most); per verification, it broadcasts the
// query's keypoints and the shortlist's places and gathers the inliers each rank counted.
#include <bovw/distributed_shards.hpp>

#include "distributed/rank_message.hpp"
#include "retrieval/manifest_switch.hpp"
#include "retrieval/shard_identity.hpp"
#include "retrieval/image_words_message.hpp"
#include "retrieval/shard_messages.hpp"
#include "retrieval/sharded_ranking.hpp"

#include <bovw/error.hpp>
#include <bovw/rank_agreement.hpp>
#include <bovw/shard_manifest.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

namespace bovw {

namespace {

using namespace retrieval_detail;

constexpr int kRoot = 0;  // reads the queries, merges the results

std::string rankName(int rank) { return "rank " + std::to_string(rank); }

// Every rank's shards, by index: the same list on every rank, or InvalidInput (on every rank alike:
// they all check the same bytes).
std::vector<ShardDescription> allShards(const std::vector<Bytes>& gathered) {
  std::vector<std::vector<ShardDescription>> held;
  std::size_t count = 0;
  for (std::size_t r = 0; r < gathered.size(); ++r) {
    detail::ByteReader in = detail::messageReader(gathered[r], rankName(static_cast<int>(r)) + "'s shards");
    held.push_back(readShards(in));
    detail::expectMessageEnd(in);
    count += held.back().size();
  }
  std::vector<std::optional<ShardDescription>> by_index(count);
  std::vector<int> holder(count, -1);
  for (std::size_t r = 0; r < held.size(); ++r)
    for (ShardDescription& shard : held[r]) {
      const std::string who = rankName(static_cast<int>(r));
      if (shard.index >= count)
        throw InvalidInput(shard.source, who + " holds it as shard " + std::to_string(shard.index) + ", but the ranks hold " +
                                             std::to_string(count) + " shards in all");
      if (by_index[shard.index])
        throw InvalidInput(shard.source, "shard " + std::to_string(shard.index) + " is held by " +
                                             rankName(holder[shard.index]) + " and by " + who);
      holder[shard.index] = static_cast<int>(r);
      by_index[shard.index] = std::move(shard);
    }
  std::vector<ShardDescription> shards;
  for (auto& shard : by_index) shards.push_back(std::move(*shard));  // all there: count indices, each < count, none twice
  return shards;
}

// The sum over the ranks of their shards' models: integer counts, so exactly the model of all shards.
TfIdfModel modelOverRanks(Communicator& ranks, int words, const std::vector<ImageDatabase>& shards) {
  TfIdfModel local(words);
  for (const auto& shard : shards) local += shard.index().model();
  const std::vector<std::uint64_t> counts = local.counts();
  std::vector<std::int64_t> sums(counts.begin(), counts.end());  // counts of images: far below 2^63
  ranks.sum(sums.data(), sums.size());
  return TfIdfModel::fromCounts(std::vector<std::uint64_t>(sums.begin(), sums.end()));
}

}  // namespace

DistributedShards::DistributedShards(Communicator& ranks, std::vector<ImageDatabase> shards,
                                     std::vector<std::size_t> indices, std::vector<std::string> sources)
    : ranks_(ranks), shards_(std::move(shards)), indices_(std::move(indices)), model_(1) {
  std::exception_ptr failure;
  if (indices_.size() != shards_.size() || sources.size() != shards_.size())
    failure = std::make_exception_ptr(InvalidInput(rankName(ranks_.rank()) + " was given " +
                                                   std::to_string(shards_.size()) + " shards, " +
                                                   std::to_string(indices_.size()) + " shard indices and " +
                                                   std::to_string(sources.size()) + " names"));
  throwIfAnyRankFailed(ranks_, failure, ranks_.rank());

  std::vector<ShardDescription> mine;
  for (std::size_t i = 0; i < shards_.size(); ++i)
    mine.push_back({indices_[i], sources[i], ShardIdentity::of(shards_[i]), shards_[i].storesKeypoints()});
  const std::vector<Bytes> gathered =
      ranks_.allGather(detail::writeMessage([&](detail::ByteWriter& out) { writeShards(out, mine); }));
  // Every rank checks the same bytes and fails alike; agreeing on it makes that RanksFailed too.
  int words = 0;
  everyRankOrNone(ranks_, [&] {
    const std::vector<ShardDescription> all = allShards(gathered);
    std::vector<ShardIdentity> identities;
    for (const ShardDescription& shard : all) {
      identities.push_back(shard.identity);
      sources_.push_back(shard.source);
    }
    expectShardsAgree(identities, sources_);
    without_keypoints_ = static_cast<std::size_t>(
        std::find_if(all.begin(), all.end(), [](const ShardDescription& s) { return !s.stores_keypoints; }) -
        all.begin());
    words = identities.front().words;
  });
  model_ = modelOverRanks(ranks_, words, shards_);
}

DistributedShards DistributedShards::load(Communicator& ranks, const std::string& path) {
  for (int attempt = 1;; ++attempt) {
    // Rank 0 reads the manifest once and every rank takes its shards from these bytes: ranks that
    // read the file each would open two generations' shards if a writer switched it in between.
    Bytes text;
    everyRankOrNone(ranks, [&] {
      if (ranks.rank() != kRoot) return;
      if (!looksLikeShardManifest(path)) return;
      const std::vector<char> bytes = detail::readFileBytes(path);
      text.assign(bytes.begin(), bytes.end());
    });
    ranks.broadcast(text, kRoot);
    std::vector<ImageDatabase> shards;
    std::vector<std::size_t> indices;
    std::vector<std::string> sources;
    std::exception_ptr failure;
    std::int64_t order = -1;  // the manifest, before every shard
    try {
      if (text.empty()) {  // a database file (a manifest is never empty)
        if (ranks.rank() == kRoot) {
          order = 0;
          shards.push_back(ImageDatabase::load(path));
          indices.push_back(0);
          sources.push_back(path);
        }
      } else {
        const ShardManifest manifest = ShardManifest::parse(std::vector<char>(text.begin(), text.end()), path);
        const ShardIdentity expected = ShardIdentity::of(manifest);
        std::vector<std::string> all;
        for (std::size_t s = 0; s < manifest.shards.size(); ++s) all.push_back(manifest.resolve(path, s));
        expectDistinctFiles(path, all);  // on every rank alike (as every rank sees the files)
        const auto stride = static_cast<std::size_t>(ranks.size());
        for (std::size_t s = static_cast<std::size_t>(ranks.rank()); s < all.size(); s += stride) {
          order = static_cast<std::int64_t>(s);
          // A missing or damaged shard: load's IoError or InvalidInput names the shard's file.
          shards.push_back(ImageDatabase::load(all[s]));
          ShardIdentity::of(shards.back()).expectSame(expected, {path, all[s]}, all[s], "the manifest says");
          indices.push_back(s);
          sources.push_back(all[s]);
        }
      }
    } catch (...) {
      failure = std::current_exception();
    }
    // A failure while a writer switched the manifest (the old generation's shards removed): every
    // rank tries again with the new one (retrieval/manifest_switch.hpp).
    if (attempt < kManifestAttempts && !text.empty() && sumOverRanks(ranks, failure ? 1 : 0) > 0) {
      Bytes changed{static_cast<std::uint8_t>(ranks.rank() == kRoot &&
                                              manifestChanged(path, std::vector<char>(text.begin(), text.end())))};
      ranks.broadcast(changed, kRoot);
      if (changed.at(0)) continue;
    }
    throwIfAnyRankFailed(ranks, failure, order);
    return DistributedShards(ranks, std::move(shards), std::move(indices), std::move(sources));
  }
}

std::vector<ShardedResult> DistributedShards::query(HistogramRef histogram, std::size_t top_k,
                                                    const ScoringOptions& options) const {
  const bool root = ranks_.rank() == kRoot;
  Bytes sent;
  if (root && ranks_.size() > 1)
    sent = detail::writeMessage([&](detail::ByteWriter& out) { detail::writeSparseHistogram(out, histogram); });
  if (ranks_.size() > 1) ranks_.broadcast(sent, kRoot);

  std::vector<ShardedResult> mine;
  std::exception_ptr failure;
  try {
    expectImages(model_);  // fails on every rank alike, after the broadcast that every rank makes
    std::vector<NumberedShard> numbered;
    for (std::size_t i = 0; i < shards_.size(); ++i) numbered.push_back({indices_[i], &shards_[i]});
    // Every rank checks the query against the shared vocabulary, whether or not its shards hold
    // images, so a bad query fails every rank alike.
    if (root) {
      checkQueryHistogram(histogram, model_.words());
      mine = queryShards(numbered, histogram, top_k, options, model_);
    } else {
      detail::ByteReader in = detail::messageReader(sent, "rank 0's query");
      const std::vector<std::int32_t> counts = detail::readSparseHistogram(in);
      detail::expectMessageEnd(in);
      const Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>> received(
          counts.data(), static_cast<Eigen::Index>(counts.size()));
      checkQueryHistogram(received, model_.words());
      mine = queryShards(numbered, received, top_k, options, model_);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  throwIfAnyRankFailed(ranks_, failure, ranks_.rank());
  return merged(mine, top_k);
}

std::vector<ShardedResult> DistributedShards::query(const ImageWords& query, std::size_t top_k,
                                                    const ScoringOptions& options) const {
  const bool root = ranks_.rank() == kRoot;
  Bytes sent;
  if (root && ranks_.size() > 1)
    sent = detail::writeMessage([&](detail::ByteWriter& out) { detail::writeImageWords(out, query); });
  if (ranks_.size() > 1) ranks_.broadcast(sent, kRoot);

  std::vector<ShardedResult> mine;
  std::exception_ptr failure;
  try {
    expectImages(model_);  // fails on every rank alike, after the broadcast that every rank makes
    ImageWords received;
    if (!root) {
      detail::ByteReader in = detail::messageReader(sent, "rank 0's query");
      received = detail::readImageWords(in);
      detail::expectMessageEnd(in);
    }
    const ImageWords& words = root ? query : received;
    histogramOf(words, model_.words(), "the query");  // every rank checks it, whatever its shards hold
    for (std::size_t i = 0; i < shards_.size(); ++i) {
      if (shards_[i].index().empty()) continue;
      if (options.weak_geometry && shards_[i].storesKeypoints() && !shards_[i].storesScaleAndAngle())
        throw InvalidInput(sources_.at(indices_[i]),
                           "keeps its keypoints without scale and angle (written before database format version "
                           "5), so it cannot score by weak geometric consistency (+wgc); index the images again "
                           "(bovw index --keypoints)");
      for (SearchResult& r : shards_[i].query(words, top_k, options, model_))
        mine.push_back({indices_[i], r.id, std::move(r.name), r.score});
    }
  } catch (...) {
    failure = std::current_exception();
  }
  throwIfAnyRankFailed(ranks_, failure, ranks_.rank());
  return merged(mine, top_k);
}

std::vector<ShardedResult> DistributedShards::merged(const std::vector<ShardedResult>& mine, std::size_t top_k) const {
  const std::vector<Bytes> top_lists =
      ranks_.gather(detail::writeMessage([&](detail::ByteWriter& out) { writeResults(out, mine); }), kRoot);
  if (ranks_.rank() != kRoot) return {};
  std::vector<ShardedResult> candidates;
  for (std::size_t r = 0; r < top_lists.size(); ++r) {
    detail::ByteReader in = detail::messageReader(top_lists[r], rankName(static_cast<int>(r)) + "'s results");
    for (ShardedResult& result : readResults(in)) candidates.push_back(std::move(result));
    detail::expectMessageEnd(in);
  }
  return mergedRanking(std::move(candidates), top_k);
}

std::vector<ShardedVerifiedResult> DistributedShards::verify(const ImageWords& query,
                                                             const std::vector<ShardedResult>& ranking,
                                                             const VerificationOptions& options,
                                                             VerificationReport* report) const {
  const auto start = std::chrono::steady_clock::now();
  const bool root = ranks_.rank() == kRoot;
  std::vector<ShortlistEntry> shortlist;
  if (root)
    for (std::size_t i = 0; i < std::min(options.shortlist, ranking.size()); ++i)
      shortlist.push_back({ranking[i].shard, ranking[i].id});
  Bytes sent;
  if (root && ranks_.size() > 1)
    sent = detail::writeMessage([&](detail::ByteWriter& out) {
      detail::writeImageWords(out, query);
      writeShortlist(out, shortlist);
    });
  if (ranks_.size() > 1) ranks_.broadcast(sent, kRoot);

  std::vector<ShortlistMatch> mine;
  std::exception_ptr failure;
  try {
    // Fails on every rank alike, after the broadcast that every rank makes.
    if (!storesKeypoints()) throw shardWithoutKeypoints(sources_.at(without_keypoints_));
    ImageWords received;
    if (!root) {
      detail::ByteReader in = detail::messageReader(sent, "rank 0's verification");
      received = detail::readImageWords(in);
      shortlist = readShortlist(in);
      detail::expectMessageEnd(in);
    }
    // The shortlist by position (as byPosition gives it); this rank finds the keypoints of its own
    // shards' results only, the others are counted where their shards are.
    std::vector<SearchResult> positions;
    for (std::size_t p = 0; p < shortlist.size(); ++p) positions.push_back({static_cast<ImageId>(p), {}, 0.0});
    const KeypointLookup lookup = [&](ImageId position) -> std::optional<ImageWords> {
      const ShortlistEntry& entry = shortlist.at(position);
      for (std::size_t i = 0; i < shards_.size(); ++i)
        if (indices_[i] == entry.shard) return shards_[i].keypoints(entry.id);
      return std::nullopt;
    };
    const auto matched = matchShortlist(root ? query : received, positions, lookup, options);
    for (std::size_t p = 0; p < matched.size(); ++p)
      if (matched[p]) mine.push_back({p, *matched[p]});
  } catch (...) {
    failure = std::current_exception();
  }
  throwIfAnyRankFailed(ranks_, failure, ranks_.rank());

  const std::vector<Bytes> replies =
      ranks_.gather(detail::writeMessage([&](detail::ByteWriter& out) { writeMatches(out, mine); }), kRoot);
  if (!root) return {};
  std::vector<std::optional<GeometricMatch>> matches(shortlist.size());
  for (std::size_t r = 0; r < replies.size(); ++r) {
    detail::ByteReader in = detail::messageReader(replies[r], rankName(static_cast<int>(r)) + "'s matches");
    for (ShortlistMatch& m : readMatches(in)) {
      if (m.position >= matches.size())
        in.fail("a match for position " + std::to_string(m.position) + " of a shortlist of " +
                std::to_string(matches.size()));
      matches[m.position] = std::move(m.match);
    }
    detail::expectMessageEnd(in);
  }
  std::vector<VerifiedResult> verified = rerankByMatches(byPosition(ranking), matches, options, report);
  if (report)
    report->milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return fromPositions(ranking, std::move(verified));
}

}  // namespace bovw
