#include "redaction.hpp"

namespace trunk::detail {

std::string redact(std::string_view text, std::string_view secret) {
  if (secret.empty()) return std::string(text);
  std::string result;
  result.reserve(text.size());
  std::size_t start = 0;
  for (std::size_t found = text.find(secret); found != std::string_view::npos;
       found = text.find(secret, start)) {
    result.append(text.substr(start, found - start));
    result.append(kRedacted);
    start = found + secret.size();
  }
  result.append(text.substr(start));
  return result;
}

std::string redact(std::string_view text, const SecretViews& secrets) {
  // One pass, copying only what lies between occurrences: no intermediate string ever holds a secret (it would be
  // freed unwiped).
  std::string result;
  result.reserve(text.size());
  std::size_t start = 0;
  while (true) {
    std::size_t found = std::string_view::npos;
    std::size_t length = 0;
    for (const std::string_view secret : secrets) {
      if (secret.empty()) continue;
      const std::size_t at = text.find(secret, start);
      if (at < found || (at == found && at != std::string_view::npos && secret.size() > length)) {
        found = at;
        length = secret.size();
      }
    }
    if (found == std::string_view::npos) break;
    result.append(text.substr(start, found - start));
    result.append(kRedacted);
    start = found + length;
  }
  result.append(text.substr(start));
  return result;
}

bool contains_any(std::string_view text, const SecretViews& secrets) {
  for (const std::string_view secret : secrets) {
    if (!secret.empty() && text.find(secret) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace trunk::detail
