// A stream buffer writing to a file descriptor that keeps the first write error (a full disk, a
// quota, an I/O error) instead of losing it: std::ofstream reports only that something failed, and
// cv::FileStorage nothing at all. After an error every further write fails at once, so a writer
// producing gigabytes into a full disk stops costing time; its owner reads error() at the end.
//
// Written data is handed to the disk as it goes (every 8 MiB, without waiting), so that the sync
// that ends an atomic write waits for the last megabytes, not for the whole file: a folder's
// histograms streamed over a run are on disk moments after its last image. The buffer can seek
// (drain, then lseek), for formats whose header is completed at the end (npy::Int32MatrixWriter).
#pragma once

#include <cstddef>
#include <ios>
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
  pos_type seekoff(off_type offset, std::ios_base::seekdir direction, std::ios_base::openmode which) override;
  pos_type seekpos(pos_type position, std::ios_base::openmode which) override;

 private:
  bool writeAll(const char* data, std::size_t size);
  void startWriteback(std::size_t written);

  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
  std::size_t unsubmitted_ = 0;  // bytes written since the last writeback was started
};

}  // namespace bovw::detail
