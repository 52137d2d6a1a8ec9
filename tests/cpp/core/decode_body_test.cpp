// parse_body and decode_body (core/decode_body.hpp): an answer parsed in place when the body has room for
// simdjson's padding, from a copy otherwise, with the same result; one document per parser.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/decode_body.hpp"
#include "fixtures.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace {

using namespace trunk;
using trunk::testing::fixture_text;

/// `text` in a string with exactly `spare` bytes of capacity after it, or as few as the library gives (< 64).
std::string with_spare_capacity(const std::string& text, std::optional<std::size_t> spare) {
  std::string body;
  if (spare) {
    body.reserve(text.size() + *spare);
    body = text;  // assignment keeps the larger capacity
  } else {
    body = std::string(text.data(), text.size());
  }
  return body;
}

/// The next_page_token the parsed document holds, as a page pipeline reads it.
std::string token_in(const simdjson::dom::element& root) {
  std::string_view token;
  EXPECT_EQ(root["page"]["next_page_token"].get_string().get(token), simdjson::SUCCESS);
  return std::string(token);
}

TEST(DecodeBody, InPlaceAndFromACopyTheSameAsDecode) {
  const std::string text = fixture_text("failing_tests_page.json");
  const TestPage expected = decode<TestPage>(text);
  for (std::optional<std::size_t> spare : {std::optional<std::size_t>{}, std::optional<std::size_t>{63},
                                           std::optional<std::size_t>{detail::kDecodePadding},
                                           std::optional<std::size_t>{4096}}) {
    std::string body = with_spare_capacity(text, spare);
    // Either side of the boundary, really: 63 spare bytes are read from a copy, 64 in place.
    if (spare) {
      ASSERT_EQ(body.capacity() - body.size(), *spare);
    } else {
      ASSERT_LT(body.capacity() - body.size(), detail::kDecodePadding);
    }
    EXPECT_EQ(detail::decode_body<TestPage>(body), expected);
    const auto parser = detail::make_body_parser();
    const simdjson::dom::element root = detail::parse_body(body, *parser);
    EXPECT_EQ(token_in(root), expected.page.next_page_token.value_or("?"));
    EXPECT_EQ(detail::decode_parsed<TestPage>(root), expected);
    EXPECT_EQ(body, text) << "parsing must leave the body as it was (it is wiped afterwards)";
  }
}

TEST(DecodeBody, ADocumentLivesInItsOwnParser) {
  // The page pipeline parses a page on the engine thread and has it read later: other parses, on that thread
  // or this one, must not touch it.
  std::string first = R"({"page":{"next_page_token":"p2"},"tests":[{"name":"one"}]})";
  std::string second = R"({"page":{"next_page_token":"p3"},"tests":[{"name":"two"},{"name":"three"}]})";
  const auto parser = detail::make_body_parser();
  const simdjson::dom::element root = detail::parse_body(first, *parser);
  const TestPage other = detail::decode_body<TestPage>(second);  // this thread's own parser
  const auto parser2 = detail::make_body_parser();
  static_cast<void>(detail::parse_body(second, *parser2));
  const TestPage page = detail::decode_parsed<TestPage>(root);
  EXPECT_EQ(page.page.next_page_token, "p2");
  ASSERT_EQ(page.tests.size(), 1u);
  EXPECT_EQ(page.tests[0].name, "one");
  EXPECT_EQ(other.tests.size(), 2u);
}

TEST(DecodeBody, WhatIsNotJsonDoesNotParse) {
  const auto parser = detail::make_body_parser();
  for (const char* text : {R"({"page":{},"tests":[)", R"({"a":"b":1})", "", R"({"page":{}} x)", R"({"a":1e400})"}) {
    std::string body = text;
    EXPECT_THROW(detail::parse_body(body, *parser), DecodeError) << text;
    EXPECT_THROW(detail::decode_body<TestPage>(body), DecodeError) << text;
  }
}

TEST(DecodeBody, ANumberNoDoubleHoldsIsParsedTheSlowWay) {
  // simdjson's parser stops at an integer of 30 digits; the slow path reads it as the nearest double (as
  // nlohmann and Python's float do), and the document is whole: the cursor is there to read.
  std::string body = R"({"page":{"next_page_token":"p2"},"tests":[],"big":123456789012345678901234567890})";
  const auto parser = detail::make_body_parser();
  const simdjson::dom::element root = detail::parse_body(body, *parser);
  EXPECT_EQ(token_in(root), "p2");
  const TestPage page = detail::decode_parsed<TestPage>(root);
  EXPECT_EQ(page.page.next_page_token, "p2");
  EXPECT_DOUBLE_EQ(page.extra["big"].get<double>(), 1.2345678901234568e29);
}

TEST(DecodeBody, ReadingIntoAModelReadBeforeGivesWhatAFreshReadGives) {
  // A listing read into Arrow columns decodes each page into the previous page's model (decode_parsed_into):
  // whatever the previous page held - more or fewer items, fields the next one lacks or gives as null, unknown
  // keys, a time kept as text, a duplicate key - the result must be the fresh read's.
  const std::vector<std::string> documents = {
      fixture_text("failing_tests_page.json"),
      R"({"page":{"next_page_token":"p2","total_rows":9},"tests":[{"id":"x","name":"a name longer than sixteen",
          "status":{"value":"FLAKY","timestamp":"2024-01-01T00:00:00Z","why":[1]},"codeowners":["@a","@b","@c"],
          "most_common_failures":[{"summary":"s","occurrence_count":2},{"summary":"t"}],"odd":1,
          "quarantined":true,"failure_rate_last_7d":0.5}]})",
      R"({"tests":[{"id":null,"name":"n","status":null,"codeowners":null,"ticket":{"html_url":"u"}},{"id":"y"}],
          "page":null})",
      R"({})",
      R"({"tests":[{"status":{"timestamp":"yesterday","value":"SOMETHING_NEW"}},{},{},{}]})",
      R"({"tests":[{"name":"first","name":"second","codeowners":["@z"]}],"tests":[{"id":"last wins"}]})",
      R"({"tests":[{"most_common_failures":[]}],"page":{"next_page_token":""}})",
  };
  const auto parser = detail::make_body_parser();
  for (const std::string& before : documents) {
    for (const std::string& text : documents) {
      TestPage reused = decode<TestPage>(before);
      detail::decode_parsed_into(detail::parse_text(text, *parser), reused);
      EXPECT_EQ(reused, decode<TestPage>(text)) << "read into the model of\n" << before << "\nthe page\n" << text;
    }
  }
}

}  // namespace
