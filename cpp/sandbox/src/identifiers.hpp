#pragma once
// Identifiers the sandbox compares and invents: ids compared without case (UUIDs may arrive in either), and
// hexadecimal digests derived from a seed (commit shas of the simulated pull requests and test branches).

#include <algorithm>
#include <cctype>
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
inline std::string hex40(std::uint64_t seed) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint64_t i = 0; out.size() < 40; ++i) {
    std::uint64_t bits = mix64(seed + i);
    for (int n = 0; n < 16 && out.size() < 40; ++n, bits >>= 4) out += kHex[bits & 15];
  }
  return out;
}

}  // namespace trunk::sandbox
