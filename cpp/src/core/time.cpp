#include "trunk/time.hpp"

#include <cstdint>
#include <cstdio>

#include "text.hpp"
#include "trunk/error.hpp"

namespace trunk {

namespace {

using std::chrono::microseconds;

/// Earliest and latest instants a four-digit year can express; parse rejects anything outside so that
/// format(parse(x)) is always RFC 3339 again.
constexpr auto kMinTime = std::chrono::sys_days{std::chrono::year{0} / 1 / 1};
constexpr auto kEndTime = std::chrono::sys_days{std::chrono::year{10000} / 1 / 1};

/// Reads fixed-width decimal fields of an RFC 3339 text, recording the first problem found.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  /// Reads exactly `width` digits at `pos` as a number, or records that `what` is malformed.
  std::optional<int> digits(std::size_t pos, std::size_t width, const char* what) {
    // Built only on failure: parsing timestamps is on the hot path of decoding every test case.
    const auto expected = [&] {
      return "expected " + std::to_string(width) + "-digit " + what + " at offset " + std::to_string(pos);
    };
    if (pos + width > text_.size()) return fail(expected() + ", but the text ends");
    int value = 0;
    for (std::size_t i = pos; i < pos + width; ++i) {
      const char c = text_[i];
      if (c < '0' || c > '9') return fail(expected());
      value = value * 10 + (c - '0');
    }
    return value;
  }

  /// Checks that text[pos] is one of `allowed`, or records what was expected there.
  bool separator(std::size_t pos, std::string_view allowed, const char* what) {
    if (pos < text_.size()) {
      for (const char c : allowed) {  // one to three characters: a loop, not memchr
        if (text_[pos] == c) return true;
      }
    }
    fail(std::string("expected ") + what + " at offset " + std::to_string(pos));
    return false;
  }

  std::nullopt_t fail(std::string problem) {
    if (problem_.empty()) problem_ = std::move(problem);
    return std::nullopt;
  }

  const std::string& problem() const { return problem_; }

 private:
  std::string_view text_;
  std::string problem_;
};

std::string range_problem(const char* what, int value, const char* range) {
  return std::string(what) + " " + std::to_string(value) + " is out of range (" + range + ")";
}

/// The form nearly every time comes in, "YYYY-MM-DDTHH:MM:SS[.fraction]Z", read in one pass (a listing of
/// 100,000 tests holds several hundred thousand times); nullopt for any other text, which parse() then reads
/// by the general rules or explains. What it accepts, it reads as parse() would.
std::optional<Timestamp> parse_common_form(std::string_view text) noexcept {
  if (text.size() < 20 || text.size() > 30 || text.back() != 'Z' || text[4] != '-' || text[7] != '-' ||
      text[10] != 'T' || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  bool digits = true;
  const auto number = [&](std::size_t pos, std::size_t width) {
    unsigned value = 0;
    for (std::size_t i = pos; i < pos + width; ++i) {
      const unsigned digit = static_cast<unsigned char>(text[i]) - unsigned{'0'};
      digits = digits && digit <= 9;
      value = value * 10 + digit;
    }
    return value;
  };
  const unsigned year = number(0, 4), month = number(5, 2), day = number(8, 2);
  const unsigned hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  std::int64_t micros = 0;
  const std::size_t end = text.size() - 1;  // the 'Z'
  if (end > 19) {
    // A fraction of 1 to 9 digits (text.size() <= 30); digits past the sixth are truncated, as in parse().
    if (text[19] != '.' || end == 20) return std::nullopt;
    std::int64_t scale = 100000;
    for (std::size_t i = 20; i < end; ++i, scale /= 10) micros += scale * number(i, 1);
  }
  if (!digits || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{int(year)}, std::chrono::month{month},
                                         std::chrono::day{day}};
  if (!date.ok()) return std::nullopt;
  const Timestamp utc = std::chrono::sys_days{date} + std::chrono::hours{hour} + std::chrono::minutes{minute} +
                        std::chrono::seconds{second} + microseconds{micros};
  if (utc >= kEndTime) return std::nullopt;  // 9999-12-31T23:59:60Z: a leap second into the year 10000
  return utc;
}

/// Parses; on failure returns nullopt and puts the reason (without the text itself) into `problem`.
std::optional<Timestamp> parse(std::string_view text, std::string& problem) {
  if (auto common = parse_common_form(text)) return common;
  const auto fail = [&problem](std::string why) -> std::optional<Timestamp> {
    problem = std::move(why);
    return std::nullopt;
  };
  Scanner scan(text);
  const auto year = scan.digits(0, 4, "year");
  const bool date_separators = year && scan.separator(4, "-", "'-' after the year");
  const auto month = date_separators ? scan.digits(5, 2, "month") : std::nullopt;
  const auto day =
      month && scan.separator(7, "-", "'-' after the month") ? scan.digits(8, 2, "day") : std::nullopt;
  if (!day) return fail(scan.problem());
  if (*month < 1 || *month > 12) return fail(range_problem("month", *month, "01..12"));
  const std::chrono::year_month_day date{std::chrono::year{*year}, std::chrono::month{unsigned(*month)},
                                         std::chrono::day{unsigned(*day)}};
  if (!date.ok()) {
    const auto last =
        std::chrono::year_month_day_last{date.year(), std::chrono::month_day_last{date.month()}};
    const std::string range = "01.." + std::to_string(unsigned(last.day()));
    return fail(range_problem("day", *day, range.c_str()) + " for " + std::string(text.substr(0, 7)));
  }

  if (!scan.separator(10, "Tt ", "'T', 't' or ' ' between date and time")) return fail(scan.problem());
  const auto hour = scan.digits(11, 2, "hour");
  const auto minute =
      hour && scan.separator(13, ":", "':' after the hour") ? scan.digits(14, 2, "minute") : std::nullopt;
  const auto second =
      minute && scan.separator(16, ":", "':' after the minute") ? scan.digits(17, 2, "second") : std::nullopt;
  if (!second) return fail(scan.problem());
  if (*hour > 23) return fail(range_problem("hour", *hour, "00..23"));
  if (*minute > 59) return fail(range_problem("minute", *minute, "00..59"));
  // 60 is a leap second; it is normalized below to the first instant of the next minute.
  if (*second > 60) return fail(range_problem("second", *second, "00..60"));

  std::size_t pos = 19;
  std::int64_t micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    std::int64_t scale = 100000;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      // Digits beyond the sixth are truncated (microsecond precision), as Python's datetime does.
      micros += scale * (text[pos] - '0');
      scale /= 10;
      ++pos;
    }
    const std::size_t count = pos - start;
    if (count == 0) return fail("expected digits after '.' at offset " + std::to_string(start));
    if (count > 9) return fail("more than 9 fractional digits");
  }

