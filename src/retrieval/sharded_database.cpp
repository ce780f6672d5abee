// ShardedDatabase: loading and checking the shards, the global model, and the parallel query whose
// per-shard top lists are merged.
#include <bovw/sharded_database.hpp>

#include <bovw/error.hpp>
#include <bovw/geometric_verification.hpp>

#include <algorithm>
#include <exception>
#include <thread>

namespace bovw {

namespace {

// What a shard must share with the others, as text to compare and to name in messages.
struct ShardIdentity {
  int words;
  std::string descriptor_type;
  std::uint64_t fingerprint;
  std::string features;

  static ShardIdentity of(const ImageDatabase& d) {
    return {d.vocabulary().size(), d.vocabulary().descriptorType().toString(), d.vocabulary().fingerprint(),
            d.features().toString()};
  }
  static ShardIdentity of(const ShardManifest& m) { return {m.words, m.descriptor_type, m.fingerprint, m.features}; }

  // Throws InvalidInput naming `files` and the first difference.
  void expectSame(const ShardIdentity& expected, const std::vector<std::string>& files, const std::string& shard,
                  const std::string& other) const {
    auto refuse = [&](const std::string& what, const std::string& got, const std::string& want) {
      throw InvalidInput(files, "shard '" + shard + "' has " + what + " " + got + ", " + other + " " + want);
    };
    if (words != expected.words) refuse("K =", std::to_string(words), std::to_string(expected.words));
    if (descriptor_type != expected.descriptor_type)
      refuse("descriptor type", "'" + descriptor_type + "'", "'" + expected.descriptor_type + "'");
    if (fingerprint != expected.fingerprint)
      refuse("vocabulary fingerprint", fingerprintText(fingerprint),
             fingerprintText(expected.fingerprint) + " (another vocabulary)");
    if (features != expected.features) refuse("features", "'" + features + "'", "'" + expected.features + "'");
  }
};

// The shards, once each is found to share the first one's vocabulary and features (before their
// models are merged, so that a shard of another K is named rather than failing the merge).
std::vector<ImageDatabase> checkedShards(std::vector<ImageDatabase> shards, const std::vector<std::string>& sources) {
  if (shards.empty()) throw InvalidInput("a sharded database needs at least one shard");
  if (sources.size() != shards.size())
    throw InvalidInput("a sharded database of " + std::to_string(shards.size()) + " shards was given " +
                       std::to_string(sources.size()) + " names for them");
  const ShardIdentity first = ShardIdentity::of(shards.front());
  for (std::size_t s = 1; s < shards.size(); ++s)
    ShardIdentity::of(shards[s]).expectSame(first, {sources[s]}, sources[s], "but shard '" + sources.front() + "' has");
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
  if (model_.images() == 0) throw InvalidInput("sharded database is empty: none of its shards holds an image");
  // Each shard's top_k under the global model holds every image of that shard that can reach the
  // global top_k, so merging them loses nothing.
  std::vector<std::vector<SearchResult>> found(shards_.size());
  std::vector<std::exception_ptr> failures(shards_.size());
  auto search = [&](std::size_t s) {
    try {
      if (!shards_[s].index().empty()) found[s] = shards_[s].index().query(histogram, top_k, options, model_);
    } catch (...) {
      failures[s] = std::current_exception();
    }
  };
  if (shards_.size() == 1) {
    search(0);
  } else {
    std::vector<std::thread> workers;
    workers.reserve(shards_.size());
    for (std::size_t s = 0; s < shards_.size(); ++s) workers.emplace_back(search, s);
    for (auto& worker : workers) worker.join();
  }
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);

  std::vector<ShardedResult> merged;
  for (std::size_t s = 0; s < found.size(); ++s)
    for (auto& r : found[s]) merged.push_back({s, r.id, std::move(r.name), r.score});
  const auto better = [](const ShardedResult& a, const ShardedResult& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.shard != b.shard ? a.shard < b.shard : a.id < b.id;
  };
  const std::size_t k = std::min(top_k, merged.size());
  std::partial_sort(merged.begin(), merged.begin() + static_cast<std::ptrdiff_t>(k), merged.end(), better);
  merged.resize(k);
  return merged;
}

bool ShardedDatabase::storesKeypoints() const {
  return std::all_of(shards_.begin(), shards_.end(), [](const ImageDatabase& s) { return s.storesKeypoints(); });
}

std::vector<ShardedVerifiedResult> ShardedDatabase::verify(const ImageWords& query,
                                                           const std::vector<ShardedResult>& ranking,
                                                           const VerificationOptions& options,
                                                           VerificationReport* report) const {
  for (std::size_t s = 0; s < shards_.size(); ++s)
    if (!shards_[s].storesKeypoints())
      throw InvalidInput(sources_[s], "this shard stores no keypoints, so results cannot be verified geometrically "
                                      "(index the images again with keypoints: bovw index --keypoints)");
  // verifyRanking knows images by one id: the result's position in `ranking` stands for it, and the
  // lookup finds the keypoints in the result's shard.
  std::vector<SearchResult> positions;
  positions.reserve(ranking.size());
  for (std::size_t r = 0; r < ranking.size(); ++r)
    positions.push_back({static_cast<ImageId>(r), ranking[r].name, ranking[r].score});
  const KeypointLookup lookup = [&](ImageId position) {
    const ShardedResult& r = ranking[position];
    return shards_[r.shard].keypoints(r.id);
  };
  std::vector<ShardedVerifiedResult> verified;
  for (VerifiedResult& v : verifyRanking(query, positions, lookup, options, report)) {
    const ShardedResult& r = ranking[v.id];
    v.id = r.id;
    verified.push_back({r.shard, std::move(v)});
  }
  return verified;
}

}  // namespace bovw
