#pragma once
// Internal text helpers shared by the core: rendering untrusted bytes safely inside error messages.
// Every message the library builds must itself be valid UTF-8 (Python turns what() into str) and bounded
// (a 1 MB field must not become a 1 MB exception message).

#include <cstddef>
#include <string>
#include <string_view>

namespace trunk::detail {

/// Default bound, in bytes, of a value quoted inside an error message.
inline constexpr std::size_t kMaxQuotedBytes = 200;

/// The text with control characters and bytes that are not well-formed UTF-8 escaped as \xNN, cut at
/// max_bytes (on a character boundary) with a note of the full length.
std::string printable(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);

/// printable(text) in double quotes, so that "" and " x" stay visible in messages.
std::string quoted(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);

/// Length of the well-formed UTF-8 sequence starting at text[pos], or 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t pos) noexcept;

}  // namespace trunk::detail
