// FileStorageTreeBuilder and fileStorageNumber: the syntax-independent half of the FileStorage
// reader (filestorage_tree.hpp).
#include "io/filestorage_tree.hpp"

#include <bovw/error.hpp>

#include <cerrno>
#include <clocale>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <locale.h>

namespace bovw::detail {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlnum(char c) { return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// OpenCV's cv::strtod is the C library's in the program's locale; bovw reads the same text the same
// way whatever the locale (a C locale of its own: "0.5" is never cut at the '.').
double strtodC(const char* text, char** end) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", nullptr);
  return strtod_l(text, end, c_locale);
}

std::string quoted(const std::string& text) {
  return "'" + (text.size() > 40 ? text.substr(0, 40) + "..." : text) + "'";
}

}  // namespace

const FileStorageNode* FileStorageNode::find(const std::string& name) const {
  for (const auto& [key, node] : entries)
    if (key == name) return &node;
  return nullptr;
}

FileStorageNumber fileStorageNumber(const std::string& text, bool quoted_text) {
  FileStorageNumber number;
  const char c = text.empty() ? '\0' : text[0];
  const char d = text.size() > 1 ? text[1] : '\0';
  if (quoted_text || !(isDigit(c) || ((c == '-' || c == '+') && (isDigit(d) || d == '.')) || (c == '.' && isAlnum(d))))
    return number;
  std::size_t at = (c == '-' || c == '+') ? 1 : 0;
  while (at < text.size() && isDigit(text[at])) ++at;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  if (at < text.size() && (text[at] == '.' || text[at] == 'e')) {
    number.real = strtodC(begin, &end);
    number.kind = FileStorageNumber::Kind::Real;
  } else {
    number.integer = std::strtol(begin, &end, 0);
    number.kind = FileStorageNumber::Kind::Integer;
    if (errno == ERANGE || number.integer < std::numeric_limits<int>::min() ||
        number.integer > std::numeric_limits<int>::max()) {
      number.kind = FileStorageNumber::Kind::Invalid;
      number.problem = "the integer " + quoted(text) + " does not fit in 32 bits";
      return number;
    }
  }
  if (end != begin + text.size()) {
    number.kind = FileStorageNumber::Kind::Invalid;
    number.problem = quoted(text) + " is not a number";
  }
  return number;
}

FileStorageTreeBuilder::FileStorageTreeBuilder(const FileStorageWanted& wanted) : wanted_(wanted) {
  for (const auto& entry : wanted_) top_level_.insert(entry.first);
}

std::pair<FileStorageNode*, const std::set<std::string>*> FileStorageTreeBuilder::place(FileStorageNode::Kind kind,
                                                                                      const std::string& what) {
  if (frames_.empty()) {
    if (started_) throw InvalidInput("a second value after the top-level map");
    if (kind != FileStorageNode::Kind::Map) throw InvalidInput("the top level is " + what + ", not a map of names");
    started_ = true;
    root_.kind = FileStorageNode::Kind::Map;
    return {&root_, &top_level_};
  }
  Frame& parent = frames_.back();
  if (parent.kind == FileStorageNode::Kind::Map) {
    if (!parent.have_key) throw InvalidInput("a map value without a key");
    parent.have_key = false;
    if (!parent.node || parent.inside->count(parent.key) == 0) return {nullptr, nullptr};
    if (parent.node->find(parent.key)) throw InvalidInput("'" + parent.key + "' is given twice");
    parent.node->entries.emplace_back(parent.key, FileStorageNode{});
    FileStorageNode* node = &parent.node->entries.back().second;
    node->kind = kind;
    // Only the top level's entries keep entries of their own.
    static const std::set<std::string> nothing;
    const bool top = parent.node == &root_;
    return {node, top ? &wanted_.at(parent.key) : &nothing};
  }
  // A sequence: its elements are kept as numbers only.
  if (parent.node) {
    FileStorageNode& sequence = *parent.node;
    if (sequence.not_numbers.empty() && kind != FileStorageNode::Kind::Scalar) {
      sequence.not_numbers = "element " + std::to_string(sequence.size + 1) + " is " + what + ", not a number";
      sequence.numbers = {};
    }
    ++sequence.size;
  }
  return {nullptr, nullptr};
}

