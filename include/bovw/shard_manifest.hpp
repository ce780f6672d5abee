// The manifest of a sharded database (`*.bovwshards`, docs/FORMATS.md): a small JSON file listing
// the shards (each a normal .bovwdb) and what they must share, so that a shard built with another
// vocabulary or other feature settings is refused before it is queried.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace bovw {

struct ShardManifest {
  // Paths of the shards' database files, relative to the manifest's folder (or absolute), in order:
  // results with equal scores are ranked by shard order, then by id within a shard.
  std::vector<std::string> shards;
  int words = 0;                 // K of the shared vocabulary
  std::string descriptor_type;   // "surf64", "orb256-binary", ...
  std::uint64_t fingerprint = 0;  // Vocabulary::fingerprint() of the shared vocabulary
  std::string features;          // the shared FeatureSpec's canonical text

  // JSON, format "bovw shards" version 1. Throws InvalidInput if a text is not UTF-8 (a file name
  // can be any bytes; JSON text cannot).
  void write(std::ostream& out) const;
  // Throws IoError if `path` cannot be read, InvalidInput naming `path` and the problem if it is not
  // a valid manifest (parse).
  static ShardManifest read(const std::string& path);
  // The manifest in `text` (a file's bytes; `path` names it in errors). Throws InvalidInput naming
  // `path` and the problem: not a JSON object, a key given twice in one object, a NUL character in
  // any text, another format or version, a missing or mistyped field, no shard, the same path listed
  // twice. A UTF-8 byte order mark before the JSON text is skipped.
  static ShardManifest parse(const std::vector<char>& text, const std::string& path);
  // The shard's path as the manifest at `manifest_path` means it.
  std::string resolve(const std::string& manifest_path, std::size_t shard) const;
};

// A vocabulary fingerprint as the manifest writes it: 16 lower-case hex digits.
std::string fingerprintText(std::uint64_t fingerprint);

// Whether the file at `path` is JSON (starts with '{' after white space and an optional UTF-8 byte
// order mark), so a manifest rather than a database file (which starts with the magic "BOVWDB").
// False if it cannot be read.
bool looksLikeShardManifest(const std::string& path);

}  // namespace bovw
