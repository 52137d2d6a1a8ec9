// decode_body (core/decode_body.hpp): an answer read in place when the body has room for simdjson's padding, from a
// copy otherwise, with the same result; the validated document shown to the caller first, and only when there is one.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

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

/// The next_page_token the validated document holds, as a pager's hook reads it.
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
    int calls = 0;
    std::string seen;
    const TestPage page = detail::decode_body<TestPage>(body, [&](const simdjson::dom::element& root) {
      ++calls;
      seen = token_in(root);
    });
    EXPECT_EQ(page, expected);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(seen, expected.page.next_page_token.value_or("?"));
    EXPECT_EQ(body, text) << "decoding must leave the body as it was (it is wiped afterwards)";
  }
}

TEST(DecodeBody, NoHookIsFine) {
  std::string body = fixture_text("failing_tests_page.json");
  EXPECT_EQ(detail::decode_body<TestPage>(body, {}), decode<TestPage>(body));
}

TEST(DecodeBody, TheHookSeesNothingThatIsNotValidJson) {
  for (const char* text : {R"({"page":{},"tests":[)", R"({"a":"b":1})", "", R"({"page":{}} x)"}) {
    std::string body = text;
    int calls = 0;
    EXPECT_THROW(detail::decode_body<TestPage>(body, [&](const simdjson::dom::element&) { ++calls; }), DecodeError)
        << text;
    EXPECT_EQ(calls, 0) << text;
  }
}

TEST(DecodeBody, ANumberNoDoubleHoldsDecodesWithoutTheHook) {
  // simdjson's validating parser stops at such a number and a slower check accepts the text: there is no
  // validated document to show, and the answer still decodes (the number sits in an unknown key, kept as it is).
  std::string body = R"({"page":{"next_page_token":"p2"},"tests":[],"big":123456789012345678901234567890})";
  int calls = 0;
  const TestPage page = detail::decode_body<TestPage>(body, [&](const simdjson::dom::element&) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(page.page.next_page_token, "p2");
}

}  // namespace
