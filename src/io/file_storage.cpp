// writeFileStorage: cv::FileStorage into memory, gzip where the name asks for it, then an atomic
// write. OpenCV's memory mode ignores ".gz", so the compression is done here with zlib (what
// OpenCV's own file mode uses); cv::FileStorage reads the result like any file it compressed.
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/file_storage.hpp>

#include <zlib.h>

#include <algorithm>

namespace bovw {

namespace {

// OpenCV compresses exactly when the name ends in ".gz", lower case (persistence.cpp).
bool compressed(const std::string& path) {
  return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

void writeGzip(std::ostream& out, const std::string& text, const std::string& path) {
  z_stream z{};
  // 15 + 16: the largest window, with a gzip header and trailer (gzopen's format).
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw IoError("cannot write '" + path + "': zlib failed to start");
  std::string chunk(std::size_t{1} << 16, '\0');
  std::size_t fed = 0;
  int status = Z_OK;
  do {
    if (z.avail_in == 0 && fed < text.size()) {  // zlib's counters are 32-bit: pieces of 1 GiB
      const std::size_t piece = std::min<std::size_t>(text.size() - fed, std::size_t{1} << 30);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + fed));
      z.avail_in = static_cast<uInt>(piece);
      fed += piece;
    }
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    status = deflate(&z, fed == text.size() ? Z_FINISH : Z_NO_FLUSH);
    if (status == Z_STREAM_ERROR) break;
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size() - z.avail_out));
  } while (status != Z_STREAM_END);
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw IoError("cannot write '" + path + "': zlib failed to compress");
}

}  // namespace

void writeFileStorage(const std::string& path, const std::function<void(cv::FileStorage&)>& write, int flags) {
  std::string text;
  try {
    // In memory mode the name only chooses the format (YAML, XML or JSON by extension).
    cv::FileStorage storage(path, cv::FileStorage::WRITE | cv::FileStorage::MEMORY | flags);
    if (!storage.isOpened()) throw IoError("cannot write '" + path + "': OpenCV FileStorage did not open");
    write(storage);
    text = storage.releaseAndGetString();
  } catch (const cv::Exception& e) {
    throw IoError("cannot write '" + path + "': " + e.err);
  }
  writeFileAtomically(path, [&](std::ostream& out) {
    if (compressed(path)) writeGzip(out, text, path);
    else out.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

}  // namespace bovw
