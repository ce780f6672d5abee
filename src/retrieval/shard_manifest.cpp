// ShardManifest: the JSON text of a sharded database's manifest, checked field by field on reading.
#include <bovw/shard_manifest.hpp>

#include <bovw/error.hpp>

#include "io/file_bytes.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <filesystem>
#include <limits>
#include <set>

namespace bovw {

namespace {

constexpr const char* kFormatName = "bovw shards";
constexpr int kVersion = 1;

template <typename T>
T field(const nlohmann::json& j, const char* name, const std::string& path, const char* type) {
  const auto it = j.find(name);
  bool ok = it != j.end();
  if (ok) {
    if constexpr (std::is_same_v<T, std::string>) ok = it->is_string();
    else ok = it->is_number_integer();
  }
  if (!ok) throw InvalidInput(path, std::string("the manifest needs \"") + name + "\" (" + type + ")");
  return it->get<T>();
}

}  // namespace

void ShardManifest::write(std::ostream& out) const {
  const nlohmann::json j = {{"format", kFormatName},   {"version", kVersion},
                            {"words", words},          {"descriptor_type", descriptor_type},
                            {"vocabulary_fingerprint", fingerprintText(fingerprint)}, {"features", features},
                            {"shards", shards}};
  out << j.dump(2) << "\n";
}

ShardManifest ShardManifest::read(const std::string& path) {
  const std::vector<char> bytes = detail::readFileBytes(path);
  const nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw InvalidInput(path, "not a shard manifest (not a JSON object)");
  if (field<std::string>(j, "format", path, "text") != kFormatName)
    throw InvalidInput(path, "format '" + j["format"].get<std::string>() + "' is not '" + kFormatName + "'");
  const auto version = field<std::int64_t>(j, "version", path, "an integer");
  if (version != kVersion)
    throw InvalidInput(path, "manifest version " + std::to_string(version) + " (this bovw reads version " +
                                 std::to_string(kVersion) + ")");
  ShardManifest m;
  const auto words = field<std::int64_t>(j, "words", path, "an integer");
  if (words < 1 || words > std::numeric_limits<int>::max())
    throw InvalidInput(path, "\"words\" is " + std::to_string(words) + "; K must be a positive int");
  m.words = static_cast<int>(words);
  m.descriptor_type = field<std::string>(j, "descriptor_type", path, "text");
  m.features = field<std::string>(j, "features", path, "text");
  const std::string fingerprint = field<std::string>(j, "vocabulary_fingerprint", path, "16 hex digits");
  if (fingerprint.size() != 16 ||
      fingerprint.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw InvalidInput(path, "vocabulary_fingerprint '" + fingerprint + "' is not 16 lower-case hex digits");
  m.fingerprint = std::stoull(fingerprint, nullptr, 16);
  const auto shards = j.find("shards");
  if (shards == j.end() || !shards->is_array() || shards->empty())
    throw InvalidInput(path, "the manifest needs \"shards\" (a non-empty list of database paths)");
  std::set<std::string> seen;
  for (const auto& shard : *shards) {
    if (!shard.is_string() || shard.get<std::string>().empty())
      throw InvalidInput(path, "every entry of \"shards\" must be a non-empty path");
    if (!seen.insert(shard.get<std::string>()).second)
      throw InvalidInput(path, "shard '" + shard.get<std::string>() + "' is listed twice");
    m.shards.push_back(shard.get<std::string>());
  }
  return m;
}

std::string ShardManifest::resolve(const std::string& manifest_path, std::size_t shard) const {
  return (std::filesystem::path(manifest_path).parent_path() / shards.at(shard)).string();
}

// 16 hex digits: JSON readers that hold numbers as doubles would round a u64.
std::string fingerprintText(std::uint64_t fingerprint) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, fingerprint >>= 4) text[static_cast<std::size_t>(i)] = digits[fingerprint & 0xf];
  return text;
}

bool looksLikeShardManifest(const std::string& path) {
  try {
    detail::InputFile file(path);  // a FIFO or device is not opened for reading: false, and load() says why
    char chunk[4096];
    while (const std::size_t n = file.readSome(chunk, sizeof chunk))
      for (std::size_t i = 0; i < n; ++i)
        if (!std::isspace(static_cast<unsigned char>(chunk[i]))) return chunk[i] == '{';
  } catch (const IoError&) {
  }
  return false;
}

}  // namespace bovw
