// ShardManifest: the JSON text of a sharded database's manifest, checked field by field on reading.
#include <bovw/shard_manifest.hpp>

#include <bovw/error.hpp>

#include "io/file_bytes.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <set>

namespace bovw {

namespace {

constexpr const char* kFormatName = "bovw shards";
constexpr int kVersion = 1;
constexpr char kByteOrderMark[] = "\xEF\xBB\xBF";

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

// A text as an error message may show it: a NUL (which would end the message) as \u0000, at most
// 100 bytes of it.
std::string printable(const std::string& text) {
  std::string shown;
  for (std::size_t i = 0; i < text.size() && i < 100; ++i) shown += text[i] ? std::string(1, text[i]) : "\\u0000";
  return text.size() > 100 ? shown + "..." : shown;
}

// The JSON object of `text`, refusing what a JSON reader would take silently but a manifest must
// not hold: a key given twice in one object (nlohmann, like most readers, keeps one of them), and a
// NUL character (\u0000) in a key or a text (a path would end there when opened). A UTF-8 byte
// order mark before the text is skipped, as RFC 8259 allows readers to do: editors add one.
nlohmann::json parseJson(const std::vector<char>& text, const std::string& path) {
  // One mark at most: nlohmann would skip a second one too, which looksLikeShardManifest does not.
  auto startsWithMark = [&](std::vector<char>::const_iterator at) {
    return text.end() - at >= 3 && std::equal(kByteOrderMark, kByteOrderMark + 3, at);
  };
  auto begin = text.begin();
  if (startsWithMark(begin)) begin += 3;
  if (startsWithMark(begin)) throw InvalidInput(path, "not a shard manifest (not a JSON object)");
  std::string problem;
  std::vector<std::set<std::string>> keys;  // of each object being read, innermost last
  const nlohmann::json::parser_callback_t check = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end && !keys.empty()) keys.pop_back();
    if (!problem.empty() || (event != Event::key && event != Event::value) || !parsed.is_string()) return true;
    const std::string& s = parsed.get_ref<const std::string&>();
    if (s.find('\0') != std::string::npos)
      problem = "the text \"" + printable(s) + "\" holds a NUL character (\\u0000), which no path or name may";
    else if (event == Event::key && !keys.empty() && !keys.back().insert(s).second)
      problem = "the key \"" + printable(s) + "\" is given twice in one object";
    return true;
  };
  const nlohmann::json j = nlohmann::json::parse(begin, text.end(), check, false);
  if (j.is_discarded() || !j.is_object()) throw InvalidInput(path, "not a shard manifest (not a JSON object)");
  if (!problem.empty()) throw InvalidInput(path, problem);
  return j;
}

}  // namespace

void ShardManifest::write(std::ostream& out) const {
  const nlohmann::json j = {{"format", kFormatName},   {"version", kVersion},
                            {"words", words},          {"descriptor_type", descriptor_type},
                            {"vocabulary_fingerprint", fingerprintText(fingerprint)}, {"features", features},
                            {"shards", shards}};
  try {
    out << j.dump(2) << "\n";
  } catch (const nlohmann::json::type_error&) {  // text that is not UTF-8, which JSON cannot hold
    throw InvalidInput("a shard manifest holds UTF-8 text only; a shard's path or a name here is not UTF-8");
  }
}

ShardManifest ShardManifest::read(const std::string& path) { return parse(detail::readFileBytes(path), path); }

ShardManifest ShardManifest::parse(const std::vector<char>& text, const std::string& path) {
  const nlohmann::json j = parseJson(text, path);
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
  // The same text twice is refused here; the same file under two names ("./S-0.bovwdb",
  // a link) by the loaders, which compare the files themselves (retrieval/shard_identity.hpp).
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
    // A FIFO or device is not opened for reading: false, and load() says why.
    detail::InputFile file(path);
    char chunk[4096];
    std::size_t seen = 0, skip = 0;  // a byte order mark is skipped, as ShardManifest::parse skips it
    while (const std::size_t n = file.readSome(chunk, sizeof chunk)) {
      for (std::size_t i = 0; i < n; ++i, ++seen) {
        const unsigned char c = static_cast<unsigned char>(chunk[i]);
        if (seen == skip && skip < 3 && c == static_cast<unsigned char>(kByteOrderMark[skip])) {
          ++skip;
          continue;
        }
        if (skip > 0 && skip < 3) return false;  // only a whole mark
        if (!std::isspace(c)) return c == '{';
      }
    }
  } catch (const IoError&) {
  }
  return false;
}

}  // namespace bovw
