// FileStorage's YAML read with libyaml's event parser: no recursion, no alias expansion (aliases
// and anchors are refused: OpenCV has none), the first document kept (all that FileStorage's
// operator[] looks at) and the others checked. OpenCV's header "%YAML:1.0" is not YAML (libyaml, like every YAML parser,
// rejects the colon), so the leading directive lines are checked as OpenCV checks them and then
// blanked before libyaml sees the text.
#include "io/filestorage_syntax.hpp"

#include <bovw/error.hpp>

#include <yaml.h>

#include <cstring>
#include <memory>
#include <vector>

namespace bovw::detail {

namespace {

// OpenCV's YAML parser (persistence_yml.cpp, parse): before the first node, lines starting with
// '%' are directives and ignored, except that one starting "%YAML" must go on "%YAML:1." or
// "%YAML 1.". Blank lines and comments may stand between them. Each directive line is blanked
// (its newline kept, so that libyaml's line numbers stay the file's).
void blankDirectives(std::string& text) {
  std::size_t line = 0;
  while (line < text.size()) {
    std::size_t end = text.find('\n', line);
    if (end == std::string::npos) end = text.size();
    std::size_t first = line;
    while (first < end && text[first] == ' ') ++first;
    if (first < end && text[first] == '%') {
      if (text.compare(first, 5, "%YAML") == 0 && text.compare(first, 8, "%YAML:1.") != 0 &&
          text.compare(first, 8, "%YAML 1.") != 0)
        throw InvalidInput("unsupported YAML version (OpenCV reads %YAML:1.x)");
      std::fill(text.begin() + static_cast<std::ptrdiff_t>(first), text.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    } else if (first < end && text[first] != '#' && text[first] != '\r') {
      break;
    }
    line = end + 1;
  }
}

// libyaml's name for !!name is "tag:yaml.org,2002:name"; FileStorage writes and reads !!name.
std::string typeOf(const yaml_char_t* tag) {
  if (!tag) return {};
  const std::string full(reinterpret_cast<const char*>(tag));
  static const std::string standard = "tag:yaml.org,2002:";
  return full.compare(0, standard.size(), standard) == 0 ? full.substr(standard.size()) : full;
}

struct Parser {
  yaml_parser_t parser;
  Parser() {
    if (!yaml_parser_initialize(&parser)) throw std::bad_alloc();
  }
  ~Parser() { yaml_parser_delete(&parser); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
};

struct Event {
  yaml_event_t event;
  ~Event() { yaml_event_delete(&event); }
};

[[noreturn]] void refuseAnchor() { throw InvalidInput("YAML anchors and aliases (& and *) are not FileStorage's"); }

}  // namespace

FileStorageNode parseFileStorageYaml(std::string text, const FileStorageWanted& wanted) {
  blankDirectives(text);
  Parser yaml;
  yaml_parser_set_input_string(&yaml.parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  FileStorageTreeBuilder builder(wanted);
  // Per open collection: whether it is a map, and if so whether its next scalar is a key.
  struct Open {
    bool map;
    bool key_next;
  };
  std::vector<Open> open;
  bool first_done = false;
  // After a value: in a map, a key comes next.
  auto valueDone = [&] {
    if (!open.empty() && open.back().map) open.back().key_next = true;
  };
  for (;;) {
    Event e;
    if (!yaml_parser_parse(&yaml.parser, &e.event)) {
      const yaml_mark_t& mark = yaml.parser.problem_mark;
      throw InvalidInput("YAML error at line " + std::to_string(mark.line + 1) + ", column " +
                         std::to_string(mark.column + 1) + ": " +
                         (yaml.parser.problem ? yaml.parser.problem : "unknown problem") +
                         (yaml.parser.context ? std::string(" ") + yaml.parser.context : std::string()));
    }
    const yaml_event_t& event = e.event;
    if (event.type == YAML_STREAM_END_EVENT) return builder.take();
    // Later documents are parsed (an error in them refuses the file, as OpenCV's parser does) but
    // not kept: cv::FileStorage's operator[] looks in the first.
    if (first_done) continue;
    const bool key_next = !open.empty() && open.back().key_next;
    switch (event.type) {
      case YAML_STREAM_START_EVENT:
      case YAML_DOCUMENT_START_EVENT:
        break;
      case YAML_DOCUMENT_END_EVENT:
        first_done = true;
        break;
      case YAML_ALIAS_EVENT:
        refuseAnchor();
      case YAML_SCALAR_EVENT:
        if (event.data.scalar.anchor) refuseAnchor();
        if (key_next) {
          builder.key(std::string(reinterpret_cast<const char*>(event.data.scalar.value), event.data.scalar.length));
          open.back().key_next = false;
          break;
        }
        if (event.data.scalar.length == 0 && event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !event.data.scalar.tag)
          builder.empty();
        else
          builder.scalar(std::string(reinterpret_cast<const char*>(event.data.scalar.value), event.data.scalar.length),
                         event.data.scalar.style != YAML_PLAIN_SCALAR_STYLE, typeOf(event.data.scalar.tag));
        valueDone();
        break;
      case YAML_MAPPING_START_EVENT:
      case YAML_SEQUENCE_START_EVENT: {
        const bool map = event.type == YAML_MAPPING_START_EVENT;
        if (key_next) throw InvalidInput("a map or sequence as a key (complex keys are not FileStorage's)");
        const yaml_char_t* anchor = map ? event.data.mapping_start.anchor : event.data.sequence_start.anchor;
        if (anchor) refuseAnchor();
        const std::string type = typeOf(map ? event.data.mapping_start.tag : event.data.sequence_start.tag);
        if (map) builder.beginMap(type);
        else builder.beginSequence(type);
        open.push_back(Open{map, map});
        break;
      }
      case YAML_MAPPING_END_EVENT:
      case YAML_SEQUENCE_END_EVENT:
        builder.end();
        open.pop_back();
        valueDone();
        break;
      default:
        break;
    }
  }
}

}  // namespace bovw::detail
