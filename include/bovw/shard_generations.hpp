// Replacing a sharded database all or nothing (docs/FORMATS.md, "Replacing a sharded database").
// Every write of OUT.bovwshards puts its shards under names that no manifest uses yet, those of a
// new generation G: OUT-g<G>-<s>.bovwdb beside the manifest. Renaming the new manifest over the old
// one is then the one switch from the old database to the new: a reader opens exactly the files one
// manifest names, so it sees one database or the other, never a mix, and a write killed at any
// moment leaves a valid database. Only after the switch are older generations' files removed; what
// a killed write leaves behind (its generation's shards) is removed by the next write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bovw {

// The names, relative to the manifest's folder, of the `shards` shards of generation `generation`
// of the manifest at `manifest` (STEM.bovwshards): STEM-g<generation>-<s>.bovwdb. Throws
// InvalidInput naming `manifest` if its name does not end in .bovwshards or is nothing else.
std::vector<std::string> shardFileNames(const std::string& manifest, std::uint64_t generation, std::size_t shards);

// One write of the sharded database whose manifest is `manifest`, from choosing its generation to
// removing the replaced files. Writers of one folder take turns: the folder is locked (flock)
// while this lives, so two writes of one manifest never pick the same generation nor remove each
// other's files. Readers take no lock. In a job of several processes one of them (rank 0) holds
// it and tells the others the generation.
class ShardedWrite {
 public:
  // Locks the manifest's folder, waiting while another writer holds it (after calling `tell` with
  // a line saying so), and reads the manifest now in place, if any. Where the file system has no
  // locks, tells why and goes on without. Throws IoError naming `manifest` if its folder cannot
  // be opened.
  explicit ShardedWrite(const std::string& manifest, const std::function<void(const std::string&)>& tell = {});
  ~ShardedWrite();
  ShardedWrite(const ShardedWrite&) = delete;
  ShardedWrite& operator=(const ShardedWrite&) = delete;

  // One above the highest generation of this manifest's shards that the manifest in place names;
  // 1 if it names none (or there is no valid manifest). Its names are never those of a file that
  // the manifest in place names.
  std::uint64_t generation() const;

  // Call once the new manifest, naming `written`, is in place. Removes from the manifest's folder
  // the files named as this manifest's shards of any generation (STEM-g<G>-<s>.bovwdb) that
  // `written` does not name, the leftovers of killed writes included, and those named as earlier
  // bovw named shards (STEM-<s>.bovwdb) if the replaced manifest listed them. Nothing else: not a
  // folder, not another manifest's files, not a shard the replaced manifest named under another
  // name. Best effort: a file that cannot be removed stays (harmless: no manifest names it).
  // Returns the names removed.
  std::vector<std::string> removeOldShards(const std::vector<std::string>& written) const;

 private:
  std::string manifest_;
  std::string stem_;
  int folder_ = -1;  // the open, locked folder
  std::vector<std::string> replaced_;  // the shards the manifest in place lists, if it is valid
};

}  // namespace bovw
