#include "text.hpp"

#include <cstdio>

#include "trunk/validation.hpp"

namespace trunk::detail {

namespace {
bool is_continuation(unsigned char byte) noexcept { return (byte & 0xC0U) == 0x80U; }

void append_hex_escape(std::string& out, unsigned char byte) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02X", static_cast<unsigned>(byte));
  out += buffer;
}
}  // namespace

std::size_t utf8_sequence_length(std::string_view text, std::size_t pos) noexcept {
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const std::size_t left = text.size() - pos;
  const unsigned char lead = at(pos);
  if (lead < 0x80U) return 1;
  // Ranges of the second byte follow RFC 3629 §4, which excludes overlong forms (E0 80..9F, F0 80..8F),
  // UTF-16 surrogates (ED A0..BF) and code points above U+10FFFF (F4 90.., F5..FF).
  unsigned char second_min = 0x80U;
  unsigned char second_max = 0xBFU;
  std::size_t length = 0;
  if (lead >= 0xC2U && lead <= 0xDFU) {
    length = 2;
  } else if (lead >= 0xE0U && lead <= 0xEFU) {
    length = 3;
    if (lead == 0xE0U) second_min = 0xA0U;
    if (lead == 0xEDU) second_max = 0x9FU;
  } else if (lead >= 0xF0U && lead <= 0xF4U) {
    length = 4;
    if (lead == 0xF0U) second_min = 0x90U;
    if (lead == 0xF4U) second_max = 0x8FU;
  } else {
    return 0;
  }
  if (left < length) return 0;
  if (at(pos + 1) < second_min || at(pos + 1) > second_max) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (!is_continuation(at(pos + i))) return 0;
  }
  return length;
}

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (out.size() >= max_bytes) {
      out += "... (" + std::to_string(text.size()) + " bytes)";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[pos]);
    const std::size_t length = utf8_sequence_length(text, pos);
    if (length == 0 || byte < 0x20U || byte == 0x7FU) {
      append_hex_escape(out, byte);
      ++pos;
    } else {
      out.append(text.substr(pos, length));
      pos += length;
    }
  }
  return out;
}

std::string quoted(std::string_view text, std::size_t max_bytes) {
  return '"' + printable(text, max_bytes) + '"';
}

}  // namespace trunk::detail

namespace trunk {

bool is_valid_utf8(std::string_view text) noexcept {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t length = detail::utf8_sequence_length(text, pos);
    if (length == 0) return false;
    pos += length;
  }
  return true;
}

}  // namespace trunk
