// FileStorage's JSON read with nlohmann::json's event (SAX) parser, which keeps its own stack rather
// than recursing, and hands over each number's text: the builder then reads numbers by OpenCV's
// rules (persistence_json.cpp), as for YAML and XML. Strings are never numbers; true, false and
// null are not numbers either (bovw reads none of them).
#include "io/filestorage_syntax.hpp"

#include <bovw/error.hpp>

#include <nlohmann/json.hpp>

namespace bovw::detail {

namespace {

class Events : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit Events(FileStorageTreeBuilder& builder) : builder_(builder) {}

  bool null() override {
    builder_.empty();
    return true;
  }
  bool boolean(bool value) override {
    builder_.scalar(value ? "true" : "false", false, "");
    return true;
  }
  bool number_integer(number_integer_t value) override {
    builder_.scalar(std::to_string(value), false, "");
    return true;
  }
  bool number_unsigned(number_unsigned_t value) override {
    builder_.scalar(std::to_string(value), false, "");
    return true;
  }
  bool number_float(number_float_t, const string_t& text) override {
    builder_.scalar(text, false, "");
    return true;
  }
  bool string(string_t& value) override {
    builder_.scalar(value, true, "");
    return true;
  }
  bool binary(binary_t&) override { throw InvalidInput("JSON: binary values are not FileStorage's"); }
  bool start_object(std::size_t) override {
    builder_.beginMap("");
    return true;
  }
  bool key(string_t& name) override {
    builder_.key(name);
    return true;
  }
  bool end_object() override {
    builder_.end();
    return true;
  }
  bool start_array(std::size_t) override {
    builder_.beginSequence("");
    return true;
  }
  bool end_array() override {
    builder_.end();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
    throw InvalidInput(std::string("JSON error: ") + error.what());
  }

 private:
  FileStorageTreeBuilder& builder_;
};

}  // namespace

FileStorageNode parseFileStorageJson(const std::string& text, const FileStorageWanted& wanted) {
  FileStorageTreeBuilder builder(wanted);
  Events events(builder);
  nlohmann::json::sax_parse(text, &events);
  return builder.take();
}

}  // namespace bovw::detail
