// The direct reader (fast_response_reader.hpp) against the DOM path it short-cuts: for every body, either it
// declines (and decode<T> answers exactly as the DOM path does, errors included) or it returns the model the
// DOM path returns. Bodies: the fixtures, hand-picked edge cases of the grammar and the tolerant rules, and
// thousands of deterministic mutations of a realistic page.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fast_response_reader.hpp"
#include "fixtures.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace {

using namespace trunk;

template <typename T>
std::optional<T> fast(std::string_view body) {
  if constexpr (std::is_same_v<T, TestPage>) return detail::fast_read_test_page(body);
  else return detail::fast_read_test_details(body);
}

/// The DOM path alone (what decode<T> did before the direct reader): the model, or the error's what().
template <typename T>
std::pair<std::optional<T>, std::string> dom(std::string_view body) {
  try {
    return {from_json<T>(Json::parse(body.begin(), body.end())), ""};
  } catch (const std::exception& error) {
    return {std::nullopt, error.what()};
  }
}

/// The reader either declines or agrees with the DOM path; returns whether it took the body.
template <typename T>
bool agrees(const std::string& body) {
  const std::optional<T> direct = fast<T>(body);
  if (!direct) return false;
  const auto [reference, error] = dom<T>(body);
  EXPECT_TRUE(reference.has_value()) << "direct reader accepted what the DOM path rejects (" << error << "): " << body;
  if (reference) {
    EXPECT_EQ(*direct, *reference) << body;
    // operator== on doubles cannot tell -0.0 from 0.0; the JSON text can.
    EXPECT_EQ(to_json(*direct).dump(), to_json(*reference).dump()) << body;
  }
  return true;
}

std::string page_with(const std::string& test_json) {
  return R"({"page":{"total_rows":1,"total_pages":1,"page_index":0,"next_page_token":"","prev_page_token":"",)"
         R"("last_page_token":""},"tests":[)" + test_json + "]}";
}

TEST(FastResponseReader, TakesEveryFixtureAndAgreesWithTheDom) {
  EXPECT_TRUE(agrees<TestPage>(trunk::testing::fixture_text("failing_tests_page.json")));
  EXPECT_TRUE(agrees<TestPage>(trunk::testing::fixture_text("unhealthy_tests_page.json")));
  EXPECT_TRUE(agrees<TestDetails>(trunk::testing::fixture_text("test_details_with_unknowns.json")));
  EXPECT_TRUE(agrees<TestDetails>(R"({"test":)" + trunk::testing::fixture_text("test_case_full.json") + "}"));
}

TEST(FastResponseReader, TakesTheTolerantCasesAndReadsThemLikeTheDom) {
  const std::vector<std::string> tests = {
      R"({})",
      R"({"id":null,"name":null,"repository":null,"status":null,"ticket":null,"most_common_failures":null,)"
      R"("codeowners":null,"quarantined":null,"failure_rate_last_7d":null,"pull_requests_impacted_last_7d":null})",
      R"({"codeowners":[],"most_common_failures":[],"status":{},"repository":{},"ticket":{}})",
      R"({"status":{"value":"QUARANTINED_SOMEHOW","reason":"","timestamp":"2024-05-01T12:00:00+02:00"}})",
      R"({"failure_rate_last_7d":1,"failure_rate_last_24h":-0})",
      R"({"failure_rate_last_7d":-0.0,"failure_rate_last_24h":1.5e-3})",
      R"({"failure_rate_last_7d":0.1E+1,"failure_rate_last_24h":123456789012345678})",
      R"({"failure_rate_last_7d":9007199254740993,"pull_requests_impacted_last_7d":-9223372036854775808})",
      R"({"name":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t \u0000 end","variant":"déjà vu 🙂"})",
      R"({"n\u0061me":"escaped key reads as name"})",
      R"({"brand_new":{"nested":[1,2.5,{"deep":null}],"flag":true},"also_new":null,"num":-12e3})",
      R"({"repository":{"html_url":"u","extra_field":[]},"ticket":{"html_url":null,"id":7}})",
      R"({"most_common_failures":[{"summary":"s","occurrence_count":3,"last_occurrence":"2024-05-01T00:00:00.123456Z","x":"y"}]})",
      " \n\t{ \"id\" : \"a\" , \"codeowners\" : [ \"@a\" , \"@b\" ] , \"quarantined\" : false } \r\n",
  };
  for (const auto& test : tests) {
    EXPECT_TRUE(agrees<TestPage>(page_with(test))) << test;
    EXPECT_TRUE(agrees<TestDetails>(R"({"test":)" + test + R"(,"meta":{"request_id":"r"}})")) << test;
  }
  EXPECT_TRUE(agrees<TestPage>(R"({"tests":[],"page":{},"cursor":"extra at the top"})"));
  EXPECT_TRUE(agrees<TestPage>(R"({"tests":null,"page":null})"));
  EXPECT_TRUE(agrees<TestPage>(R"({})"));
  EXPECT_TRUE(agrees<TestDetails>(R"({"test":null})"));
}

