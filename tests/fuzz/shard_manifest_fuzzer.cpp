// libFuzzer harness: the shard manifest reader (ShardManifest::read, src/retrieval/shard_manifest.cpp)
// on arbitrary files: JSON syntax, duplicate keys and NUL characters (refused), a byte order mark
// (skipped), every field's type and range. The reader takes a path, so the bytes go to a file.
#include "fuzz/fuzz_support.hpp"

#include <bovw/shard_manifest.hpp>

#include <set>
#include <sstream>

using namespace bovw;

namespace {

std::string written(const ShardManifest& m) {
  std::ostringstream out;
  m.write(out);
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".bovwshards");
  const std::string& path = file.write(data, size);
  ShardManifest manifest;
  if (!fuzz::acceptsOrRefuses([&] { manifest = ShardManifest::read(path); })) return 0;
  // The loaders go by looksLikeShardManifest: a file the reader accepts must be taken for a manifest
  // (a byte order mark once made an accepted manifest read as a database of the wrong magic).
  fuzz::require(looksLikeShardManifest(path), "an accepted manifest looks like a manifest");
  // What the loaders rely on: at least one shard, each a non-empty path without a NUL (which would
  // cut it short where the file is opened), no text twice; K positive.
  fuzz::require(!manifest.shards.empty() && manifest.words > 0, "an accepted manifest has shards and K > 0");
  std::set<std::string> seen;
  for (const std::string& shard : manifest.shards)
    fuzz::require(!shard.empty() && shard.find('\0') == std::string::npos && seen.insert(shard).second,
                  "shard paths are non-empty, without NUL, each once");
  // Round trip: what the writer makes of it reads back as the same manifest.
  const std::string text = written(manifest);
  ShardManifest again;
  fuzz::require(fuzz::acceptsOrRefuses([&] {
                  again = ShardManifest::parse(std::vector<char>(text.begin(), text.end()), path);
                }),
                "the writer's text of an accepted manifest is accepted");
  fuzz::require(again.shards == manifest.shards && again.words == manifest.words &&
                    again.descriptor_type == manifest.descriptor_type && again.fingerprint == manifest.fingerprint &&
                    again.features == manifest.features,
                "an accepted manifest reads back as itself");
  return 0;
}
