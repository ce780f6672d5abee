// The on-disk cache of compiled OpenCL programs: each program's device binary, kept in the user's
// cache folder under a key of everything that could change it, so that a later process loads it
// instead of compiling the source again (docs/KERNELS.md, "The program cache").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bovw::detail {

// What a program binary depends on. Two keys are the same program exactly when their text() is equal.
struct ProgramKey {
  std::string file;            // kernels/<file>.cl
  std::string options;         // the full build option string
  std::string source;          // the embedded source (common headers inlined)
  std::string platform;        // CL_PLATFORM_NAME
  std::string device;          // CL_DEVICE_NAME
  std::string device_version;  // CL_DEVICE_VERSION
  std::string driver_version;  // CL_DRIVER_VERSION

  // One field per line, the source as its XXH3-128 digest: what an entry's header holds.
  std::string text() const;
  // The entry's file name: "<file>-<XXH3-128 of text() in hex>.bin".
  std::string fileName() const;
};

// A folder of entries, one file per key. An entry is
//   8 bytes "BOVWPBIN", u32 format version, u32 key length, the key text, u64 binary length, the
//   binary, u64 checksum (Checksum64, as every bovw file) of every byte before it,
// written atomically (a temporary beside it, renamed), so that processes filling the folder at once
// each leave whole entries. Nothing here throws: a cache that cannot be read or written costs a
// compile, never a failure.
class ProgramBinaryStore {
 public:
  // No folder: a store that keeps nothing.
  ProgramBinaryStore() = default;
  explicit ProgramBinaryStore(std::string folder) : folder_(std::move(folder)) {}

  // The store the environment asks for: off when $BOVW_KERNEL_CACHE is "off" (or "0"); otherwise
  // $BOVW_CACHE_DIR, else $XDG_CACHE_HOME/bovw/kernels, else $HOME/.cache/bovw/kernels; off when
  // none of these is set.
  static ProgramBinaryStore fromEnvironment();

  bool enabled() const { return !folder_.empty(); }
  const std::string& folder() const { return folder_; }
  std::string pathOf(const ProgramKey& key) const;

  // The binary stored under `key`; nothing when there is no entry, and nothing with one line on
  // stderr when the entry is damaged, truncated or holds another key (it will be replaced).
  std::optional<std::vector<unsigned char>> load(const ProgramKey& key) const;
  // Stores `binary` under `key`, creating the folder; one line on stderr if it cannot.
  void save(const ProgramKey& key, const std::vector<unsigned char>& binary) const;

 private:
  std::string folder_;
};

// One line on stderr, "bovw: kernel cache: <what>", for what a user may want to know but need not act on.
void noteProgramCache(const std::string& what);

}  // namespace bovw::detail
