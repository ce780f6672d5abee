// The exceptions bovw throws. User mistakes and environment limits are errors with a message that
// names the input and the problem; broken internal invariants are asserts, not exceptions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bovw {

// Base of every bovw exception: catch this to handle any library failure.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad data from the caller: NaN descriptors, mismatched widths, malformed files, bad offsets.
// When the data came from files, files() names them and the message starts with them:
// "'X.npy': problem", or "'X.npy' with 'C.npy': problem" for data that is wrong only together.
class InvalidInput : public Error {
 public:
  // About no file (yet): a check on data in memory. namingFile() below adds the file.
  explicit InvalidInput(const std::string& problem);
  InvalidInput(const std::string& file, const std::string& problem);
  InvalidInput(std::vector<std::string> files, const std::string& problem);

  const std::vector<std::string>& files() const noexcept { return files_; }
  // The message without the file names.
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::vector<std::string> files_;
  std::string problem_;
};

// Runs `function`; an InvalidInput it throws that names no file is thrown again naming `files`,
// so that a check deep in the library (a NaN, a width) reports the input the data came from.
template <typename Function>
decltype(auto) namingFiles(const std::vector<std::string>& files, Function&& function) {
  try {
    return function();
  } catch (const InvalidInput& e) {
    if (!e.files().empty()) throw;
    throw InvalidInput(files, e.problem());
  }
}

template <typename Function>
decltype(auto) namingFile(const std::string& file, Function&& function) {
  return namingFiles({file}, std::forward<Function>(function));
}

// A file could not be opened, read, written or renamed.
class IoError : public Error {
 public:
  using Error::Error;
};

// A request exceeds a device or configured limit (constant/local memory, allocation size, pixels).
class CapacityError : public Error {
 public:
  using Error::Error;
};

// An OpenCL call failed: the message names the call and the error code.
class OpenCLError : public Error {
 public:
  OpenCLError(const std::string& call, int code);
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// An OpenCL program failed to build: carries the compiler's log and the options it was given.
class KernelBuildError : public Error {
 public:
  KernelBuildError(const std::string& kernel, const std::string& options, const std::string& log);
  const std::string& log() const noexcept { return log_; }
  const std::string& options() const noexcept { return options_; }

 private:
  std::string options_;
  std::string log_;
};

// The symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or the number if unknown.
std::string openclErrorName(int code);

}  // namespace bovw