TEST(FastResponseReader, DeclinesWhatOnlyTheDomPathMayJudge) {
  const std::vector<std::string> tests = {
      R"({"id":5})",                                           // wrong type: DecodeError with the path
      R"({"pull_requests_impacted_last_7d":5.0})",            // integral float: DOM accepts it
      R"({"pull_requests_impacted_last_7d":9223372036854775808})",  // beyond int64
      R"({"failure_rate_last_7d":1e400})",                    // beyond double
      R"({"status":{"timestamp":"yesterday"}})",              // bad timestamp: DecodeError naming it
      R"({"id":"a","id":"b"})",                               // duplicate: the DOM keeps the last
      R"({"x":1,"x":2})",                                     // duplicate unknown key
      R"({"name":"\ud83d"})",                                 // lone high surrogate
      R"({"name":"\ude00"})",                                 // lone low surrogate
      "{\"name\":\"\xff\"}",                                  // invalid UTF-8
      "{\"name\":\"\xed\xa0\x80\"}",                          // UTF-8 encoded surrogate
      "{\"name\":\"a\tb\"}",                                  // raw control character
      R"({"codeowners":[null]})",                             // null inside an array
      R"({"most_common_failures":[null]})",
      R"({"quarantined":"yes"})",
      R"({"failure_rate_last_7d":01})",                       // leading zero
      R"({"failure_rate_last_7d":.5})",
      R"({"failure_rate_last_7d":1.})",
      R"({"unknown":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})",  // deeper than 32
  };
  for (const auto& test : tests) {
    EXPECT_FALSE(agrees<TestPage>(page_with(test))) << test;
  }
  for (const std::string body : {"", "null", "[]", "{", R"({"tests":[]} x)", R"({"tests":{}})", "\xef\xbb\xbf{}",
                                 R"({"tests":[],})", R"({"tests" [])"}) {
    EXPECT_FALSE(agrees<TestPage>(body)) << body;
  }
}

TEST(FastResponseReader, DecodeGivesTheDomPathsErrorsForDeclinedBodies) {
  for (const std::string test : {R"({"id":5})", R"({"status":{"timestamp":"yesterday"}})", R"({"quarantined":"yes"})",
                                 R"({"most_common_failures":[{"occurrence_count":1.5}]})"}) {
    const std::string body = page_with(test);
    const auto [reference, error] = dom<TestPage>(body);
    ASSERT_FALSE(reference.has_value()) << body;
    try {
      decode<TestPage>(body);
      ADD_FAILURE() << "decoded " << body;
    } catch (const DecodeError& thrown) {
      EXPECT_EQ(std::string(thrown.what()), error);
    }
  }
  // Accepted by the DOM path only: decode still reads it.
  const auto page = decode<TestPage>(page_with(R"({"pull_requests_impacted_last_7d":5.0,"id":"a","id":"b"})"));
  ASSERT_EQ(page.tests.size(), 1u);
  EXPECT_EQ(page.tests[0].pull_requests_impacted_last_7d, 5);
}

/// A small deterministic generator, so failures reproduce.
struct Dice {
  std::uint64_t state;
  std::uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

TEST(FastResponseReader, MutatedPagesAreDeclinedOrReadExactlyLikeTheDom) {
  const std::string original = trunk::testing::fixture_json("failing_tests_page.json").dump();
  const std::string alphabet = "\"{}[],:0123456789.-eE+ \\untrfalse\xc3\xa9\xff";
  Dice dice{0x9E3779B97F4A7C15ULL};
  std::size_t taken = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string body = original;
    const std::size_t edits = 1 + dice.below(3);
    for (std::size_t e = 0; e < edits; ++e) {
      const std::size_t pos = dice.below(body.size());
      switch (dice.below(3)) {
        case 0: body[pos] = alphabet[dice.below(alphabet.size())]; break;
        case 1: body.erase(pos, 1 + dice.below(4)); break;
        default: body.insert(pos, 1, alphabet[dice.below(alphabet.size())]); break;
      }
    }
    if (agrees<TestPage>(body)) ++taken;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(taken, 100u);  // many mutations only change string contents: those must take the fast road
}

}  // namespace
