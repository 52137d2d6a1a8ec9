// libFuzzer target: the RFC 3339 parser and formatter (every timestamp of every response and request).
//
// Input: the text to parse, as is.
//
// Properties:
//  - try_parse_rfc3339 and parse_rfc3339 agree: both accept with the same instant, or both reject, the
//    throwing one with trunk::ValidationError naming the field, the non-throwing one with a problem text;
//  - whatever parses formats to text that parses to the same instant, and formatting that again gives the
//    same text (format is canonical: UTC, 'Z', six fractional digits or none);
//  - the formatted text is always RFC 3339 of the shape YYYY-MM-DDTHH:MM:SS[.ffffff]Z.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "trunk/error.hpp"
#include "trunk/time.hpp"

namespace {

bool has_canonical_shape(const std::string& text) {
  const auto digit = [&](std::size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() != 20 && text.size() != 27) return false;
  constexpr std::string_view pattern = "dddd-dd-ddTdd:dd:dd";
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == 'd' ? !digit(i) : text[i] != pattern[i]) return false;
  }
  if (text.size() == 27) {
    if (text[19] != '.') return false;
    for (std::size_t i = 20; i < 26; ++i) {
      if (!digit(i)) return false;
    }
  }
  return text.back() == 'Z';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string shown = trunk::fuzz::excerpt(text);

  std::string problem;
  const std::optional<trunk::Timestamp> tried = trunk::try_parse_rfc3339(text, &problem);

  std::optional<trunk::Timestamp> parsed;
  try {
    parsed = trunk::parse_rfc3339(text, "fuzzed_field");
  } catch (const trunk::ValidationError& e) {
    FUZZ_REQUIRE(!e.violations().empty() && e.violations().front().field == "fuzzed_field",
                 "ValidationError does not name the field: " + std::string(e.what()));
  }

  FUZZ_REQUIRE(tried.has_value() == parsed.has_value(),
               "try_parse_rfc3339 and parse_rfc3339 disagree on " + shown + " (problem: " + problem + ")");
  if (!tried) {
    FUZZ_REQUIRE(!problem.empty(), "rejected without a problem text: " + shown);
    return 0;
  }
  FUZZ_REQUIRE(*tried == *parsed, "try_parse_rfc3339 and parse_rfc3339 give different instants for " + shown);

  const std::string formatted = trunk::format_rfc3339(*tried);
  FUZZ_REQUIRE(has_canonical_shape(formatted), "format gave a non-canonical text " + formatted + " for " + shown);
  std::string reparse_problem;
  const auto reparsed = trunk::try_parse_rfc3339(formatted, &reparse_problem);
  FUZZ_REQUIRE(reparsed.has_value(), "formatted text " + formatted + " does not parse: " + reparse_problem +
                                         " (input " + shown + ")");
  FUZZ_REQUIRE(*reparsed == *tried, "format/parse changes the instant: " + shown + " -> " + formatted + " -> " +
                                        trunk::format_rfc3339(*reparsed));
  FUZZ_REQUIRE(trunk::format_rfc3339(*reparsed) == formatted, "format is not canonical for " + shown);
  return 0;
}
