#include "trunk/time.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "trunk/error.hpp"

namespace {

using namespace std::chrono;
using trunk::format_rfc3339;
using trunk::parse_rfc3339;
using trunk::Timestamp;
using trunk::try_parse_rfc3339;

Timestamp utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0, long long us = 0) {
  return sys_days{year{y} / month{mo} / day{d}} + hours{h} + minutes{mi} + seconds{s} + microseconds{us};
}

/// The reason try_parse gives, or "" when the text parsed.
std::string problem_of(const std::string& text) {
  std::string problem;
  if (try_parse_rfc3339(text, &problem)) return "";
  return problem;
}

TEST(Rfc3339Parse, AcceptsEverySeparatorAndZoneDesignator) {
  const Timestamp expected = utc(2024, 5, 1, 12, 34, 56);
  for (const char* text : {"2024-05-01T12:34:56Z", "2024-05-01t12:34:56z", "2024-05-01 12:34:56Z",
                           "2024-05-01T12:34:56+00:00", "2024-05-01T12:34:56-00:00", "2024-05-01T12:34:56"}) {
    EXPECT_EQ(parse_rfc3339(text), expected) << text;
  }
}

TEST(Rfc3339Parse, AppliesOffsetsToReachUtc) {
  EXPECT_EQ(parse_rfc3339("2024-05-01T12:00:00+02:00"), utc(2024, 5, 1, 10));
  EXPECT_EQ(parse_rfc3339("2024-05-01T12:00:00-05:30"), utc(2024, 5, 1, 17, 30));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:30:00+01:00"), utc(2024, 4, 30, 23, 30));  // previous day
  EXPECT_EQ(parse_rfc3339("2024-12-31T23:00:00-23:59"), utc(2025, 1, 1, 22, 59));   // largest offset
  EXPECT_EQ(parse_rfc3339("2024-05-01T12:00:00+23:59"), utc(2024, 4, 30, 12, 1));
}

TEST(Rfc3339Parse, ReadsZeroToNineFractionDigitsTruncatingBelowAMicrosecond) {
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00Z"), utc(2024, 5, 1));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.1Z"), utc(2024, 5, 1, 0, 0, 0, 100000));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.12Z"), utc(2024, 5, 1, 0, 0, 0, 120000));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.123Z"), utc(2024, 5, 1, 0, 0, 0, 123000));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.1234Z"), utc(2024, 5, 1, 0, 0, 0, 123400));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.12345Z"), utc(2024, 5, 1, 0, 0, 0, 123450));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.123456Z"), utc(2024, 5, 1, 0, 0, 0, 123456));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.1234567Z"), utc(2024, 5, 1, 0, 0, 0, 123456));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.12345678Z"), utc(2024, 5, 1, 0, 0, 0, 123456));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.999999999Z"), utc(2024, 5, 1, 0, 0, 0, 999999));
  EXPECT_EQ(parse_rfc3339("2024-05-01T00:00:00.000001+01:00"), utc(2024, 4, 30, 23, 0, 0, 1));
}

TEST(Rfc3339Parse, NormalizesALeapSecondToTheNextMinute) {
  EXPECT_EQ(parse_rfc3339("2016-12-31T23:59:60Z"), utc(2017, 1, 1));
  EXPECT_EQ(parse_rfc3339("2016-12-31T23:59:60.5Z"), utc(2017, 1, 1, 0, 0, 0, 500000));
  EXPECT_EQ(parse_rfc3339("2016-12-31T18:59:60-05:00"), utc(2017, 1, 1));
  EXPECT_EQ(parse_rfc3339("2015-06-30T23:59:60Z"), parse_rfc3339("2015-07-01T00:00:00Z"));
}

