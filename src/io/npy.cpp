// numpy .npy reader and writer. The reader trusts nothing: magic, version, header syntax, dtype,
// byte order, memory order and the data size implied by the shape are all checked.
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

struct Array {
  std::string dtype;  // e.g. "<f4"
  std::vector<std::int64_t> shape;
  std::vector<char> data;
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

Array readArray(const std::string& path) {
  const std::vector<char> file = detail::readFileBytes(path);
  if (file.size() < kMagicSize + 4 || std::memcmp(file.data(), kMagic, kMagicSize) != 0)
    malformed(path, "missing the \\x93NUMPY magic");
  const auto* bytes = reinterpret_cast<const unsigned char*>(file.data());
  const int major = bytes[6];
  if (major < 1 || major > 3) malformed(path, "unsupported format version " + std::to_string(major));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t preamble = kMagicSize + 2 + length_bytes;
  if (file.size() < preamble) malformed(path, "truncated header");
  const std::size_t header_length = littleEndian(bytes + 8, static_cast<int>(length_bytes));
  if (file.size() < preamble + header_length) malformed(path, "truncated header");
  const std::string header(file.data() + preamble, header_length);

  static const std::regex descr(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex fortran(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape(R"('shape'\s*:\s*\(([^)]*)\))");
  std::smatch m;
  Array array;
  if (!std::regex_search(header, m, descr)) malformed(path, "header has no 'descr'");
  array.dtype = m[1];
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
      array.shape.push_back(std::stoll(e[1]));
    } catch (const std::out_of_range&) {
      malformed(path, "shape extent " + e[1].str() + " is out of range");
    }
  }

  static const std::regex type(R"([<>|=][a-zA-Z](\d{1,2}))");
  std::smatch t;
  if (!std::regex_match(array.dtype, t, type)) malformed(path, "unsupported dtype '" + array.dtype + "'");
  const std::uint64_t item = std::stoul(t[1]);
  const std::uint64_t actual = file.size() - preamble - header_length;
  // Compare element counts, not byte counts, so that no product can overflow.
  const bool empty = std::find(array.shape.begin(), array.shape.end(), 0) != array.shape.end();
  std::uint64_t count = empty ? 0 : 1;
  bool too_large = item == 0;
  for (auto n : array.shape) {
    const auto u = static_cast<std::uint64_t>(n);
    if (empty || too_large) break;
    if (count > (actual / item) / u) too_large = true;
    else count *= u;
  }
  if (too_large || count * item != actual)
    malformed(path, "the header's shape " + shapeText(array.shape) + " and dtype " + array.dtype +
                        " do not match the " + std::to_string(actual) + " data bytes in the file");
  array.data.assign(file.begin() + static_cast<std::ptrdiff_t>(preamble + header_length), file.end());
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
  const Array array = readArray(path);
  if (array.dtype != "<f4" && array.dtype != "=f4")
    throw InvalidInput("'" + path + "': dtype " + array.dtype + ", expected little-endian float32 ('<f4')");
  if (array.shape.size() != 2)
    throw InvalidInput("'" + path + "': shape " + shapeText(array.shape) + ", expected 2-D (N, D)");
  Descriptors matrix(array.shape[0], array.shape[1]);
  if (!array.data.empty()) std::memcpy(matrix.data(), array.data.data(), array.data.size());
  return matrix;
}

std::vector<std::int64_t> readInt64Vector(const std::string& path) {
  const Array array = readArray(path);
  if (array.shape.size() != 1)
    throw InvalidInput("'" + path + "': shape " + shapeText(array.shape) + ", expected 1-D");
  const std::string kind = array.dtype.size() >= 2 ? array.dtype.substr(1) : "";
  if (!littleEndianOrder(array.dtype) || (kind != "i8" && kind != "i4"))
    throw InvalidInput("'" + path + "': dtype " + array.dtype + ", expected little-endian int64 or int32");
  std::vector<std::int64_t> values(static_cast<std::size_t>(array.shape[0]));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (kind == "i8") {
      std::memcpy(&values[i], array.data.data() + 8 * i, 8);
    } else {
      std::int32_t v;
      std::memcpy(&v, array.data.data() + 4 * i, 4);
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