void FileStorageTreeBuilder::begin(FileStorageNode::Kind kind, const std::string& type) {
  if (frames_.size() >= kMaxDepth)
    throw InvalidInput("maps or sequences nested more than " + std::to_string(kMaxDepth) + " deep");
  const auto [node, inside] = place(kind, kind == FileStorageNode::Kind::Map ? "a map" : "a sequence");
  if (node) node->type = type;
  frames_.push_back(Frame{kind, node, inside, {}, false});
}

void FileStorageTreeBuilder::beginMap(const std::string& type) { begin(FileStorageNode::Kind::Map, type); }

void FileStorageTreeBuilder::beginSequence(const std::string& type) { begin(FileStorageNode::Kind::Sequence, type); }

void FileStorageTreeBuilder::key(const std::string& name) {
  if (frames_.empty() || frames_.back().kind != FileStorageNode::Kind::Map || frames_.back().have_key)
    throw InvalidInput("a key where a value belongs");
  frames_.back().key = name;
  frames_.back().have_key = true;
}

void FileStorageTreeBuilder::scalar(const std::string& text, bool quoted_text, const std::string& type) {
  if (!frames_.empty() && frames_.back().kind == FileStorageNode::Kind::Sequence) {
    FileStorageNode* sequence = frames_.back().node;
    if (!sequence) return;
    if (sequence->not_numbers.empty()) {
      const FileStorageNumber number = fileStorageNumber(text, quoted_text);
      const std::string which = "element " + std::to_string(sequence->size + 1);
      if (!type.empty()) sequence->not_numbers = which + " has a type (" + type + "), not a number";
      else if (number.kind == FileStorageNumber::Kind::NotANumber)
        sequence->not_numbers = which + " is the text " + quoted(text) + ", not a number";
      else if (number.kind == FileStorageNumber::Kind::Invalid) sequence->not_numbers = which + ": " + number.problem;
      // What OpenCV's FileNode::readRaw stores in a CV_32F matrix: the int or double, cast.
      else if (number.kind == FileStorageNumber::Kind::Integer) sequence->numbers.push_back(static_cast<float>(static_cast<int>(number.integer)));
      else sequence->numbers.push_back(static_cast<float>(number.real));
      if (!sequence->not_numbers.empty()) sequence->numbers = {};
    }
    ++sequence->size;
    return;
  }
  const auto [node, inside] = place(FileStorageNode::Kind::Scalar, "a scalar");
  (void)inside;
  if (!node) return;
  node->text = text;
  node->quoted = quoted_text;
  node->type = type;
}

void FileStorageTreeBuilder::empty() {
  if (!frames_.empty() && frames_.back().kind == FileStorageNode::Kind::Sequence) {
    FileStorageNode* sequence = frames_.back().node;
    if (sequence && sequence->not_numbers.empty()) {
      sequence->not_numbers = "element " + std::to_string(sequence->size + 1) + " is empty, not a number";
      sequence->numbers = {};
    }
    if (sequence) ++sequence->size;
    return;
  }
  place(FileStorageNode::Kind::None, "nothing");
}

void FileStorageTreeBuilder::end() {
  if (frames_.empty()) throw InvalidInput("the end of a map or sequence that was not begun");
  if (frames_.back().kind == FileStorageNode::Kind::Map && frames_.back().have_key)
    throw InvalidInput("a key without a value");
  frames_.pop_back();
}

FileStorageNode FileStorageTreeBuilder::take() {
  if (!finished()) throw InvalidInput(started_ ? "the top-level map does not end" : "no top-level map");
  return std::move(root_);
}

}  // namespace bovw::detail
