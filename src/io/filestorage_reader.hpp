// bovw's own reader of OpenCV FileStorage files (.yml, .xml, .json, gzip-compressed or not): the
// text by safe parsers (filestorage_syntax.hpp), never by cv::FileStorage, whose parser loops
// forever on some malformed YAML (docs/FUZZING.md). On the files OpenCV reads it gives what
// cv::FileStorage gives; docs/FORMATS.md says what it refuses.
#pragma once

#include "io/filestorage_tree.hpp"

#include <bovw/descriptors.hpp>

#include <string>

namespace bovw::detail {

// The file's text: its bytes, inflated where they start with gzip's magic (OpenCV's gzopen reads
// both). Inflating stops with InvalidInput past kMaxGzipRatio times the compressed size (no FileStorage
// text compresses that well; a "gzip bomb" does) or on damaged or truncated data.
constexpr std::size_t kMaxGzipRatio = 200;
std::string fileStorageText(const std::string& path);

// The nodes of `path` named in `wanted`, its syntax chosen by its first bytes as OpenCV chooses
// ("%YAML", "{" or "<?xml"). Throws IoError if it cannot be read,
// InvalidInput naming it if it is not FileStorage text.
FileStorageNode readFileStorage(const std::string& path, const FileStorageWanted& wanted);

// The names a float32 matrix node needs kept (FileStorageWanted's inner sets).
const std::set<std::string>& fileStorageMatrixFields();

// `node` (the top-level `name`) as a 2-D CV_32F matrix: an opencv-matrix map of rows, cols, dt "f"
// and rows x cols numbers of data, exactly as cv::FileStorage reads it. Other element types,
// n-dimensional and base64 matrices are refused. Throws InvalidInput naming no file.
Descriptors fileStorageFloatMatrix(const FileStorageNode& node, const std::string& name);

// A string node (quoted, or a plain scalar that is not a number); "" where `node` is null or empty.
// Throws InvalidInput "<what> is not a string" for any other node.
std::string fileStorageString(const FileStorageNode* node, const std::string& what);

}  // namespace bovw::detail
