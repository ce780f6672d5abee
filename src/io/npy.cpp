// numpy .npy reader and writer. The reader trusts nothing: magic, version, the header's dict
// (a real parser, io/npy_header.hpp), dtype, byte order, memory order and the data size implied by
// the shape are all checked, from the header and the file's size, before the data is read straight
// into its destination (no whole-file copy).
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/npy.hpp>

#include "io/byte_order.hpp"
#include "io/byte_writer.hpp"
#include "io/file_bytes.hpp"
#include "io/npy_header.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace bovw::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

// A dtype this reader accepts: its descr as numpy writes it, and the size of one element.
struct Dtype {
  const char* descr;
  std::uint64_t item_size;
};
// "=" is the host's order, little-endian on every host bovw reads .npy files on.
constexpr Dtype kFloat32[] = {{"<f4", 4}, {"=f4", 4}};
constexpr Dtype kIntegers[] = {{"<i8", 8}, {"=i8", 8}, {"<i4", 4}, {"=i4", 4}};

// A checked header: the data that follows it is exactly the shape's elements of the dtype.
struct Header {
  std::string dtype;  // one of the accepted descrs
  std::uint64_t item_size = 0;
  std::vector<std::int64_t> shape;
  std::uint64_t data_bytes = 0;
};

[[noreturn]] void malformed(const std::string& path, const std::string& what) {
  throw InvalidInput(path, "not a valid .npy file: " + what);
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (auto extent : shape) text += std::to_string(extent) + ",";
  return text + ")";
}

// Reads and checks the preamble and header of `file`, which is left at the first data byte. The
// dtype must be one of `accepted` (`expected` describes them), the shape's `dimensions` as given.
template <std::size_t N>
Header readHeader(detail::InputFile& file, const std::string& path, const Dtype (&accepted)[N],
                  const std::string& expected, std::size_t dimensions) {
  unsigned char bytes[kMagicSize + 2 + 4] = {};  // magic, version, header length (2 or 4 bytes)
  const auto prefix = static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), kMagicSize + 2));
  file.read(reinterpret_cast<char*>(bytes), prefix);
  if (file.size() < kMagicSize + 4 || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    malformed(path, "missing the \\x93NUMPY magic");
  const int major = bytes[6];
  const int minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    malformed(path, "unsupported format version " + std::to_string(major) + "." + std::to_string(minor) +
                        " (numpy writes 1.0, 2.0 and 3.0)");
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t preamble = kMagicSize + 2 + length_bytes;
  if (file.size() < preamble) malformed(path, "truncated header");
  file.read(reinterpret_cast<char*>(bytes) + kMagicSize + 2, length_bytes);
  const std::uint64_t header_length = length_bytes == 2 ? detail::decodeLittleEndian<std::uint16_t>(bytes + 8)
                                                        : detail::decodeLittleEndian<std::uint32_t>(bytes + 8);
  if (file.size() < preamble + header_length) malformed(path, "truncated header");
  if (header_length > detail::kMaxNpyHeaderSize)
    malformed(path, "a header of " + std::to_string(header_length) + " bytes (numpy reads at most " +
                        std::to_string(detail::kMaxNpyHeaderSize) + ")");
  std::string text(static_cast<std::size_t>(header_length), '\0');
  file.read(text.data(), text.size());
  detail::NpyHeader parsed = detail::parseNpyHeader(text, major, path);

  const Dtype* dtype = std::find_if(std::begin(accepted), std::end(accepted), [&](const Dtype& d) {
    return parsed.descr == d.descr && (parsed.descr[0] != '=' || detail::kHostIsLittleEndian);
  });
  if (dtype == std::end(accepted)) throw InvalidInput(path, "dtype " + parsed.descr + ", expected " + expected);
  if (parsed.fortran_order) malformed(path, "Fortran (column-major) order is not supported; save with order='C'");
  if (parsed.shape.size() != dimensions)
    throw InvalidInput(path, "shape " + shapeText(parsed.shape) + ", expected " +
                                 (dimensions == 2 ? "2-D (N, D)" : "1-D"));

  Header header{parsed.descr, dtype->item_size, std::move(parsed.shape), 0};
  const std::uint64_t actual = file.size() - preamble - header_length;
  // Compare element counts, not byte counts, so that no product can overflow.
  const bool empty = std::find(header.shape.begin(), header.shape.end(), 0) != header.shape.end();
  std::uint64_t count = empty ? 0 : 1;
  bool too_large = false;
  for (auto n : header.shape) {
    const auto u = static_cast<std::uint64_t>(n);
    if (empty || too_large) break;
    if (count > (actual / header.item_size) / u) too_large = true;
    else count *= u;
  }
  if (too_large || count * header.item_size != actual)
    malformed(path, "the header's shape " + shapeText(header.shape) + " and dtype " + header.dtype +
                        " do not match the " + std::to_string(actual) + " data bytes in the file");
  header.data_bytes = actual;
  return header;
}

