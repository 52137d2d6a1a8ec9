#pragma once
// Shared helpers of the libFuzzer targets.
//
// A property that does not hold is a finding: it must stop the run the same way a sanitizer report does, so
// libFuzzer saves the input as crash-<sha1> and scripts/fuzz fails. abort() gives exactly that. The message
// goes to stderr first so the crash log says which property broke, not only where.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace trunk::fuzz {

[[noreturn]] inline void property_failed(const char* file, int line, const char* condition, const std::string& detail) {
  std::fprintf(stderr, "\n==FUZZ PROPERTY FAILED== %s:%d: %s\n%s\n", file, line, condition, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

/// The input as text, for property messages (fuzzer inputs are arbitrary bytes, so keep them bounded).
inline std::string excerpt(std::string_view text, std::size_t limit = 400) {
  std::string out;
  for (char c : text.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    }
  }
  if (text.size() > limit) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

/// Open findings (fuzz/regressions/README.md) are reported but not fixed yet. A long exploratory run may step
/// over them to look for others, with TRUNK_FUZZ_SKIP_KNOWN=1 in the environment; CI, scripts/fuzz's
/// regression replay and a plain run do not, so an open finding keeps failing until it is fixed.
inline bool skip_known_findings() {
  static const bool skip = std::getenv("TRUNK_FUZZ_SKIP_KNOWN") != nullptr;
  return skip;
}

/// Runs one input. While a finding is open, a narrowly scoped catch for it goes here, taken only when
/// skip_known_findings(), and is deleted with the fix (F1 was handled this way until 6391535).
template <typename Body>
void run_input(Body&& body) {
  body();
}

}  // namespace trunk::fuzz

/// Checks a property of the code under test; on failure prints `detail` (a std::string expression) and aborts.
#define FUZZ_REQUIRE(condition, detail)                                                   \
  do {                                                                                   \
    if (!(condition)) ::trunk::fuzz::property_failed(__FILE__, __LINE__, #condition, (detail)); \
  } while (false)
