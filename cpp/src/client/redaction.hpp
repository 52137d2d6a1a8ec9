#pragma once
// Keeps the client's credentials (its token, API key and trunk token) out of every text the client produces (messages, log
// records, error bodies).

#include <array>
#include <string>
#include <string_view>

namespace trunk::detail {

inline constexpr std::string_view kRedacted = "[REDACTED]";

/// `text` with every occurrence of `secret` replaced by kRedacted (unchanged when secret is empty).
std::string redact(std::string_view text, std::string_view secret);

/// The secrets of one client: its organization token, its API key and its trunk token (any may be empty), views
/// into their secret memory.
using SecretViews = std::array<std::string_view, 3>;

/// `text` with every occurrence of each secret replaced by kRedacted.
std::string redact(std::string_view text, const SecretViews& secrets);

/// Whether `text` holds any of the secrets.
bool contains_any(std::string_view text, const SecretViews& secrets);

}  // namespace trunk::detail
