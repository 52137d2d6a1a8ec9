#pragma once
// Identifiers the sandbox compares and invents: ids compared without case (UUIDs may arrive in either), and
// hexadecimal digests derived from a seed (commit shas of the simulated pull requests and test branches).

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "random.hpp"

namespace trunk::sandbox {

/// ASCII lower case: the form ids are kept and looked up in.
inline std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// 40 hexadecimal digits (a Git sha's shape) determined by `seed`.
/// Digits 16k to 16k+15 come from mix64(seed + k), lowest four bits first. Written into a buffer and copied once:
/// the simulation makes one per pull request and test run, so it is among the sandbox's hottest code.
inline std::string hex40(std::uint64_t seed) {
  static constexpr char kHex[] = "0123456789abcdef";
  char digits[40];
  std::uint64_t bits = 0;
  for (std::size_t at = 0; at < sizeof digits; ++at, bits >>= 4) {
    if (at % 16 == 0) bits = mix64(seed + at / 16);
    digits[at] = kHex[bits & 15];
  }
  return std::string(digits, sizeof digits);
}

}  // namespace trunk::sandbox
