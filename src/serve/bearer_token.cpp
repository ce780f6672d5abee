#include "serve/bearer_token.hpp"

#include <bovw/error.hpp>

#include <fstream>
#include <iterator>

namespace bovw::serve {

BearerToken BearerToken::fromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("'" + path + "': cannot read the token file");
  std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!token.empty() && token.back() == '\n') token.pop_back();
  if (!token.empty() && token.back() == '\r') token.pop_back();
  if (token.empty()) throw InvalidInput(path, "the token file is empty");
  if (token.size() > 4096) throw InvalidInput(path, "the token is longer than 4 KiB");
  for (const unsigned char c : token)
    if (c <= ' ' || c == 0x7f) throw InvalidInput(path, "the token holds spaces, line breaks or control characters");
  BearerToken result;
  result.token_ = std::move(token);
  return result;
}

bool BearerToken::admits(const std::string& authorization) const {
  static const std::string kScheme = "Bearer ";
  if (authorization.compare(0, kScheme.size(), kScheme) != 0) return false;
  const std::string given = authorization.substr(kScheme.size());
  // Every byte is compared whatever the first difference: the time tells nothing of the token.
  unsigned char differ = given.size() == token_.size() ? 0 : 1;
  for (std::size_t i = 0; i < token_.size(); ++i)
    differ |= static_cast<unsigned char>(token_[i] ^ (i < given.size() ? given[i] : 0));
  return differ == 0;
}

}  // namespace bovw::serve
