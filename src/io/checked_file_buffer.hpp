// A stream buffer writing to a file descriptor that keeps the first write error (a full disk, a
// quota, an I/O error) instead of losing it: std::ofstream reports only that something failed, and
// cv::FileStorage nothing at all. After an error every further write fails at once, so a writer
// producing gigabytes into a full disk stops costing time; its owner reads error() at the end.
#pragma once

#include <cstddef>
#include <streambuf>
#include <vector>

namespace bovw::detail {

class CheckedFileBuffer : public std::streambuf {
 public:
  explicit CheckedFileBuffer(int fd);
  CheckedFileBuffer(const CheckedFileBuffer&) = delete;
  CheckedFileBuffer& operator=(const CheckedFileBuffer&) = delete;

  // Writes out what is buffered; false (and error() set) if any write so far failed.
  bool drain();
  // errno of the first failed write, 0 if none failed.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize size) override;
  int sync() override;

 private:
  bool writeAll(const char* data, std::size_t size);

  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

}  // namespace bovw::detail
