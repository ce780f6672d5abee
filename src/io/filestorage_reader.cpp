// readFileStorage and the matrix and string readings of its nodes (filestorage_reader.hpp).
#include "io/filestorage_reader.hpp"

#include "io/file_bytes.hpp"
#include "io/filestorage_syntax.hpp"

#include <bovw/error.hpp>

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace bovw::detail {

namespace {

bool startsWith(const std::string& text, std::size_t at, const char* prefix) {
  return text.compare(at, std::strlen(prefix), prefix) == 0;
}

bool gzipped(const std::vector<char>& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Every gzip member of `bytes` inflated, up to `limit` bytes in all.
std::string inflateGzip(const std::vector<char>& bytes, std::size_t limit) {
  z_stream z{};
  // 15 + 16: gzip's header and trailer, the largest window.
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::bad_alloc();
  struct End {
    z_stream& z;
    ~End() { inflateEnd(&z); }
  } end{z};
  std::string text;
  std::size_t fed = 0;
  const std::size_t chunk = std::size_t{1} << 16;
  for (;;) {
    if (z.avail_in == 0 && fed < bytes.size()) {  // zlib's counters are 32-bit: pieces of 1 GiB
      const std::size_t piece = std::min<std::size_t>(bytes.size() - fed, std::size_t{1} << 30);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
      z.avail_in = static_cast<uInt>(piece);
      fed += piece;
    }
    if (text.size() >= limit)
      throw InvalidInput("gzip data inflates to more than " + std::to_string(kMaxGzipRatio) +
                         " times its size, more than any FileStorage text (a gzip bomb?)");
    const std::size_t before = text.size();
    text.resize(before + std::min(chunk, limit - before));
    z.next_out = reinterpret_cast<Bytef*>(text.data() + before);
    z.avail_out = static_cast<uInt>(text.size() - before);
    const int status = inflate(&z, Z_NO_FLUSH);
    text.resize(text.size() - z.avail_out);
    if (status == Z_STREAM_END) {
      const bool more = z.avail_in > 0 || fed < bytes.size();
      if (!more) return text;
      // Another member follows (gzip files may be concatenated) or the rest is not gzip.
      if (z.avail_in == 0) continue;  // fetch the next piece first
      if (z.avail_in < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b)
        throw InvalidInput("bytes that are not gzip after the gzip data");
      inflateReset(&z);
      continue;
    }
    if (status == Z_BUF_ERROR && z.avail_in == 0 && fed == bytes.size())
      throw InvalidInput("truncated gzip data");
    if (status != Z_OK && status != Z_BUF_ERROR)
      throw InvalidInput(std::string("damaged gzip data: ") + (z.msg ? z.msg : "zlib error " + std::to_string(status)));
  }
}

const FileStorageNode& field(const FileStorageNode& matrix, const std::string& name, const std::string& field_name) {
  const FileStorageNode* node = matrix.find(field_name);
  if (!node) throw InvalidInput("'" + name + "' has no '" + field_name + "' (an opencv-matrix has rows, cols, dt, data)");
  return *node;
}

int dimension(const FileStorageNode& matrix, const std::string& name, const std::string& field_name) {
  const FileStorageNode& node = field(matrix, name, field_name);
  const FileStorageNumber number = node.kind == FileStorageNode::Kind::Scalar && node.type.empty()
                                       ? fileStorageNumber(node.text, node.quoted)
                                       : FileStorageNumber{};
  if (number.kind != FileStorageNumber::Kind::Integer)
    throw InvalidInput("'" + name + "' " + field_name + " is not an integer" +
                       (number.problem.empty() ? "" : ": " + number.problem));
  if (number.integer <= 0)
    throw InvalidInput("'" + name + "' has " + std::to_string(number.integer) + " " + field_name + "; need at least 1");
  return static_cast<int>(number.integer);
}

bool base64(const FileStorageNode& node) {
  return node.type == "binary" || (node.kind == FileStorageNode::Kind::Scalar && startsWith(node.text, 0, "$base64$"));
}

}  // namespace

std::string fileStorageText(const std::string& path) {
  std::vector<char> bytes = readFileBytes(path);
  if (!gzipped(bytes)) return std::string(bytes.begin(), bytes.end());
  const std::size_t limit = std::max<std::size_t>(bytes.size(), 4096) *
                            std::min<std::size_t>(kMaxGzipRatio, std::numeric_limits<std::size_t>::max() / bytes.size());
  return namingFile(path, [&] { return inflateGzip(bytes, limit); });
}

FileStorageNode readFileStorage(const std::string& path, const FileStorageWanted& wanted) {
  std::string text = fileStorageText(path);
  return namingFile(path, [&] {
    // OpenCV skips a UTF-8 byte order mark to choose, but its parsers then refuse it: so does bovw.
    if (startsWith(text, 0, "%YAML")) return parseFileStorageYaml(std::move(text), wanted);
    if (startsWith(text, 0, "{")) return parseFileStorageJson(text, wanted);
    if (startsWith(text, 0, "<?xml")) return parseFileStorageXml(text, wanted);
    throw InvalidInput(text.empty() ? "an empty file, not OpenCV FileStorage"
                                    : "not OpenCV FileStorage: it starts with neither %YAML, { nor <?xml");
  });
}

const std::set<std::string>& fileStorageMatrixFields() {
  static const std::set<std::string> fields = {"rows", "cols", "dt", "data", "sizes", "type_id"};
  return fields;
}

Descriptors fileStorageFloatMatrix(const FileStorageNode& matrix, const std::string& name) {
  if (matrix.kind != FileStorageNode::Kind::Map)
    throw InvalidInput("'" + name + "' is not a matrix (an opencv-matrix map of rows, cols, dt and data)");
  std::string type = matrix.type;
  if (type.empty()) type = fileStorageString(matrix.find("type_id"), "'" + name + "' type_id");
  if (!type.empty() && type != "opencv-matrix")
    throw InvalidInput("'" + name + "' is of type '" + type + "', not an opencv-matrix (a 2-D matrix)");
  if (matrix.find("sizes"))
    throw InvalidInput("'" + name + "' is an n-dimensional matrix (it has sizes); bovw reads 2-D matrices");
  const std::string dt = fileStorageString(&field(matrix, name, "dt"), "'" + name + "' dt");
  // OpenCV's "f" and "1f" are both CV_32F (one channel); anything else is another type.
  if (dt != "f" && dt != "1f")
    throw InvalidInput("'" + name + "' must be a 2-D float32 (CV_32F) matrix, dt 'f'; its dt is '" + dt + "'");
  const int rows = dimension(matrix, name, "rows");
  const int cols = dimension(matrix, name, "cols");
  const FileStorageNode& data = field(matrix, name, "data");
  if (base64(data))
    throw InvalidInput("'" + name + "' data is base64 (cv::FileStorage::BASE64), which bovw does not read; "
                       "write the matrix as text");
  std::vector<float> one;
  const std::vector<float>* values = &one;
  std::size_t size = 0;
  switch (data.kind) {
    case FileStorageNode::Kind::Sequence:
      if (!data.not_numbers.empty()) throw InvalidInput("'" + name + "' data " + data.not_numbers);
      values = &data.numbers;
      size = data.size;
      break;
    case FileStorageNode::Kind::Scalar: {  // OpenCV counts a scalar as one element (XML writes 1 x 1 so)
      const FileStorageNumber number = data.type.empty() ? fileStorageNumber(data.text, data.quoted) : FileStorageNumber{};
      if (number.kind == FileStorageNumber::Kind::Integer) one.push_back(static_cast<float>(static_cast<int>(number.integer)));
      else if (number.kind == FileStorageNumber::Kind::Real) one.push_back(static_cast<float>(number.real));
      else if (number.kind == FileStorageNumber::Kind::Invalid) throw InvalidInput("'" + name + "' data: " + number.problem);
      else throw InvalidInput("'" + name + "' data is the text '" + data.text.substr(0, 40) + "', not a number");
      size = 1;
      break;
    }
    case FileStorageNode::Kind::None:
      break;
    case FileStorageNode::Kind::Map:
      throw InvalidInput("'" + name + "' data is a map, not a sequence of numbers");
  }
  // Counts compared in 64 bits: rows and cols are below 2^31 each. Nothing was allocated from them.
  const std::uint64_t declared = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  if (declared != size)
    throw InvalidInput("'" + name + "' declares " + std::to_string(rows) + " x " + std::to_string(cols) + " = " +
                       std::to_string(declared) + " values but its data holds " + std::to_string(size));
  return Eigen::Map<const Descriptors>(values->data(), rows, cols);
}

std::string fileStorageString(const FileStorageNode* node, const std::string& name) {
  if (!node || node->kind == FileStorageNode::Kind::None) return {};
  const bool text = node->kind == FileStorageNode::Kind::Scalar && (node->type.empty() || node->type == "str") &&
                    fileStorageNumber(node->text, node->quoted).kind == FileStorageNumber::Kind::NotANumber;
  if (!text) throw InvalidInput(name + " is not a string");
  return node->text;
}

}  // namespace bovw::detail
