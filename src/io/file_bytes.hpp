// Opening files for reading, for every reader in bovw (binary formats, .npy, images, manifests,
// CSV and JSON inputs): only a regular file is read (links followed), so that a FIFO given as an
// input cannot block its open and /dev/zero cannot be read without end. The size comes from the
// descriptor that is read, so that a reader checks the sizes a file declares against it before it
// allocates anything, and reads what the format needs piece by piece (magic first). Errors are
// IoError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bovw::detail {

// A regular file open for reading at its start. Not copyable; closed when destroyed.
class InputFile {
 public:
  // Opens `path` without blocking (O_NONBLOCK, cleared once the descriptor is known to be a
  // regular file). Throws IoError if it cannot be opened, or if it is not a regular file:
  // "'P' is a FIFO (named pipe), not <kind>" (kind: "a regular file", "an image file", ...).
  explicit InputFile(const std::string& path, const char* kind = "a regular file");
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  InputFile& operator=(InputFile&&) = delete;

  const std::string& path() const { return path_; }
  // The size when opened; the reads below never go past it.
  std::uint64_t size() const { return size_; }
  std::uint64_t position() const { return position_; }
  std::uint64_t remaining() const { return size_ - position_; }

  // The next `bytes` bytes into `out`. Throws IoError if they lie past size() or the file ends
  // early (it shrank while being read) or a read fails.
  void read(char* out, std::size_t bytes);
  // Up to `bytes` bytes (fewer only at size()), returning how many.
  std::size_t readSome(char* out, std::size_t bytes);
  // Every byte from the position to size().
  std::vector<char> readRest();
  // Moves to `offset` (at most size()): a reader that skips a block to check the frame around it.
  void seek(std::uint64_t offset);

 private:
  int fd_ = -1;
  std::string path_;
  std::uint64_t size_ = 0;
  std::uint64_t position_ = 0;
};

// The whole of a regular file (InputFile's refusals and errors).
std::vector<char> readFileBytes(const std::string& path, const char* kind = "a regular file");

}  // namespace bovw::detail
