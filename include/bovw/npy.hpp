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

}  // namespace bovw::npy