// A float32 2-D file, open at its data.
struct Float32MatrixFile {
  detail::InputFile file;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

Float32MatrixFile openFloat32Matrix(const std::string& path) {
  Float32MatrixFile matrix{detail::InputFile(path)};
  const Header header = readHeader(matrix.file, path, kFloat32, "little-endian float32 ('<f4')", 2);
  matrix.rows = header.shape[0];
  matrix.cols = header.shape[1];
  return matrix;
}

// The file's data straight into `out` (already of the file's shape): one read when its rows are
// contiguous, one per row otherwise; then into the host's byte order (nothing to do on most).
void readRows(Float32MatrixFile& matrix, Eigen::Ref<Descriptors> out) {
  const std::size_t cols = static_cast<std::size_t>(matrix.cols);
  const std::size_t row_bytes = sizeof(float) * cols;
  if (out.outerStride() == out.cols() || out.rows() <= 1) {
    matrix.file.read(reinterpret_cast<char*>(out.data()), row_bytes * out.rows());
    detail::swapToOrFromLittleEndian(out.data(), cols * static_cast<std::size_t>(out.rows()));
    return;
  }
  for (Eigen::Index r = 0; r < out.rows(); ++r) {
    matrix.file.read(reinterpret_cast<char*>(out.row(r).data()), row_bytes);
    detail::swapToOrFromLittleEndian(out.row(r).data(), cols);
  }
}

// The header of an array of `shape`: magic, version, length and the dict, padded with spaces so
// that the whole is a multiple of 64 bytes and at least `at_least` long, ending in '\n'.
std::string headerBytes(const std::string& dtype, const std::vector<std::int64_t>& shape,
                        std::size_t at_least = 0) {
  std::string dict = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  constexpr std::size_t kPreamble = kMagicSize + 2 + 2;
  const std::size_t unpadded = kPreamble + dict.size() + 1;
  const std::size_t total = std::max((unpadded + 63) / 64 * 64, at_least);
  dict.append(total - unpadded, ' ');
  dict += '\n';
  std::string bytes(kMagic, kMagicSize);
  bytes += {1, 0};  // version 1.0: a 2-byte length
  bytes += {static_cast<char>(dict.size() & 0xff), static_cast<char>(dict.size() >> 8)};
  return bytes + dict;
}

void writeArray(std::ostream& out, const std::string& dtype, const std::vector<std::int64_t>& shape) {
  out << headerBytes(dtype, shape);
}

template <typename T>
void writeArray(std::ostream& out, const std::string& dtype, const std::vector<std::int64_t>& shape,
                const T* data, std::size_t count) {
  writeArray(out, dtype, shape);
  detail::ByteWriter writer(out);
  writer.array(data, count);
  writer.flush();
}

}  // namespace

