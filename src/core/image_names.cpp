// imageNameProblem and printableName: one UTF-8 decoder, strict as RFC 3629 (no overlong forms,
// no surrogates, nothing above U+10FFFF), so that what passes here is what JSON writers accept.
#include <bovw/image_names.hpp>

#include <cstdint>
#include <cstdio>

namespace bovw {

namespace {

// The length of the valid UTF-8 sequence at name[at], or 0 if none starts there.
std::size_t sequenceLength(std::string_view name, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(name[i]); };
  const std::uint8_t lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length;
  std::uint32_t code;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2, code = lead & 0x1f;
  else if (lead >= 0xe0 && lead <= 0xef) length = 3, code = lead & 0x0f;
  else if (lead >= 0xf0 && lead <= 0xf4) length = 4, code = lead & 0x07;
  else return 0;  // a continuation byte, an overlong lead (c0, c1), or beyond U+10FFFF (f5..ff)
  if (at + length > name.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
    code = code << 6 | (byte(at + i) & 0x3f);
  }
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

bool isControl(std::uint8_t byte) { return byte < 0x20 || byte == 0x7f; }

std::string hex(std::uint8_t byte) {
  char text[5];
  std::snprintf(text, sizeof text, "\\x%02x", byte);
  return text;
}

}  // namespace

std::optional<std::string> imageNameProblem(std::string_view name) {
  if (name.empty()) return std::string("is empty");
  for (std::size_t at = 0; at < name.size();) {
    const std::size_t length = sequenceLength(name, at);
    if (length == 0) return "is not valid UTF-8 (byte " + hex(static_cast<std::uint8_t>(name[at])) + ")";
    if (length == 1 && isControl(static_cast<std::uint8_t>(name[at])))
      return "holds a control character (" + hex(static_cast<std::uint8_t>(name[at])) + ")";
    at += length;
  }
  return std::nullopt;
}

std::string printableName(std::string_view name) {
  std::string out;
  for (std::size_t at = 0; at < name.size();) {
    const std::size_t length = sequenceLength(name, at);
    const auto lead = static_cast<std::uint8_t>(name[at]);
    if (length == 0 || (length == 1 && (isControl(lead) || lead == '\\'))) {
      out += hex(lead);
      ++at;
    } else {
      out.append(name.substr(at, length));
      at += length;
    }
  }
  return out;
}

}  // namespace bovw
