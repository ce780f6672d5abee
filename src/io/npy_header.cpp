// A recursive-descent parser of the .npy header's dict literal (the grammar in npy_header.hpp),
// then the checks numpy makes on the dict: exactly its three keys, each of the right type.
#include "io/npy_header.hpp"

#include <bovw/error.hpp>

#include <cctype>
#include <limits>
#include <map>

namespace bovw::detail {

namespace {

struct Value {
  enum class Kind { String, Bool, Integer, Tuple } kind = Kind::String;
  std::string text;          // String: its characters; Integer: its digits, '-' first if negative
  bool flag = false;         // Bool
  std::vector<Value> items;  // Tuple
};

// Deeper tuples than this are refused (no header bovw reads has any): bounds the recursion.
constexpr int kMaxDepth = 8;

class Parser {
 public:
  Parser(const std::string& text, int major, const std::string& path) : text_(text), major_(major), path_(path) {}

  std::map<std::string, Value> dict() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t')) ++position_;
    expect('{', "the header must be a dict: '{'");
    std::map<std::string, Value> entries;
    skipSpace();
    while (!accept('}')) {
      const std::size_t key_position = position_;
      Value key = value(0);
      if (key.kind != Value::Kind::String) fail(key_position, "a key that is not a string");
      expect(':', "':' after the key");
      Value item = value(0);
      if (!entries.emplace(key.text, std::move(item)).second)
        fail("the key '" + key.text + "' appears twice (which one holds?)");
      if (accept('}')) break;
      expect(',', "',' or '}' after a value");
    }
    // Padding after the dict: spaces, then at most one line end (Python refuses an indented line).
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t' || text_[position_] == '\f'))
      ++position_;
    if (text_.compare(position_, std::string::npos, "\r\n") == 0) position_ += 2;
    else if (text_.compare(position_, std::string::npos, "\n") == 0) position_ += 1;
    if (position_ != text_.size()) fail(position_, "text after the dict");
    return entries;
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw InvalidInput(path_, "not a valid .npy file: " + problem + " in its header " + shown());
  }

 private:
  [[noreturn]] void fail(std::size_t position, const std::string& what) const {
    fail("unexpected " + (position < text_.size() ? "'" + std::string(1, text_[position]) + "'" : "end") +
         " at character " + std::to_string(position) + " (" + what + ")");
  }

  // The header as Python shows a string, cut short: enough to find the problem in.
  std::string shown() const {
    std::string out;
    for (char c : text_.substr(0, 200)) {
      if (c == '\n') out += "\\n";
      else if (std::isprint(static_cast<unsigned char>(c))) out += c;
      else out += '?';
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + (text_.size() > 200 ? "..." : "");
  }

  // Inside the braces Python joins lines, so line breaks count as spaces.
  void skipSpace() {
    while (position_ < text_.size() && std::string(" \t\f\r\n").find(text_[position_]) != std::string::npos)
      ++position_;
  }
  bool accept(char c) {
    skipSpace();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (!accept(c)) fail(position_, what);
  }

  Value value(int depth) {
    skipSpace();
    if (position_ >= text_.size()) fail(position_, "a value");
    const char c = text_[position_];
    if (c == '\'' || c == '"') return string();
    if (c == '(') return tuple(depth);
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return integer();
    if (std::isalpha(static_cast<unsigned char>(c))) return name();
    if (c == '[' || c == '{') fail(position_, "lists and dicts, as in structured dtypes, are not supported");
    fail(position_, "a value");
  }

  Value string() {
    const char quote = text_[position_++];
    Value v;
    while (position_ < text_.size() && text_[position_] != quote) {
      const char c = text_[position_];
      if (c == '\\') fail(position_, "escapes in strings are not supported");
      if (c == '\n' || c == '\r') fail(position_, "an unterminated string");
      v.text += c;
      ++position_;
    }
    if (position_ >= text_.size()) fail(position_, "an unterminated string");
    ++position_;
    return v;
  }

  Value name() {
    const std::size_t start = position_;
    while (position_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_'))
      ++position_;
    const std::string word = text_.substr(start, position_ - start);
    if (word != "True" && word != "False") fail(start, "only True and False are read as names");
    Value v;
    v.kind = Value::Kind::Bool;
    v.flag = word == "True";
    return v;
  }

  Value integer() {
    const std::size_t start = position_;
    Value v;
    v.kind = Value::Kind::Integer;
    if (text_[position_] == '-') v.text += text_[position_++];
    const std::size_t digits = position_;
    while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_])))
      v.text += text_[position_++];
    if (position_ == digits) fail(position_, "digits after '-'");
    if (text_[digits] == '0' && position_ - digits > 1) fail(start, "a decimal integer without leading zeros");
    // numpy drops Python 2's long suffix in format 1.0 and 2.0 headers (format._filter_header).
    if (major_ < 3 && position_ < text_.size() && text_[position_] == 'L') ++position_;
    return v;
  }

  // "()" and "(a, b)" and "(a,)" are tuples; "(a)" is just a, as in Python.
  Value tuple(int depth) {
    if (depth >= kMaxDepth) fail(position_, "tuples nested too deep");
    ++position_;
    Value t;
    t.kind = Value::Kind::Tuple;
    if (accept(')')) return t;
    Value first = value(depth + 1);
    if (accept(')')) return first;
    t.items.push_back(std::move(first));
    expect(',', "',' or ')' in a tuple");
    while (!accept(')')) {
      t.items.push_back(value(depth + 1));
      if (accept(')')) break;
      expect(',', "',' or ')' in a tuple");
    }
    return t;
  }

  const std::string& text_;
  int major_;
  const std::string& path_;
  std::size_t position_ = 0;
};

std::int64_t extent(const Value& v, const Parser& parser) {
  if (v.text[0] == '-') parser.fail("'shape' has a negative extent " + v.text);
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t n = 0;
  for (char c : v.text) {
    if (n > (kMax - (c - '0')) / 10) parser.fail("'shape' extent " + v.text + " is out of range");
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

NpyHeader parseNpyHeader(const std::string& text, int major, const std::string& path) {
  Parser parser(text, major, path);
  if (text.size() > kMaxNpyHeaderSize)
    parser.fail("a header of " + std::to_string(text.size()) + " bytes (numpy reads at most " +
                std::to_string(kMaxNpyHeaderSize) + ")");
  std::map<std::string, Value> entries = parser.dict();
  for (const auto& [key, value] : entries)
    if (key != "descr" && key != "fortran_order" && key != "shape")
      parser.fail("the key '" + key + "' (numpy writes exactly 'descr', 'fortran_order' and 'shape')");
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (entries.count(key) == 0) parser.fail(std::string("no '") + key + "' key");

  NpyHeader header;
  const Value& descr = entries["descr"];
  if (descr.kind != Value::Kind::String) parser.fail("'descr' is not a string (structured dtypes are not supported)");
  header.descr = descr.text;
  const Value& order = entries["fortran_order"];
  if (order.kind != Value::Kind::Bool) parser.fail("'fortran_order' is not True or False");
  header.fortran_order = order.flag;
  const Value& shape = entries["shape"];
  if (shape.kind != Value::Kind::Tuple) parser.fail("'shape' is not a tuple, e.g. (1000, 64) or (1000,)");
  for (const Value& item : shape.items) {
    if (item.kind != Value::Kind::Integer) parser.fail("'shape' holds something other than integers");
    header.shape.push_back(extent(item, parser));
  }
  return header;
}

}  // namespace bovw::detail
