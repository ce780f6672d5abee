// ShardIdentity: the shared settings of a shard, compared field by field; distinct shard files.
#include "retrieval/shard_identity.hpp"

#include <bovw/error.hpp>

#include <sys/stat.h>

#include <map>
#include <utility>

namespace bovw::retrieval_detail {

ShardIdentity ShardIdentity::of(const ImageDatabase& d) {
  return {d.vocabulary().size(), d.vocabulary().descriptorType().toString(), d.vocabulary().fingerprint(),
          d.features().toString()};
}

ShardIdentity ShardIdentity::of(const ShardManifest& m) {
  return {m.words, m.descriptor_type, m.fingerprint, m.features};
}

void ShardIdentity::expectSame(const ShardIdentity& expected, const std::vector<std::string>& files,
                               const std::string& shard, const std::string& other) const {
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

void expectShardsAgree(const std::vector<ShardIdentity>& shards, const std::vector<std::string>& sources) {
  if (shards.empty()) throw InvalidInput("a sharded database needs at least one shard");
  if (sources.size() != shards.size())
    throw InvalidInput("a sharded database of " + std::to_string(shards.size()) + " shards was given " +
                       std::to_string(sources.size()) + " names for them");
  for (std::size_t s = 1; s < shards.size(); ++s)
    shards[s].expectSame(shards.front(), {sources[s]}, sources[s], "but shard '" + sources.front() + "' has");
}

void expectDistinctFiles(const std::string& manifest, const std::vector<std::string>& sources) {
  std::map<std::pair<dev_t, ino_t>, const std::string*> seen;
  for (const std::string& source : sources) {
    struct stat status {};
    if (::stat(source.c_str(), &status) != 0) continue;
    const auto [at, added] = seen.emplace(std::make_pair(status.st_dev, status.st_ino), &source);
    if (!added)
      throw InvalidInput(manifest, "shards '" + *at->second + "' and '" + source +
                                       "' are the same file (a shard listed twice would be counted twice)");
  }
}

}  // namespace bovw::retrieval_detail
