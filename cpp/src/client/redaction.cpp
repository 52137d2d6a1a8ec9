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

}  // namespace trunk::detail