TEST(Rfc3339Parse, KnowsTheLengthOfEveryMonthAndLeapYears) {
  EXPECT_EQ(parse_rfc3339("2024-02-29T00:00:00Z"), utc(2024, 2, 29));  // divisible by 4
  EXPECT_EQ(parse_rfc3339("2000-02-29T00:00:00Z"), utc(2000, 2, 29));  // divisible by 400
  EXPECT_NE(problem_of("2023-02-29T00:00:00Z"), "");
  EXPECT_NE(problem_of("1900-02-29T00:00:00Z"), "");  // divisible by 100, not 400
  const unsigned last_day[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (unsigned m = 1; m <= 12; ++m) {
    char good[32];
    char bad[32];
    std::snprintf(good, sizeof good, "2023-%02u-%02uT00:00:00Z", m, last_day[m - 1]);
    std::snprintf(bad, sizeof bad, "2023-%02u-%02uT00:00:00Z", m, last_day[m - 1] + 1);
    EXPECT_EQ(parse_rfc3339(good), utc(2023, m, last_day[m - 1])) << good;
    EXPECT_NE(problem_of(bad), "") << bad;
  }
}

TEST(Rfc3339Parse, AcceptsTheFieldBoundaries) {
  EXPECT_EQ(parse_rfc3339("0000-01-01T00:00:00Z"), utc(0, 1, 1));
  EXPECT_EQ(parse_rfc3339("9999-12-31T23:59:59.999999Z"), utc(9999, 12, 31, 23, 59, 59, 999999));
  EXPECT_EQ(parse_rfc3339("2024-01-01T23:59:59Z"), utc(2024, 1, 1, 23, 59, 59));
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z").time_since_epoch().count(), 0);
  EXPECT_EQ(parse_rfc3339("1969-12-31T23:59:59.999999Z").time_since_epoch().count(), -1);
}

// The common form ("...Z") has a reader of its own; written with "+00:00" instead, the same instant goes through
// the general one. Both must agree on every text, read or refused: month and day boundaries, leap years and
// seconds, fractions of every length, the end of the year 9999, and a stray character in each place.
TEST(Rfc3339Parse, TheCommonFormReadsAsTheGeneralRulesDo) {
  int compared = 0;
  const auto agree = [&](const std::string& zulu) {
    const std::string offset = zulu.substr(0, zulu.size() - 1) + "+00:00";
    EXPECT_EQ(try_parse_rfc3339(zulu), try_parse_rfc3339(offset)) << zulu;
    ++compared;
  };
  for (const char* year : {"0000", "1900", "1970", "2000", "2023", "2024", "9999"}) {
    for (int month = 0; month <= 13; ++month) {
      for (int day : {0, 1, 28, 29, 30, 31, 32}) {
        for (const char* time : {"00:00:00", "23:59:59", "23:59:60", "24:00:00", "12:60:00", "12:00:61",
                                 "12:34:56.7", "12:34:56.123456", "12:34:56.123456789", "12:34:56.1234567890"}) {
          char text[48];
          std::snprintf(text, sizeof text, "%s-%02d-%02dT%sZ", year, month, day, time);
          agree(text);
        }
      }
    }
  }
  const std::string good = "2024-05-01T12:34:56.123456Z";
  for (std::size_t at = 0; at + 1 < good.size(); ++at) {
    for (const char stray : {'x', '/', '0', '9', ' ', ':', '-', '.'}) {
      std::string text = good;
      text[at] = stray;
      agree(text);
    }
  }
  EXPECT_GT(compared, 7000);
}

struct Rejection {
  const char* text;
  const char* reason;  // a fragment the explanation must contain
};

TEST(Rfc3339Parse, RejectsMalformedTextNamingTheTextAndTheProblem) {
  const Rejection cases[] = {
      {"", "expected 4-digit year at offset 0, but the text ends"},
      {"2024", "'-' after the year"},
      {"24-05-01T00:00:00Z", "4-digit year"},
      {"2024/05/01T00:00:00Z", "'-' after the year"},
      {"2024-5-01T00:00:00Z", "2-digit month"},
      {"2024-00-01T00:00:00Z", "month 0 is out of range (01..12)"},
      {"2024-13-01T00:00:00Z", "month 13 is out of range (01..12)"},
      {"2024-05-00T00:00:00Z", "day 0 is out of range (01..31)"},
      {"2024-04-31T00:00:00Z", "day 31 is out of range (01..30) for 2024-04"},
      {"2024-05-01", "'T', 't' or ' ' between date and time"},
      {"2024-05-01X00:00:00Z", "'T', 't' or ' ' between date and time"},
      {"2024-05-01T24:00:00Z", "hour 24 is out of range (00..23)"},
      {"2024-05-01T23:60:00Z", "minute 60 is out of range (00..59)"},
      {"2024-05-01T23:59:61Z", "second 61 is out of range (00..60)"},
      {"2024-05-01T1:00:00Z", "2-digit hour"},
      {"2024-05-01T10:00Z", "':' after the minute"},
      {"2024-05-01T10-00-00Z", "':' after the hour"},
      {"2024-05-01T10:00:00.Z", "expected digits after '.'"},
      {"2024-05-01T10:00:00.1234567890Z", "more than 9 fractional digits"},
      {"2024-05-01T10:00:00+0100", "':' in the offset"},
      {"2024-05-01T10:00:00+1:00", "2-digit offset hour"},
      {"2024-05-01T10:00:00+24:00", "offset hour 24 is out of range (00..23)"},
      {"2024-05-01T10:00:00+01:60", "offset minute 60 is out of range (00..59)"},
      {"2024-05-01T10:00:00+01", "':' in the offset"},
      {"2024-05-01T10:00:00+01:0", "2-digit offset minute"},
      {"2024-05-01T10:00:00UTC", "expected 'Z', '+hh:mm', '-hh:mm' or a fraction"},
      {"2024-05-01T10:00:00Z ", "unexpected text after the time"},
      {" 2024-05-01T10:00:00Z", "4-digit year"},
      {"2024-05-01T10:00:00ZZ", "unexpected text after the time"},
      {"9999-12-31T23:59:60Z", "outside the years 0000..9999"},
      {"0000-01-01T00:00:00+00:01", "outside the years 0000..9999"},
      {"9999-12-31T23:30:00-01:00", "outside the years 0000..9999"},
  };
  for (const auto& c : cases) {
    const std::string problem = problem_of(c.text);
    EXPECT_NE(problem.find(std::string("\"") + c.text + "\" is not an RFC 3339 date-time"), std::string::npos)
        << problem;
    EXPECT_NE(problem.find(c.reason), std::string::npos) << c.text << " -> " << problem;
  }
}

TEST(Rfc3339Parse, ThrowsValidationErrorNamingTheFieldAndText) {
  try {
    parse_rfc3339("2024-13-01T00:00:00Z", "start_time");
    FAIL() << "expected ValidationError";
  } catch (const trunk::ValidationError& error) {
    ASSERT_EQ(error.violations().size(), 1U);
    EXPECT_EQ(error.violations()[0].field, "start_time");
    EXPECT_EQ(error.violations()[0].value, "\"2024-13-01T00:00:00Z\"");
    EXPECT_NE(error.violations()[0].rule.find("month 13"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("start_time: \"2024-13-01T00:00:00Z\": must be an RFC 3339"),
              std::string::npos)
        << error.what();
  }
}

TEST(Rfc3339Parse, EscapesBytesThatAreNotTextInTheMessage) {
  const std::string problem = problem_of(std::string("2024-05-01T00:00:00\xff\n", 21));
  EXPECT_NE(problem.find("\\xFF\\x0A"), std::string::npos) << problem;
}

TEST(Rfc3339Parse, TryParseWithoutProblemPointerJustReturnsNullopt) {
  EXPECT_FALSE(try_parse_rfc3339("nope").has_value());
  EXPECT_EQ(try_parse_rfc3339("2024-05-01T00:00:00Z"), utc(2024, 5, 1));
}

TEST(Rfc3339Format, GivesUtcWithAFractionOnlyWhenNonZero) {
  EXPECT_EQ(format_rfc3339(utc(2024, 5, 1, 12, 34, 56)), "2024-05-01T12:34:56Z");
  EXPECT_EQ(format_rfc3339(utc(2024, 5, 1, 12, 34, 56, 1)), "2024-05-01T12:34:56.000001Z");
  EXPECT_EQ(format_rfc3339(utc(2024, 5, 1, 12, 34, 56, 500000)), "2024-05-01T12:34:56.500000Z");
  EXPECT_EQ(format_rfc3339(utc(0, 1, 1)), "0000-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(utc(9999, 12, 31, 23, 59, 59, 999999)), "9999-12-31T23:59:59.999999Z");
  EXPECT_EQ(format_rfc3339(Timestamp{}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(Timestamp{microseconds{-1}}), "1969-12-31T23:59:59.999999Z");
}

TEST(Rfc3339Format, RoundTripsThroughParse) {
  for (const char* text :
       {"2024-05-01T12:34:56Z", "2024-02-29T00:00:00.000001Z", "1999-12-31T23:59:59.999999Z",
        "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1969-07-20T20:17:40.100000Z"}) {
    EXPECT_EQ(format_rfc3339(parse_rfc3339(text)), text);
  }
  // Every accepted spelling comes back in the one canonical form.
  EXPECT_EQ(format_rfc3339(parse_rfc3339("2024-05-01 14:34:56.5+02:00")), "2024-05-01T12:34:56.500000Z");
  // And every instant survives format then parse.
  for (long long us : {0LL, 1LL, -1LL, 1714566896123456LL, -62167219200000000LL, 253402300799999999LL}) {
    const Timestamp t{microseconds{us}};
    EXPECT_EQ(parse_rfc3339(format_rfc3339(t)), t) << us;
  }
}

}  // namespace

namespace {

TEST(Rfc3339HasOffset, TellsTextWithAZoneFromWallClockText) {
  // The forms parse_rfc3339 accepts, with their offset...
  for (const char* text : {"2026-11-20T12:00:00Z", "2026-11-20t12:00:00z", "2026-11-20 12:00:00+00:00",
                           "2026-11-20T12:00:00-08:00", "2026-11-20T12:00:00.123456789+05:30",
                           "2026-11-20T12:00:00.1Z"}) {
    ASSERT_TRUE(trunk::try_parse_rfc3339(text)) << text;
    EXPECT_TRUE(trunk::rfc3339_has_offset(text)) << text;
  }
  // ...and without: read as UTC by the decoder, refused from people by the Python binding.
  for (const char* text : {"2026-11-20T12:00:00", "2026-11-20 12:00:00", "2026-11-20T12:00:00.123456",
                           "2026-11-20T12:00:00.123456789"}) {
    ASSERT_TRUE(trunk::try_parse_rfc3339(text)) << text;
    EXPECT_FALSE(trunk::rfc3339_has_offset(text)) << text;
  }
  EXPECT_FALSE(trunk::rfc3339_has_offset(""));
}

}  // namespace
