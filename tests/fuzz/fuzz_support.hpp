// What every harness of tests/fuzz shares: the one answer a bovw reader may give to bytes it does
// not accept, and a scratch file for the readers that take a path. docs/FUZZING.md.
//
// bovw documents InvalidInput (naming the file) as its answer to any malformed file. Everything
// else a reader does with arbitrary bytes is a finding: a crash or a sanitizer report (libFuzzer
// catches those itself), or an exception of another type, e.g. std::bad_alloc from a size taken on
// trust, an IoError for a file that exists and is readable, an OpenCV exception leaking through.
// Those abort here, naming the type, so that libFuzzer saves the input as a crash.
#pragma once

#include <bovw/error.hpp>

#include <cxxabi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>
#include <typeinfo>

namespace bovw::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "bovw fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// `condition` is a property every accepted file has (a round trip, two readers agreeing).
inline void require(bool condition, const char* property) {
  if (!condition) finding(std::string("an accepted file breaks: ") + property);
}

// Runs `read` on the fuzzer's bytes: true if it accepted them, false if it refused them with an
// InvalidInput; any other exception is a finding.
template <typename Read>
bool acceptsOrRefuses(Read&& read) {
  try {
    read();
    return true;
  } catch (const InvalidInput&) {
    return false;
  } catch (const std::exception& e) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> type(abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status),
                                                     &std::free);
    finding(std::string("undocumented exception ") + (status == 0 ? type.get() : typeid(e).name()) + ": " +
            e.what());
  } catch (...) {
    finding("an exception not derived from std::exception");
  }
}

// Checks the input as it is, then (inputs of 8 bytes or more: shorter ones hold no checksum) with its
// checksums rewritten by `reseal`, so that mutations also reach the structure checks behind them.
template <typename Check, typename Reseal>
int checkAsIsAndResealed(const std::uint8_t* data, std::size_t size, Check&& check, Reseal&& reseal) {
  std::vector<char> bytes(data, data + size);
  check(bytes);
  if (bytes.size() >= 8) check(reseal(bytes));
  return 0;
}

// A file in the temporary directory holding the bytes of one input, rewritten for each; its name
// ends in `extension`, which chooses the format where a reader goes by the name. Removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& extension)
      : path_((std::filesystem::temp_directory_path() /
               ("bovw-fuzz-" + std::to_string(::getpid()) + extension))
                  .string()) {}
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) finding("cannot write the scratch file " + path_);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace bovw::fuzz
