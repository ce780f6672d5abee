// FileStorage's XML read with pugixml: a real XML parser that never expands entities beyond XML's
// five and numeric references (no DTD processing, so no "billion laughs"), then walked as OpenCV's
// parser (persistence_xml.cpp) reads it: the root <opencv_storage> is a map; an element with child
// elements is a map, or a sequence where they are all named "_"; an element's text is a list of
// literals separated by white space (a "quoted literal" may hold spaces): one is a scalar, several
// a sequence, none an empty node. The attribute type_id names the node's type.
#include "io/filestorage_syntax.hpp"

#include <bovw/error.hpp>

#include <pugixml.hpp>

#include <cstring>

namespace bovw::detail {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The element's text: its character data and CDATA children (comments, which pugixml drops, may
// split it).
std::string textOf(const pugi::xml_node& element) {
  std::string text;
  for (const pugi::xml_node& child : element.children())
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      text += child.value();
      text += ' ';
    }
  return text;
}

struct Literal {
  std::string text;
  bool quoted;
};

std::vector<Literal> literalsOf(const std::string& text) {
  std::vector<Literal> literals;
  std::size_t at = 0;
  for (;;) {
    while (at < text.size() && isSpace(text[at])) ++at;
    if (at == text.size()) return literals;
    if (text[at] == '"') {
      const std::size_t close = text.find('"', at + 1);
      if (close == std::string::npos) throw InvalidInput("XML: a quoted literal without its closing \"");
      literals.push_back({text.substr(at + 1, close - at - 1), true});
      at = close + 1;
      if (at < text.size() && !isSpace(text[at])) throw InvalidInput("XML: no space after a quoted literal");
    } else {
      std::size_t end = at;
      while (end < text.size() && !isSpace(text[end])) ++end;
      literals.push_back({text.substr(at, end - at), false});
      at = end;
    }
  }
}

void walk(const pugi::xml_node& element, FileStorageTreeBuilder& builder) {
  const std::string type = element.attribute("type_id").value();
  bool named = false, unnamed = false;
  for (const pugi::xml_node& child : element.children()) {
    if (child.type() != pugi::node_element) continue;
    (std::strcmp(child.name(), "_") == 0 ? unnamed : named) = true;
  }
  if (named || unnamed) {
    if (named && unnamed) throw InvalidInput("XML: <" + std::string(element.name()) + "> mixes named and \"_\" elements");
    if (!literalsOf(textOf(element)).empty())
      throw InvalidInput("XML: <" + std::string(element.name()) + "> mixes text and elements");
    // The builder refuses nesting past its depth before this recursion goes deeper.
    if (named) builder.beginMap(type);
    else builder.beginSequence(type);
    for (const pugi::xml_node& child : element.children()) {
      if (child.type() != pugi::node_element) continue;
      if (named) builder.key(child.name());
      walk(child, builder);
    }
    builder.end();
    return;
  }
  const std::vector<Literal> literals = literalsOf(textOf(element));
  if (literals.empty()) {
    if (type.empty()) {
      builder.empty();
    } else {  // <m type_id="..."/>: an empty typed map
      builder.beginMap(type);
      builder.end();
    }
  } else if (literals.size() == 1) {
    builder.scalar(literals[0].text, literals[0].quoted, type);
  } else {
    builder.beginSequence(type);
    for (const Literal& literal : literals) builder.scalar(literal.text, literal.quoted, "");
    builder.end();
  }
}

}  // namespace

FileStorageNode parseFileStorageXml(const std::string& text, const FileStorageWanted& wanted) {
  pugi::xml_document document;
  // parse_default: character and entity references decoded, comments and the DOCTYPE skipped (its
  // entity declarations are never applied).
  const pugi::xml_parse_result result =
      document.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!result)
    throw InvalidInput("XML error at byte " + std::to_string(result.offset) + ": " + result.description());
  const pugi::xml_node root = document.document_element();
  if (std::strcmp(root.name(), "opencv_storage") != 0)
    throw InvalidInput("XML: the root element is <" + std::string(root.name()) + ">, not <opencv_storage>");
  FileStorageTreeBuilder builder(wanted);
  if (!root.first_child()) {  // <opencv_storage/>: an empty map
    builder.beginMap("");
    builder.end();
  } else {
    walk(root, builder);
  }
  return builder.take();
}

}  // namespace bovw::detail
