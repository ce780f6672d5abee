// ShardedWrite: generation names, the folder's lock, and the removal of replaced shards.
#include <bovw/shard_generations.hpp>

#include <bovw/error.hpp>
#include <bovw/shard_manifest.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

namespace bovw {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestExtension = ".bovwshards";
constexpr const char* kShardExtension = ".bovwdb";

std::string stemOf(const std::string& manifest) {
  const fs::path name = fs::path(manifest).filename();
  if (name.extension() != kManifestExtension || name.stem().empty())
    throw InvalidInput(manifest, std::string("a sharded database's manifest must be named STEM") + kManifestExtension);
  return name.stem().string();
}

// The number at the start of `text` (from `at`), canonical (no leading zero) and of at most
// `digits` digits, so that it cannot overflow; advances `at` past it.
std::optional<std::uint64_t> numberAt(const std::string& text, std::size_t& at, std::size_t digits) {
  std::size_t end = at;
  while (end < text.size() && end - at < digits + 1 && text[end] >= '0' && text[end] <= '9') ++end;
  if (end == at || end - at > digits || (text[at] == '0' && end - at > 1)) return std::nullopt;
  const std::uint64_t value = std::stoull(text.substr(at, end - at));
  at = end;
  return value;
}

// Whether `text` continues with `part` at `at`; advances `at` past it.
bool takes(const std::string& text, std::size_t& at, const std::string& part) {
  if (text.compare(at, part.size(), part) != 0) return false;
  at += part.size();
  return true;
}

// The generation of `name` if it is STEM-g<G>-<s>.bovwdb, the name of a shard of this manifest.
// Exactly that form: another manifest's stem never makes a name of this form (its shards end in
// -g<G>-<s>.bovwdb after their own stem), so no other manifest's file is taken for one of ours.
std::optional<std::uint64_t> generationOf(const std::string& name, const std::string& stem) {
  std::size_t at = 0;
  if (!takes(name, at, stem + "-g")) return std::nullopt;
  const auto generation = numberAt(name, at, 18);
  if (!generation || *generation == 0 || !takes(name, at, "-") || !numberAt(name, at, 9) ||
      !takes(name, at, kShardExtension) || at != name.size())
    return std::nullopt;
  return generation;
}

// Whether `name` is STEM-<s>.bovwdb, as bovw named shards before generations.
bool isUnversionedShardName(const std::string& name, const std::string& stem) {
  std::size_t at = 0;
  return takes(name, at, stem + "-") && numberAt(name, at, 9) && takes(name, at, kShardExtension) && at == name.size();
}

fs::path folderOf(const std::string& manifest) {
  const fs::path folder = fs::path(manifest).parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

}  // namespace

std::vector<std::string> shardFileNames(const std::string& manifest, std::uint64_t generation, std::size_t shards) {
  const std::string stem = stemOf(manifest);
  std::vector<std::string> names;
  for (std::size_t s = 0; s < shards; ++s)
    names.push_back(stem + "-g" + std::to_string(generation) + "-" + std::to_string(s) + kShardExtension);
  return names;
}

ShardedWrite::ShardedWrite(const std::string& manifest, const std::function<void(const std::string&)>& tell)
    : manifest_(manifest), stem_(stemOf(manifest)) {
  const fs::path folder = folderOf(manifest);
  folder_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_ < 0) throw IoError("cannot write '" + manifest + "': " + std::strerror(errno));
  int locked = ::flock(folder_, LOCK_EX | LOCK_NB);
  if (locked != 0 && errno == EWOULDBLOCK) {
    if (tell) tell("waiting for another bovw writing a sharded database into '" + folder.string() + "'");
    while ((locked = ::flock(folder_, LOCK_EX)) != 0 && errno == EINTR) {
    }
  }
  if (locked != 0 && tell)
    tell("cannot lock '" + folder.string() + "' (" + std::strerror(errno) +
         "): concurrent writes of a sharded database into it are not kept apart");
  // Read under the lock: no other writer switches it until this one is done.
  try {
    replaced_ = ShardManifest::read(manifest).shards;
  } catch (const Error&) {
    // No manifest yet, or not a valid one: it names no shard of ours, and is replaced.
  }
}

ShardedWrite::~ShardedWrite() { ::close(folder_); }  // which releases the lock

std::uint64_t ShardedWrite::generation() const {
  // By the file name alone, whatever folder a hand-edited manifest writes before it
  // ("./OUT-g3-0.bovwdb"): a generation counted that is not ours only makes this one higher.
  std::uint64_t highest = 0;
  for (const std::string& name : replaced_)
    highest = std::max(highest, generationOf(fs::path(name).filename().string(), stem_).value_or(0));
  return highest + 1;  // at most 10^18: no overflow
}

std::vector<std::string> ShardedWrite::removeOldShards(const std::vector<std::string>& written) const {
  const std::set<std::string> kept(written.begin(), written.end());
  const std::set<std::string> listed(replaced_.begin(), replaced_.end());
  std::vector<std::string> removed;
  std::error_code error;
  const fs::path folder = folderOf(manifest_);
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (kept.count(name)) continue;
    if (!generationOf(name, stem_) && !(listed.count(name) && isUnversionedShardName(name, stem_))) continue;
    std::error_code ignored;
    if (fs::is_directory(fs::symlink_status(it->path(), ignored))) continue;
    if (fs::remove(it->path(), ignored)) removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

}  // namespace bovw
