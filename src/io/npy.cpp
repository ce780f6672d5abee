// numpy .npy reader and writer. The reader trusts nothing: magic, version, header syntax, dtype,
// byte order, memory order and the data size implied by the shape are all checked, from the header
// and the file's size, before the data is read straight into its destination (no whole-file copy).
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/npy.hpp>

#include "io/file_bytes.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <numeric>
#include <regex>

namespace bovw::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

// A checked header: the data that follows it is exactly the shape's elements of the dtype.
struct Header {
  std::string dtype;  // e.g. "<f4"
  std::vector<std::int64_t> shape;
  std::uint64_t data_bytes = 0;
};

[[noreturn]] void malformed(const std::string& path, const std::string& what) {
  throw InvalidInput("'" + path + "' is not a valid .npy file: " + what);
}

std::uint32_t littleEndian(const unsigned char* bytes, int count) {
  std::uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (auto extent : shape) text += std::to_string(extent) + ",";
  return text + ")";
}

// Reads and checks the preamble and header of `file`, which is left at the first data byte.
Header readHeader(detail::InputFile& file, const std::string& path) {
  unsigned char bytes[kMagicSize + 2 + 4] = {};  // magic, version, header length (2 or 4 bytes)
  detail::readExactly(file, path, reinterpret_cast<char*>(bytes),
                      static_cast<std::size_t>(std::min<std::uint64_t>(file.size, kMagicSize + 2)));
  if (file.size < kMagicSize + 4 || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    malformed(path, "missing the \\x93NUMPY magic");
  const int major = bytes[6];
  if (major < 1 || major > 3) malformed(path, "unsupported format version " + std::to_string(major));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t preamble = kMagicSize + 2 + length_bytes;
  if (file.size < preamble) malformed(path, "truncated header");
  detail::readExactly(file, path, reinterpret_cast<char*>(bytes) + kMagicSize + 2, length_bytes);
  const std::size_t header_length = littleEndian(bytes + 8, static_cast<int>(length_bytes));
  if (file.size < preamble + header_length) malformed(path, "truncated header");
  std::string header(header_length, '\0');
  detail::readExactly(file, path, header.data(), header_length);

  static const std::regex descr(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex fortran(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape(R"('shape'\s*:\s*\(([^)]*)\))");
  std::smatch m;
  Header parsed;
  if (!std::regex_search(header, m, descr)) malformed(path, "header has no 'descr'");
  parsed.dtype = m[1];
  if (!std::regex_search(header, m, fortran)) malformed(path, "header has no 'fortran_order'");
  if (m[1] == "True") malformed(path, "Fortran (column-major) order is not supported; save with order='C'");
  if (!std::regex_search(header, m, shape)) malformed(path, "header has no 'shape'");
  const std::string dims = m[1];
  static const std::regex extent(R"(\s*(\d+)\s*)");
  std::size_t begin = 0;
  while (begin <= dims.size()) {
    const std::size_t comma = std::min(dims.find(',', begin), dims.size());
    const std::string token = dims.substr(begin, comma - begin);
    begin = comma + 1;
    if (token.find_first_not_of(" \t") == std::string::npos) continue;  // "(3,)" and "()"
    std::smatch e;
    if (!std::regex_match(token, e, extent)) malformed(path, "shape extent '" + token + "' is not a non-negative integer");
    try {
      parsed.shape.push_back(std::stoll(e[1]));
    } catch (const std::out_of_range&) {
      malformed(path, "shape extent " + e[1].str() + " is out of range");
    }
  }

  static const std::regex type(R"([<>|=][a-zA-Z](\d{1,2}))");
  std::smatch t;
  if (!std::regex_match(parsed.dtype, t, type)) malformed(path, "unsupported dtype '" + parsed.dtype + "'");
  const std::uint64_t item = std::stoul(t[1]);
  const std::uint64_t actual = file.size - preamble - header_length;
  // Compare element counts, not byte counts, so that no product can overflow.
  const bool empty = std::find(parsed.shape.begin(), parsed.shape.end(), 0) != parsed.shape.end();
  std::uint64_t count = empty ? 0 : 1;
  bool too_large = item == 0;
  for (auto n : parsed.shape) {
    const auto u = static_cast<std::uint64_t>(n);
    if (empty || too_large) break;
    if (count > (actual / item) / u) too_large = true;
    else count *= u;
  }
  if (too_large || count * item != actual)
    malformed(path, "the header's shape " + shapeText(parsed.shape) + " and dtype " + parsed.dtype +
                        " do not match the " + std::to_string(actual) + " data bytes in the file");
  parsed.data_bytes = actual;
  return parsed;
}

// A float32 2-D file, open at its data.
struct Float32MatrixFile {
  detail::InputFile file;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

Float32MatrixFile openFloat32Matrix(const std::string& path) {
  Float32MatrixFile matrix{detail::openInputFile(path)};
  const Header header = readHeader(matrix.file, path);
  if (header.dtype != "<f4" && header.dtype != "=f4")
    throw InvalidInput("'" + path + "': dtype " + header.dtype + ", expected little-endian float32 ('<f4')");
  if (header.shape.size() != 2)
    throw InvalidInput("'" + path + "': shape " + shapeText(header.shape) + ", expected 2-D (N, D)");
  matrix.rows = header.shape[0];
  matrix.cols = header.shape[1];
  return matrix;
}

// The file's data straight into `out` (already of the file's shape): one read when its rows are
// contiguous, one per row otherwise.
void readRows(Float32MatrixFile& matrix, const std::string& path, Eigen::Ref<Descriptors> out) {
  const std::size_t row_bytes = sizeof(float) * static_cast<std::size_t>(matrix.cols);
  if (out.outerStride() == out.cols() || out.rows() <= 1) {
    detail::readExactly(matrix.file, path, reinterpret_cast<char*>(out.data()), row_bytes * out.rows());
    return;
  }
  for (Eigen::Index r = 0; r < out.rows(); ++r)
    detail::readExactly(matrix.file, path, reinterpret_cast<char*>(out.row(r).data()), row_bytes);
}

struct Array {
  Header header;
  std::vector<char> data;
};

Array readArray(const std::string& path) {
  detail::InputFile file = detail::openInputFile(path);
  Array array{readHeader(file, path), {}};
  array.data.resize(static_cast<std::size_t>(array.header.data_bytes));
  detail::readExactly(file, path, array.data.data(), array.data.size());
  return array;
}

bool littleEndianOrder(const std::string& dtype) {
  return !dtype.empty() && (dtype[0] == '<' || dtype[0] == '|' || dtype[0] == '=');
}


void writeArray(std::ostream& out, const std::string& dtype, const std::vector<std::int64_t>& shape,
                const void* data, std::size_t bytes) {
  std::string dict = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  // Pad so that magic + version + length + header is a multiple of 64, ending in '\n'.
  const std::size_t unpadded = kMagicSize + 2 + 2 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  out.write(kMagic, kMagicSize);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const char length[2] = {static_cast<char>(dict.size() & 0xff), static_cast<char>(dict.size() >> 8)};
  out.write(length, 2);
  out << dict;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

}  // namespace

Descriptors readFloat32Matrix(const std::string& path) {
  Float32MatrixFile file = openFloat32Matrix(path);
  Descriptors matrix(file.rows, file.cols);
  readRows(file, path, matrix);
  return matrix;
}

MatrixShape readFloat32MatrixShape(const std::string& path) {
  const Float32MatrixFile file = openFloat32Matrix(path);
  return {file.rows, file.cols};
}

void readFloat32MatrixInto(const std::string& path, Eigen::Ref<Descriptors> out) {
  Float32MatrixFile file = openFloat32Matrix(path);
  if (out.rows() != file.rows || out.cols() != file.cols)
    throw InvalidInput("'" + path + "': shape (" + std::to_string(file.rows) + ", " + std::to_string(file.cols) +
                       ") does not match the " + std::to_string(out.rows()) + " x " + std::to_string(out.cols()) +
                       " matrix it is to be read into");
  readRows(file, path, out);
}

std::vector<std::int64_t> readInt64Vector(const std::string& path) {
  const Array read = readArray(path);
  const Header& array = read.header;
  if (array.shape.size() != 1)
    throw InvalidInput("'" + path + "': shape " + shapeText(array.shape) + ", expected 1-D");
  const std::string kind = array.dtype.size() >= 2 ? array.dtype.substr(1) : "";
  if (!littleEndianOrder(array.dtype) || (kind != "i8" && kind != "i4"))
    throw InvalidInput("'" + path + "': dtype " + array.dtype + ", expected little-endian int64 or int32");
  std::vector<std::int64_t> values(static_cast<std::size_t>(array.shape[0]));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (kind == "i8") {
      std::memcpy(&values[i], read.data.data() + 8 * i, 8);
    } else {
      std::int32_t v;
      std::memcpy(&v, read.data.data() + 4 * i, 4);
      values[i] = v;
    }
  }
  return values;
}

void writeFloat32Matrix(std::ostream& out, const Descriptors& matrix) {
  writeArray(out, "<f4", {matrix.rows(), matrix.cols()}, matrix.data(), sizeof(float) * matrix.size());
}

void writeInt32Matrix(std::ostream& out, const Histograms& matrix) {
  writeArray(out, "<i4", {matrix.rows(), matrix.cols()}, matrix.data(), sizeof(std::int32_t) * matrix.size());
}

void writeInt32Vector(std::ostream& out, const std::vector<std::int32_t>& values) {
  writeArray(out, "<i4", {static_cast<std::int64_t>(values.size())}, values.data(),
             sizeof(std::int32_t) * values.size());
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
