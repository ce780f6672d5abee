// ProgramBinaryStore: program binaries on disk, validated on load, written atomically.
#include "opencl/program_binaries.hpp"

#include "io/byte_order.hpp"
#include "io/checksum.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

// Header-only use (the implementation is compiled into this file): nothing for bovw's users to link.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bovw::detail {

namespace {

constexpr char kMagic[8] = {'B', 'O', 'V', 'W', 'P', 'B', 'I', 'N'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kChecksumSize = 8;

std::string hex128(const void* data, std::size_t size) {
  const XXH128_hash_t h = XXH3_128bits(data, size);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return text;
}

template <typename T>
void append(std::string& out, T value) {
  unsigned char bytes[sizeof(T)];
  encodeLittleEndian(value, bytes);
  out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

std::uint64_t checksumOf(const std::string& bytes, std::size_t size) {
  Checksum64 sum;
  sum.update(bytes.data(), size);
  return sum.digest();
}

// Why `bytes` is not a valid entry for `key`, or "" when it is; the binary goes to `binary`.
std::string parseEntry(const std::string& bytes, const std::string& key, std::vector<unsigned char>& binary) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  constexpr std::size_t kFixed = sizeof kMagic + 4 + 4;
  if (size < kFixed + 8 + kChecksumSize) return "truncated";
  if (std::string(bytes, 0, sizeof kMagic) != std::string(kMagic, sizeof kMagic)) return "not a bovw program binary";
  if (decodeLittleEndian<std::uint32_t>(p + 8) != kFormatVersion) return "another format version";
  const std::uint64_t key_length = decodeLittleEndian<std::uint32_t>(p + 12);
  if (key_length > size - kFixed - 8 - kChecksumSize) return "truncated";
  const std::size_t at = kFixed + key_length;
  const std::uint64_t binary_length = decodeLittleEndian<std::uint64_t>(p + at);
  if (binary_length != size - at - 8 - kChecksumSize) return "truncated or overlong";
  if (decodeLittleEndian<std::uint64_t>(p + size - kChecksumSize) != checksumOf(bytes, size - kChecksumSize))
    return "checksum mismatch";
  // A whole, intact entry of another key: a collision of the file name's digest, or an entry copied
  // from elsewhere. Either way not this program's binary.
  if (bytes.compare(kFixed, key_length, key) != 0) return "made for another device, driver, source or options";
  if (binary_length == 0) return "empty binary";
  binary.assign(p + at + 8, p + at + 8 + binary_length);
  return "";
}

}  // namespace

std::string ProgramKey::text() const {
  return "file " + file + "\noptions " + options + "\nsource xxh3-128 " + hex128(source.data(), source.size()) +
         "\nplatform " + platform + "\ndevice " + device + "\ndevice version " + device_version +
         "\ndriver version " + driver_version + "\n";
}

std::string ProgramKey::fileName() const {
  const std::string key = text();
  return file + "-" + hex128(key.data(), key.size()) + ".bin";
}

void noteProgramCache(const std::string& what) { std::fprintf(stderr, "bovw: kernel cache: %s\n", what.c_str()); }

ProgramBinaryStore ProgramBinaryStore::fromEnvironment() {
  const auto variable = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? value : "";
  };
  const std::string switch_value = variable("BOVW_KERNEL_CACHE");
  if (switch_value == "off" || switch_value == "0") return ProgramBinaryStore();
  if (const std::string dir = variable("BOVW_CACHE_DIR"); !dir.empty()) return ProgramBinaryStore(dir);
  if (const std::string xdg = variable("XDG_CACHE_HOME"); !xdg.empty())
    return ProgramBinaryStore(xdg + "/bovw/kernels");
  if (const std::string home = variable("HOME"); !home.empty())
    return ProgramBinaryStore(home + "/.cache/bovw/kernels");
  return ProgramBinaryStore();
}

std::string ProgramBinaryStore::pathOf(const ProgramKey& key) const {
  return (std::filesystem::path(folder_) / key.fileName()).string();
}

std::optional<std::vector<unsigned char>> ProgramBinaryStore::load(const ProgramKey& key) const {
  if (!enabled()) return std::nullopt;
  const std::string path = pathOf(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;  // not cached yet
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    noteProgramCache("cannot read '" + path + "'; compiling " + key.file + ".cl");
    return std::nullopt;
  }
  std::vector<unsigned char> binary;
  const std::string problem = parseEntry(bytes, key.text(), binary);
  if (!problem.empty()) {
    noteProgramCache("'" + path + "' is unusable (" + problem + "); compiling " + key.file + ".cl again");
    return std::nullopt;
  }
  return binary;
}

void ProgramBinaryStore::save(const ProgramKey& key, const std::vector<unsigned char>& binary) const {
  if (!enabled() || binary.empty()) return;
  const std::string text = key.text();
  std::string entry(kMagic, sizeof kMagic);
  append(entry, kFormatVersion);
  append(entry, static_cast<std::uint32_t>(text.size()));
  entry += text;
  append(entry, static_cast<std::uint64_t>(binary.size()));
  entry.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  append(entry, checksumOf(entry, entry.size()));
  const std::string path = pathOf(key);
  try {
    std::error_code error;
    std::filesystem::create_directories(folder_, error);
    if (error) throw IoError("cannot create the folder '" + folder_ + "': " + error.message());
    writeFileAtomically(path, [&](std::ostream& out) {
      out.write(entry.data(), static_cast<std::streamsize>(entry.size()));
    });
  } catch (const Error& e) {
    // Once per process: a read-only or full cache folder would otherwise say so for every program.
    static std::atomic<bool> noted{false};
    if (!noted.exchange(true)) noteProgramCache(std::string(e.what()) + " (BOVW_KERNEL_CACHE=off stops caching)");
  }
}

}  // namespace bovw::detail