Descriptors readFloat32Matrix(const std::string& path) {
  Float32MatrixFile file = openFloat32Matrix(path);
  Descriptors matrix(file.rows, file.cols);
  readRows(file, matrix);
  return matrix;
}

MatrixShape readFloat32MatrixShape(const std::string& path) {
  const Float32MatrixFile file = openFloat32Matrix(path);
  return {file.rows, file.cols};
}

void readFloat32MatrixInto(const std::string& path, Eigen::Ref<Descriptors> out) {
  Float32MatrixFile file = openFloat32Matrix(path);
  if (out.rows() != file.rows || out.cols() != file.cols)
    throw InvalidInput(path, "shape (" + std::to_string(file.rows) + ", " + std::to_string(file.cols) +
                                 ") does not match the " + std::to_string(out.rows()) + " x " +
                                 std::to_string(out.cols()) + " matrix it is to be read into");
  readRows(file, out);
}

std::vector<std::int64_t> readInt64Vector(const std::string& path) {
  detail::InputFile file(path);
  const Header header = readHeader(file, path, kIntegers, "little-endian int64 or int32", 1);
  std::vector<char> data(static_cast<std::size_t>(header.data_bytes));
  file.read(data.data(), data.size());
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  std::vector<std::int64_t> values(static_cast<std::size_t>(header.shape[0]));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = header.item_size == 8 ? detail::decodeLittleEndian<std::int64_t>(bytes + 8 * i)
                                      : detail::decodeLittleEndian<std::int32_t>(bytes + 4 * i);
  return values;
}

void writeFloat32Matrix(std::ostream& out, const Descriptors& matrix) {
  writeArray(out, "<f4", {matrix.rows(), matrix.cols()}, matrix.data(), static_cast<std::size_t>(matrix.size()));
}

void writeInt32Matrix(std::ostream& out, const Histograms& matrix) {
  writeArray(out, "<i4", {matrix.rows(), matrix.cols()}, matrix.data(), static_cast<std::size_t>(matrix.size()));
}

void writeInt32Vector(std::ostream& out, const std::vector<std::int32_t>& values) {
  writeArray(out, "<i4", {static_cast<std::int64_t>(values.size())}, values.data(), values.size());
}

Int32MatrixWriter::Int32MatrixWriter(std::ostream& out, std::int64_t max_rows, std::int64_t cols)
    : out_(out), max_rows_(max_rows), cols_(cols), header_bytes_(headerBytes("<i4", {max_rows, cols}).size()) {
  out_ << headerBytes("<i4", {0, cols_}, header_bytes_);
}

void Int32MatrixWriter::append(const Histograms& rows) {
  if (rows.cols() != cols_ || rows.rows() > max_rows_ - rows_)
    throw std::invalid_argument("Int32MatrixWriter: " + std::to_string(rows.rows()) + " x " +
                                std::to_string(rows.cols()) + " rows after " + std::to_string(rows_) + " of at most " +
                                std::to_string(max_rows_) + " x " + std::to_string(cols_));
  detail::ByteWriter writer(out_);
  writer.array(rows.data(), static_cast<std::size_t>(rows.size()));
  writer.flush();
  rows_ += rows.rows();
}

void Int32MatrixWriter::finish() {
  out_.seekp(0);
  out_ << headerBytes("<i4", {rows_, cols_}, header_bytes_);
  out_.seekp(0, std::ios_base::end);
}

void writeFloat32Matrix(const std::string& path, const Descriptors& matrix) {
  writeFileAtomically(path, [&](std::ostream& out) { writeFloat32Matrix(out, matrix); });
}

void writeInt32Matrix(const std::string& path, const Histograms& matrix) {
  writeFileAtomically(path, [&](std::ostream& out) { writeInt32Matrix(out, matrix); });
}

void writeInt32Vector(const std::string& path, const std::vector<std::int32_t>& values) {
  writeFileAtomically(path, [&](std::ostream& out) { writeInt32Vector(out, values); });
}

}  // namespace bovw::npy