  // Offset: none (read as UTC, a project decision), Z/z, or ±hh:mm.
  std::chrono::minutes offset{0};
  if (pos < text.size()) {
    const char sign = text[pos];
    if (sign == 'Z' || sign == 'z') {
      ++pos;
    } else if (sign == '+' || sign == '-') {
      const auto off_hour = scan.digits(pos + 1, 2, "offset hour");
      const auto off_minute = off_hour && scan.separator(pos + 3, ":", "':' in the offset")
                                  ? scan.digits(pos + 4, 2, "offset minute")
                                  : std::nullopt;
      if (!off_minute) return fail(scan.problem());
      if (*off_hour > 23) return fail(range_problem("offset hour", *off_hour, "00..23"));
      if (*off_minute > 59) {
        return fail(range_problem("offset minute", *off_minute, "00..59"));
      }
      offset = std::chrono::hours{*off_hour} + std::chrono::minutes{*off_minute};
      if (sign == '-') offset = -offset;
      pos += 6;
    } else {
      return fail("expected 'Z', '+hh:mm', '-hh:mm' or a fraction at offset " + std::to_string(pos));
    }
  }
  if (pos != text.size()) return fail("unexpected text after the time at offset " + std::to_string(pos));

  const Timestamp local = std::chrono::sys_days{date} + std::chrono::hours{*hour} +
                          std::chrono::minutes{*minute} + std::chrono::seconds{*second} +
                          microseconds{micros};
  const Timestamp utc = local - offset;
  if (utc < kMinTime || utc >= kEndTime) return fail("outside the years 0000..9999 once converted to UTC");
  return utc;
}

}  // namespace

std::optional<Timestamp> try_parse_rfc3339(std::string_view text, std::string* problem) noexcept {
  try {
    std::string reason;
    auto result = parse(text, reason);
    if (!result && problem != nullptr) {
      *problem = detail::quoted(text) + " is not an RFC 3339 date-time: " + reason;
    }
    return result;
  } catch (...) {  // only std::bad_alloc can get here; the noexcept contract wins over the message
    return std::nullopt;
  }
}

Timestamp parse_rfc3339(std::string_view text, std::string_view field) {
  std::string reason;
  auto result = parse(text, reason);
  if (!result) {
    throw ValidationError(
        {{std::string(field), detail::quoted(text), "must be an RFC 3339 date-time: " + reason}});
  }
  return *result;
}

std::string format_rfc3339(Timestamp t) {
  const auto day_point = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day date{day_point};
  const std::chrono::hh_mm_ss<microseconds> time{t - day_point};
  char buffer[64];
  int length = std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02lld", int(date.year()),
                             unsigned(date.month()), unsigned(date.day()), int(time.hours().count()),
                             int(time.minutes().count()), static_cast<long long>(time.seconds().count()));
  const auto fraction = time.subseconds().count();
  if (fraction != 0) {
    length += std::snprintf(buffer + length, sizeof buffer - std::size_t(length), ".%06lld",
                            static_cast<long long>(fraction));
  }
  return std::string(buffer, std::size_t(length)) + 'Z';
}

bool rfc3339_has_offset(std::string_view text) noexcept {
  if (text.empty()) return false;
  if (text.back() == 'Z' || text.back() == 'z') return true;
  // "+hh:mm" / "-hh:mm" ends the text; the shortest such text is YYYY-MM-DDTHH:MM:SS+hh:mm (25 characters), and
  // in text that parses no other '+' or '-' can stand 6 characters from the end.
  return text.size() >= 25 && (text[text.size() - 6] == '+' || text[text.size() - 6] == '-');
}

}  // namespace trunk
