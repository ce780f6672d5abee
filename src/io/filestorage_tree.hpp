// What bovw's reader of OpenCV FileStorage files (filestorage_reader.hpp) makes of a file: the few
// nodes a caller asks for, built from the events of a YAML, XML or JSON parser (one file per syntax:
// filestorage_yaml.cpp, _xml.cpp, _json.cpp), with OpenCV's own rules for what a scalar means.
// Nothing else is kept, so memory follows what the file holds, never what it declares; nesting is
// bounded, so no input drives a recursion deep.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bovw::detail {

// The top-level names a reader keeps, each with the names kept inside it where it is a map
// ({"vocabulary", {"rows", "cols", "dt", "data"}}). Deeper nodes are never kept.
using FileStorageWanted = std::map<std::string, std::set<std::string>>;

struct FileStorageNode {
  enum class Kind { None, Scalar, Sequence, Map };
  Kind kind = Kind::None;
  // Its type name: a YAML tag (!!opencv-matrix gives "opencv-matrix"), XML's type_id attribute.
  std::string type;
  // Scalar: its text, and whether its syntax makes it a string (quoted), never a number.
  std::string text;
  bool quoted = false;
  // Sequence: how many elements; while every one is a number, their values as OpenCV stores them
  // in a CV_32F matrix; else `not_numbers` says which element is not (and `numbers` is emptied).
  std::size_t size = 0;
  std::vector<float> numbers;
  std::string not_numbers;
  // Map: the wanted entries, in file order.
  std::vector<std::pair<std::string, FileStorageNode>> entries;

  const FileStorageNode* find(const std::string& name) const;
};

// A scalar as OpenCV's parsers read it (persistence_yml.cpp, _xml.cpp, _json.cpp): it is a number
// when it starts with a digit, a sign and a digit or '.', or '.' and a letter or digit; then a real
// (strtod, C locale) when the digits after the sign end at '.' or 'e', else an integer (strtol,
// base 0: "0x1f" and "017" too). The whole scalar must be that number, as OpenCV's parser then
// stops with an error. Integers outside 32 bits are refused here where OpenCV would wrap them.
struct FileStorageNumber {
  enum class Kind { NotANumber, Integer, Real, Invalid };
  Kind kind = Kind::NotANumber;
  long integer = 0;
  double real = 0.0;
  std::string problem;  // Invalid: why
};
FileStorageNumber fileStorageNumber(const std::string& text, bool quoted);

// Builds the tree from a parser's events. Throws InvalidInput (naming no file) for a top level that
// is not a map, a wanted name given twice, or nesting deeper than kMaxDepth.
class FileStorageTreeBuilder {
 public:
  static constexpr std::size_t kMaxDepth = 64;

  explicit FileStorageTreeBuilder(const FileStorageWanted& wanted);

  void beginMap(const std::string& type);
  void beginSequence(const std::string& type);
  void key(const std::string& name);  // in a map, before each value
  void scalar(const std::string& text, bool quoted, const std::string& type);
  void empty();                        // a value that is nothing (YAML "key:", XML <key/>, JSON null)
  void end();                          // of the innermost map or sequence
  bool finished() const { return started_ && frames_.empty(); }
  FileStorageNode take();              // the top-level map

 private:
  struct Frame {
    FileStorageNode::Kind kind;
    FileStorageNode* node;                 // null where nothing of it is kept
    const std::set<std::string>* inside;   // the names kept in a kept map
    std::string key;
    bool have_key = false;
  };
  // The node a new value goes to (null if it is not kept), and the names kept inside it.
  std::pair<FileStorageNode*, const std::set<std::string>*> place(FileStorageNode::Kind kind, const std::string& what);
  void begin(FileStorageNode::Kind kind, const std::string& type);

  const FileStorageWanted& wanted_;
  std::set<std::string> top_level_;
  FileStorageNode root_;
  std::vector<Frame> frames_;
  bool started_ = false;
};

}  // namespace bovw::detail
