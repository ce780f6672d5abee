// Reading and writing numpy .npy files (format 1.0-3.0), the exchange format with numpy, FAISS and
// scikit-learn. Strict: the header is parsed as the Python dict literal it is and accepted only
// where numpy would accept it (exactly its three keys, once each), and its dtype, order and shape
// must match the file's size exactly (docs/FORMATS.md). Every problem is an InvalidInput naming
// the file; a file that cannot be read is an IoError.
#pragma once

#include <bovw/descriptors.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace bovw::npy {

// Float32 2-D array (N x D). A 1-D array is refused: a width cannot be guessed.
Descriptors readFloat32Matrix(const std::string& path);

// The same file in two steps, for memory the caller allocates (PinnedDescriptors, a mapped
// buffer): the shape, from the header alone (checked against the file's size like the full read),
// then the data straight into `out`, which must have that shape (InvalidInput naming the file and
// both shapes otherwise). `out` may be a block of a larger matrix; its other elements are untouched.
struct MatrixShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};
MatrixShape readFloat32MatrixShape(const std::string& path);
void readFloat32MatrixInto(const std::string& path, Eigen::Ref<Descriptors> out);

// Integer 1-D array (int64 or int32, little-endian), widened to int64.
std::vector<std::int64_t> readInt64Vector(const std::string& path);

// Atomic writes: the data goes to a temporary file beside `path`, then is renamed over it.
void writeFloat32Matrix(const std::string& path, const Descriptors& matrix);
void writeInt32Matrix(const std::string& path, const Histograms& matrix);
void writeInt32Vector(const std::string& path, const std::vector<std::int32_t>& values);

// The same encodings to a stream, for jobs that commit several files together (writeFilesAtomically).
void writeFloat32Matrix(std::ostream& out, const Descriptors& matrix);
void writeInt32Matrix(std::ostream& out, const Histograms& matrix);
void writeInt32Vector(std::ostream& out, const std::vector<std::int32_t>& values);

// An int32 matrix written block by block as its rows are made (a folder's histograms while the
// pipeline runs), so that the whole never sits in memory. The header is written first with room for
// `max_rows` rows and rewritten by finish() with the rows appended, in the same length: the stream
// must seek (a StreamedFiles stream does). The bytes are writeInt32Matrix's for the same rows: a
// 2-D int32 header is 128 bytes for every shape an int64 can count.
class Int32MatrixWriter {
 public:
  Int32MatrixWriter(std::ostream& out, std::int64_t max_rows, std::int64_t cols);
  // Appends `rows` (cols() columns); std::invalid_argument beyond max_rows in all or another width.
  void append(const Histograms& rows);
  // Completes the header; the stream is left at its end.
  void finish();
  std::int64_t rows() const { return rows_; }

 private:
  std::ostream& out_;
  std::int64_t max_rows_;
  std::int64_t cols_;
  std::size_t header_bytes_;  // reserved for max_rows: what finish() writes over
  std::int64_t rows_ = 0;
};

}  // namespace bovw::npy
