#pragma once
// Keeps the API token out of every text the client produces (messages, log records, error bodies).

#include <string>
#include <string_view>

namespace trunk::detail {

inline constexpr std::string_view kRedacted = "[REDACTED]";

/// `text` with every occurrence of `secret` replaced by kRedacted (unchanged when secret is empty).
std::string redact(std::string_view text, std::string_view secret);

}  // namespace trunk::detail
