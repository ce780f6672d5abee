// libFuzzer harness: the .npy reader (src/io/npy.cpp, npy_header.cpp) on arbitrary files, through
// each of its entry points: the float32 matrix (whole, shape only, into a block of a larger matrix),
// the integer vector, and a .npy vocabulary. The reader takes a path, so the bytes go to a file.
#include "fuzz/fuzz_support.hpp"

#include <bovw/npy.hpp>
#include <bovw/vocabulary_io.hpp>

#include <cstring>

using namespace bovw;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".npy");
  const std::string& path = file.write(data, size);

  Descriptors matrix;
  const bool matrix_read = fuzz::acceptsOrRefuses([&] { matrix = npy::readFloat32Matrix(path); });
  npy::MatrixShape shape;
  const bool shape_read = fuzz::acceptsOrRefuses([&] { shape = npy::readFloat32MatrixShape(path); });
  // The shape is checked against the file's size exactly like the full read: both agree.
  fuzz::require(matrix_read == shape_read, "readFloat32Matrix and readFloat32MatrixShape agree");
  if (matrix_read) {
    fuzz::require(shape.rows == matrix.rows() && shape.cols == matrix.cols(), "the shape is the matrix's");
    // Into a block with a row stride (the row-by-row path), when that stays small. (Not for an
    // empty matrix: Eigen's blocks of one offset a null pointer, undefined behaviour of their own.)
    if (matrix.size() > 0 && shape.rows * (shape.cols + 1) <= (1 << 16)) {
      Descriptors larger = Descriptors::Constant(shape.rows, shape.cols + 1, -7.0f);
      fuzz::require(fuzz::acceptsOrRefuses([&] { npy::readFloat32MatrixInto(path, larger.leftCols(shape.cols)); }),
                    "readFloat32MatrixInto takes what readFloat32Matrix took");
      // Compared bitwise: the data may hold NaN.
      const Descriptors block = larger.leftCols(shape.cols);
      fuzz::require(std::memcmp(block.data(), matrix.data(), sizeof(float) * static_cast<std::size_t>(matrix.size())) == 0 &&
                        (larger.col(shape.cols).array() == -7.0f).all(),
                    "readFloat32MatrixInto reads the same values and leaves the rest alone");
    }
    // A vocabulary from the same file: the same matrix, refused only for what Vocabulary refuses.
    const bool finite = matrix.size() > 0 && matrix.allFinite();
    fuzz::require(fuzz::acceptsOrRefuses([&] { loadVocabulary(path); }) == finite,
                  "a .npy vocabulary is refused exactly when it is empty or not finite");
  }

  std::vector<std::int64_t> values;
  fuzz::acceptsOrRefuses([&] { values = npy::readInt64Vector(path); });
  return 0;
}
