#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace {

using namespace trunk;
using trunk::testing::fixture_json;
using trunk::testing::fixture_text;

/// Runs fn and returns the DecodeError it throws (fails the test if it throws nothing).
template <typename Fn>
DecodeError decode_error(Fn fn) {
  try {
    fn();
  } catch (const DecodeError& error) {
    return error;
  }
  ADD_FAILURE() << "expected DecodeError";
  return DecodeError("", "");
}

// ---- round trips against the hand-written fixtures ----------------------------------------------------
template <typename T>
void expect_round_trip(const std::string& fixture) {
  const T model = decode<T>(fixture_text(fixture));
  EXPECT_EQ(to_json(model), fixture_json(fixture)) << fixture;
  // Encoding and decoding again gives an equal model, so the JSON form loses nothing.
  EXPECT_EQ(decode<T>(encode(model)), model) << fixture;
}

TEST(ResponseRoundTrip, EveryFixture) {
  expect_round_trip<TestCase>("test_case_full.json");
  expect_round_trip<TestPage>("failing_tests_page.json");
  expect_round_trip<TestPage>("unhealthy_tests_page.json");
  expect_round_trip<TestDetails>("test_details_with_unknowns.json");
  expect_round_trip<QueueSettings>("queue_settings.json");
  expect_round_trip<QueueSettings>("queue_settings_with_unknowns.json");
}

TEST(ResponseDecode, FullTestCaseFillsEveryField) {
  const auto test = decode<TestCase>(fixture_text("test_case_full.json"));
  EXPECT_EQ(test.id, "3f2c9a1e-7b4d-4c8e-9f01-23456789abcd");
  ASSERT_TRUE(test.repository);
  EXPECT_EQ(test.repository->html_url, "https://github.com/acme/widgets");
  EXPECT_EQ(test.html_url, "https://app.trunk.io/acme/flaky-tests/test/3f2c9a1e-7b4d-4c8e-9f01-23456789abcd");
  EXPECT_EQ(test.name, "test_checkout_retries_on_timeout");
  EXPECT_EQ(test.variant, "linux-x86_64");
  ASSERT_TRUE(test.status);
  EXPECT_EQ(test.status->reason, " failed 3 of the last 20 runs on main");  // leading space kept
  EXPECT_EQ(test.status->timestamp, parse_rfc3339("2024-05-01T12:00:00Z"));
  ASSERT_TRUE(test.status->value);
  EXPECT_TRUE(*test.status->value == TestHealth::flaky);  // an enumeration, like the queue's (issue 14)
  EXPECT_EQ(test.status->value->wire(), "flaky");
  ASSERT_TRUE(test.most_common_failures);
  ASSERT_EQ(test.most_common_failures->size(), 2U);
  const auto& first = (*test.most_common_failures)[0];
  EXPECT_EQ(first.summary, "AssertionError: expected 200, got 503");
  EXPECT_EQ(first.occurrence_count, 7);
  EXPECT_EQ(first.last_occurrence, parse_rfc3339("2024-05-02T08:30:15.25Z"));
  EXPECT_EQ(test.failure_rate_last_7d, 0.125);
  EXPECT_EQ(test.failure_rate_last_24h, 0.5);
  EXPECT_EQ(test.codeowners, (std::vector<std::string>{"@acme/payments", "@alice"}));
  EXPECT_EQ(test.pull_requests_impacted_last_7d, 4);
  EXPECT_EQ(test.quarantined, true);
  EXPECT_EQ(test.file_path, "tests/checkout/test_retries.py");
  EXPECT_EQ(test.parent, "tests.checkout.test_retries");
  EXPECT_EQ(test.classname, "TestCheckoutRetries");
  ASSERT_TRUE(test.ticket);
  EXPECT_EQ(test.ticket->html_url, "https://linear.app/acme/issue/PAY-123");
  EXPECT_TRUE(test.extra.is_null());  // nothing unknown: no allocation for extras
}

TEST(ResponseDecode, UnhealthyFormHasNoFailureFields) {
  const auto page = decode<TestPage>(fixture_text("unhealthy_tests_page.json"));
  ASSERT_EQ(page.tests.size(), 1U);
  const auto& test = page.tests[0];
  EXPECT_FALSE(test.most_common_failures.has_value());
  EXPECT_FALSE(test.failure_rate_last_7d.has_value());
  EXPECT_FALSE(test.failure_rate_last_24h.has_value());
  EXPECT_FALSE(to_json(test).contains("most_common_failures"));
  EXPECT_FALSE(to_json(test).contains("failure_rate_last_7d"));
  EXPECT_EQ(page.page.next_page_token, "");  // last page: empty, not absent
  EXPECT_EQ(page.page.page_index, 0);
}

TEST(ResponseDecode, PageInformationAndEmptyCollections) {
  const auto page = decode<TestPage>(fixture_text("failing_tests_page.json"));
  EXPECT_EQ(page.page.total_rows, 3);
  EXPECT_EQ(page.page.total_pages, 2);
  EXPECT_EQ(page.page.next_page_token, "cGFnZToy");
  EXPECT_EQ(page.page.prev_page_token, "");
  EXPECT_EQ(page.page.last_page_token, "cGFnZToy");
  ASSERT_EQ(page.tests.size(), 2U);
  EXPECT_EQ(page.tests[0].most_common_failures, std::vector<FailureSummary>{});  // [] is not absent
  EXPECT_EQ(page.tests[0].codeowners, std::vector<std::string>{});
  EXPECT_EQ(page.tests[0].failure_rate_last_7d, 1.0);
  EXPECT_EQ(page.tests[1].name, "test_minimal");
  EXPECT_FALSE(page.tests[1].status.has_value());
}

TEST(ResponseDecode, QueueSettingsEveryField) {
  const auto settings = decode<QueueSettings>(fixture_text("queue_settings.json"));
  EXPECT_TRUE(settings.state == QueueState::running);
  EXPECT_EQ(settings.branch, "main");
  EXPECT_EQ(settings.concurrency, 5);
  EXPECT_EQ(settings.testing_timeout_minutes, 60);
  EXPECT_TRUE(settings.mode == QueueMode::parallel);
  EXPECT_EQ(settings.can_optimistically_merge, true);
  EXPECT_EQ(settings.pending_failure_depth, 2);
  EXPECT_EQ(settings.batch, true);
  EXPECT_EQ(settings.batching_max_wait_time_minutes, 10);
  EXPECT_EQ(settings.batching_min_size, 3);
  EXPECT_EQ(settings.create_prs_for_testing_branches, false);
  EXPECT_EQ(settings.comments_enabled, true);
  EXPECT_EQ(settings.commands_enabled, true);
  EXPECT_EQ(settings.status_check_enabled, false);
  EXPECT_EQ(settings.bisection_concurrency, 4294967295);
  EXPECT_EQ(settings.required_statuses, (std::vector<std::string>{"ci/build", "ci/test"}));
  EXPECT_TRUE(settings.direct_merge_mode == DirectMergeMode::always);
  EXPECT_TRUE(settings.optimization_mode == OptimizationMode::bisection_skip_redundant_tests);
  EXPECT_TRUE(settings.merge_method == MergeMethod::squash);
  EXPECT_TRUE(settings.extra.is_null());
}

// ---- tolerance ------------------------------------------------------------------------------------------
TEST(ResponseDecode, KeepsUnknownKeysAtEveryLevel) {
  const auto details = decode<TestDetails>(fixture_text("test_details_with_unknowns.json"));
  EXPECT_EQ(details.extra, Json({{"request_id", "req-7f3a"}}));
  EXPECT_EQ(details.test.extra, Json({{"owners_team", "payments"}, {"flakiness_score", 0.25}}));
  EXPECT_EQ(details.test.repository->extra, Json({{"default_branch", "main"}}));
  EXPECT_EQ(details.test.status->extra, Json({{"since", 14}}));
  EXPECT_EQ((*details.test.most_common_failures)[0].extra,
            Json({{"first_occurrence", "2024-04-01T00:00:00Z"}}));
  EXPECT_EQ(details.test.ticket->extra, Json({{"state", "open"}}));
}

TEST(ResponseDecode, KeepsUnknownEnumValuesRaw) {
  const auto settings = decode<QueueSettings>(fixture_text("queue_settings_with_unknowns.json"));
  ASSERT_TRUE(settings.state);
  EXPECT_FALSE(settings.state->is_known());
  EXPECT_EQ(settings.state->wire(), "hibernating");
  EXPECT_FALSE(settings.merge_method->is_known());
  EXPECT_EQ(settings.merge_method->wire(), "octopus");
  EXPECT_TRUE(settings.mode == QueueMode::single);  // the known ones still read normally
  EXPECT_EQ(settings.required_statuses, std::vector<std::string>{});
  EXPECT_EQ(settings.extra["queueId"], "q-123");
  EXPECT_EQ(settings.extra["labels"], Json::parse(R"([1, "two", null, {"three": 3}])"));
}

TEST(ResponseDecode, NullAndMissingReadAsAbsent) {
  const auto test = decode<TestCase>(R"({"id": null, "name": "n", "status": null, "codeowners": null,
                                         "failure_rate_last_7d": null, "quarantined": null, "ticket": null})");
  EXPECT_FALSE(test.id.has_value());
  EXPECT_EQ(test.name, "n");
  EXPECT_FALSE(test.status.has_value());
  EXPECT_FALSE(test.codeowners.has_value());
  EXPECT_FALSE(test.failure_rate_last_7d.has_value());
  EXPECT_FALSE(test.quarantined.has_value());
  EXPECT_FALSE(test.ticket.has_value());
  EXPECT_TRUE(test.extra.is_null());  // a known key with null is not an unknown key
  EXPECT_EQ(to_json(test), Json({{"name", "n"}}));

  const auto empty = decode<TestCase>("{}");
  EXPECT_EQ(empty, TestCase{});
  EXPECT_EQ(to_json(empty), Json::object());
}

TEST(ResponseDecode, MissingEnvelopeFieldsReadAsEmpty) {
  const auto page = decode<TestPage>("{}");
  EXPECT_TRUE(page.tests.empty());
  EXPECT_EQ(page.page, PageInfo{});
  EXPECT_EQ(decode<TestPage>(R"({"tests": null, "page": null})"), page);
  EXPECT_EQ(decode<TestDetails>("{}").test, TestCase{});
  EXPECT_EQ(decode<QueueSettings>("{}"), QueueSettings{});
}

TEST(ResponseDecode, IntegersMayArriveAsIntegralFloats) {
  const auto settings = decode<QueueSettings>(R"({"concurrency": 5.0, "batchingMinSize": 1e2,
                                                   "bisectionConcurrency": 4294967295.0})");
  EXPECT_EQ(settings.concurrency, 5);
  EXPECT_EQ(settings.batching_min_size, 100);
  EXPECT_EQ(settings.bisection_concurrency, 4294967295);
  EXPECT_EQ(decode<PageInfo>(R"({"total_rows": -0.0})").total_rows, 0);
}

TEST(ResponseDecode, FailureRatesAcceptIntegersAndFloats) {
  const auto test = decode<TestCase>(R"({"failure_rate_last_7d": 1, "failure_rate_last_24h": 0.1})");
  EXPECT_EQ(test.failure_rate_last_7d, 1.0);
  EXPECT_EQ(test.failure_rate_last_24h, 0.1);
}

TEST(ResponseDecode, TimestampsInAnyRfc3339FormAreNormalizedToUtc) {
  const auto status = decode<TestStatus>(R"({"timestamp": "2024-05-01 14:00:00.5+02:00"})");
  EXPECT_EQ(status.timestamp, parse_rfc3339("2024-05-01T12:00:00.5Z"));
  EXPECT_EQ(to_json(status)["timestamp"], "2024-05-01T12:00:00.500000Z");
}

// ---- wrong types give DecodeError with the JSON path --------------------------------------------------
TEST(ResponseDecodeError, NamesTheNestedPathWithArrayIndexes) {
  const auto error = decode_error(
      [] { decode<TestPage>(R"({"tests": [{}, {}, {}, {"failure_rate_last_7d": "high"}], "page": {}})"); });
  EXPECT_STREQ(error.what(), "tests[3].failure_rate_last_7d: expected number, got string");
  EXPECT_EQ(error.path(), "tests[3].failure_rate_last_7d");
}

struct WrongType {
  const char* body;
  const char* message;
};

TEST(ResponseDecodeError, EveryKindOfWrongType) {
  const WrongType cases[] = {
      {R"({"tests": {}})", "tests: expected array, got object"},
      {R"({"tests": ["x"]})", "tests[0]: expected object, got string"},
      {R"({"tests": [null]})", "tests[0]: expected object, got null"},
      {R"({"tests": [{"id": 7}]})", "tests[0].id: expected string, got number"},
      {R"({"tests": [{"quarantined": "true"}]})", "tests[0].quarantined: expected boolean, got string"},
      {R"({"tests": [{"quarantined": 1}]})", "tests[0].quarantined: expected boolean, got number"},
      {R"({"tests": [{"codeowners": "@a"}]})", "tests[0].codeowners: expected array, got string"},
      {R"({"tests": [{"codeowners": ["@a", 2]}]})", "tests[0].codeowners[1]: expected string, got number"},
      {R"({"tests": [{"status": {"timestamp": 5}}]})",
       "tests[0].status.timestamp: expected string, got number"},
      {R"({"tests": [{"status": []}]})", "tests[0].status: expected object, got array"},
      {R"({"tests": [{"repository": "r"}]})", "tests[0].repository: expected object, got string"},
      {R"({"tests": [{"ticket": {"html_url": false}}]})",
       "tests[0].ticket.html_url: expected string, got boolean"},
      {R"({"tests": [{"most_common_failures": [{"occurrence_count": "3a"}]}]})",
       "tests[0].most_common_failures[0].occurrence_count: expected integer, got string"},
      {R"({"tests": [{"most_common_failures": [{}, {"occurrence_count": 2.5}]}]})",
       "tests[0].most_common_failures[1].occurrence_count: expected integer, got 2.5"},
      {R"({"tests": [{"pull_requests_impacted_last_7d": 18446744073709551615}]})",
       "tests[0].pull_requests_impacted_last_7d: integer 18446744073709551615 is out of range"},
      {R"({"tests": [{"pull_requests_impacted_last_7d": 1e300}]})",
       "tests[0].pull_requests_impacted_last_7d: expected integer, got 1e+300"},
      {R"({"page": {"total_rows": "3.0"}})", "page.total_rows: expected integer, got string"},
      {R"({"page": {"next_page_token": 0}})", "page.next_page_token: expected string, got number"},
      {R"({"page": 1})", "page: expected object, got number"},
      {R"([])", "expected object, got array"},
  };
  for (const auto& c : cases) {
    const auto error = decode_error([&] { decode<TestPage>(c.body); });
    EXPECT_STREQ(error.what(), c.message) << c.body;
  }
}

TEST(ResponseDecodeError, QueueSettingsWrongTypes) {
  const WrongType cases[] = {
      {R"({"state": 1})", "state: expected string, got number"},
      {R"({"concurrency": "5x"})", "concurrency: expected integer, got string"},
      {R"({"concurrency": 5.5})", "concurrency: expected integer, got 5.5"},
      {R"({"batch": "yes"})", "batch: expected boolean, got string"},
      {R"({"requiredStatuses": [null]})", "requiredStatuses[0]: expected string, got null"},
      {R"({"mergeMethod": {}})", "mergeMethod: expected string, got object"},
  };
  for (const auto& c : cases) {
    const auto error = decode_error([&] { decode<QueueSettings>(c.body); });
    EXPECT_STREQ(error.what(), c.message) << c.body;
  }
}

// An answer's time that is not RFC 3339 text loses neither the answer nor the text: the field is absent and the
// text is in `extra` under its wire name, from where encoding gives it back.
TEST(ResponseTimes, UnreadableTextIsKeptInExtraAndTheRestIsRead) {
  const auto details = decode<TestDetails>(
      R"({"test": {"name": "t", "status": {"value": "flaky", "timestamp": "yesterday"},
                   "most_common_failures": [{"summary": "s", "last_occurrence": "2024-13-01T00:00:00Z"}]}})");
  EXPECT_EQ(details.test.name, "t");
  EXPECT_EQ(details.test.status->timestamp, std::nullopt);
  EXPECT_EQ(details.test.status->extra, Json({{"timestamp", "yesterday"}}));
  EXPECT_EQ(details.test.status->value->wire(), "flaky");
  const auto& failure = details.test.most_common_failures->at(0);
  EXPECT_EQ(failure.last_occurrence, std::nullopt);
  EXPECT_EQ(failure.extra, Json({{"last_occurrence", "2024-13-01T00:00:00Z"}}));
  EXPECT_EQ(to_json(failure)["last_occurrence"], "2024-13-01T00:00:00Z");  // given back as it came
  EXPECT_EQ(decode<TestDetails>(encode(details)), details);

  const auto quarantined = decode<QuarantinedTest>(R"({"quarantined_at": "", "status_last_updated_at": "now"})");
  EXPECT_EQ(quarantined.quarantined_at, std::nullopt);
  EXPECT_EQ(quarantined.extra, Json({{"quarantined_at", ""}, {"status_last_updated_at", "now"}}));
}

// A key given twice is read as its last occurrence, as nlohmann, Python and JavaScript read it: nothing the first
// one left stays behind (an unreadable time kept in `extra`, a value, a list), so encoding and decoding again
// gives the same model. Found by fuzz_decode_responses (fuzz/regressions/.../duplicate-key-last-wins).
TEST(ResponseDecode, ADuplicateKeyReadsAsItsLastOccurrence) {
  const auto later_time = decode<TestDetails>(
      R"({"test": {"status": {"timestamp": "2024-05-01T12:s", "timestamp": "2024-05-01T12:00:00Z"}}})");
  EXPECT_EQ(later_time.test.status->timestamp, parse_rfc3339("2024-05-01T12:00:00Z"));
  EXPECT_EQ(later_time.test.status->extra, Json());
  EXPECT_EQ(decode<TestDetails>(encode(later_time)), later_time);

  const auto later_text = decode<TestDetails>(
      R"({"test": {"status": {"timestamp": "2024-05-01T12:00:00Z", "timestamp": "noon"}}})");
  EXPECT_EQ(later_text.test.status->timestamp, std::nullopt);
  EXPECT_EQ(later_text.test.status->extra, Json({{"timestamp", "noon"}}));

  const auto later_null = decode<TestDetails>(R"({"test": {"name": "a", "name": null}})");
  EXPECT_EQ(later_null.test.name, std::nullopt);
  const auto later_list = decode<TestDetails>(
      R"({"test": {"most_common_failures": [{"summary": "a"}], "most_common_failures": [{"summary": "b"}]}})");
  ASSERT_EQ(later_list.test.most_common_failures->size(), 1U);
  EXPECT_EQ(later_list.test.most_common_failures->at(0).summary, "b");
  const auto later_unknown = decode<TestDetails>(R"({"test": {"x": 1, "x": 2}})");
  EXPECT_EQ(later_unknown.test.extra, Json({{"x", 2}}));
  EXPECT_EQ(later_null, from_json<TestDetails>(Json::parse(R"({"test": {"name": "a", "name": null}})")));
}

// The decoder finds a key at the field after the previous one (declaration order) or among the fields of its
// length: every order of the keys reads the same model, and a key that is not a field (a typo of a field's
// length, the empty key, one longer than every field) stays an unknown key.
TEST(ResponseDecode, KeysInAnyOrderReadTheSameModel) {
  const Json fixture = fixture_json("test_case_full.json");
  const auto expected = decode<TestCase>(fixture.dump());  // nlohmann writes the keys sorted
  std::vector<std::pair<std::string, Json>> members;
  for (const auto& [key, value] : fixture.items()) members.emplace_back(key, value);
  const auto text_of = [](const std::vector<std::pair<std::string, Json>>& in_order) {
    std::string text = "{";
    for (const auto& [key, value] : in_order) {
      // Appended piece by piece: GCC 12 at -O3 saw an overflow in the chain of temporaries operator+ built
      // (a false -Wstringop-overflow, as in GCC bug 105329), so a packager's Release build warned here.
      if (text.size() > 1) text += ',';
      text += Json(key).dump();
      text += ':';
      text += value.dump();
    }
    return text + "}";
  };
  std::reverse(members.begin(), members.end());
  EXPECT_EQ(decode<TestCase>(text_of(members)), expected);
  std::rotate(members.begin(), members.begin() + 3, members.end());
  EXPECT_EQ(decode<TestCase>(text_of(members)), expected);

  const auto typo = decode<TestCase>(R"({"nmae": "a", "name": "b", "": 0, "a_key_longer_than_every_field_name": 1})");
  EXPECT_EQ(typo.name, "b");  // "nmae" is as long as "name"; "" and the long key are as short and long as none
  EXPECT_EQ(typo.extra, Json({{"nmae", "a"}, {"", 0}, {"a_key_longer_than_every_field_name", 1}}));
}

TEST(ResponseTimes, EveryMergeQueueTimeIsATime) {
  const auto pr = decode<PullRequest>(R"({"stateChangedAt": "2026-01-01T10:00:00+02:00", "prNumber": 1})");
  EXPECT_EQ(pr.state_changed_at, parse_rfc3339("2026-01-01T08:00:00Z"));
  EXPECT_EQ(to_json(pr)["stateChangedAt"], "2026-01-01T08:00:00Z");
  const auto submitted = decode<SubmittedPullRequest>(R"({"stateChangedAt": "1 minute ago", "id": "x"})");
  EXPECT_EQ(submitted.state_changed_at, std::nullopt);
  EXPECT_EQ(submitted.extra, Json({{"stateChangedAt", "1 minute ago"}}));
  EXPECT_EQ(submitted.id, "x");
  const auto run = decode<TestRunDetails>(R"({"createdAt": "2026-01-01T00:00:00.25Z", "testBranch": "b"})");
  EXPECT_EQ(run.created_at, parse_rfc3339("2026-01-01T00:00:00.25Z"));
  EXPECT_EQ(decode<TestRunDetails>(R"({"createdAt": "soon"})").extra, Json({{"createdAt", "soon"}}));
  // A page keeps its other pull requests' times.
  const auto page = decode<PullRequestPage>(
      R"({"pullRequests": [{"stateChangedAt": "?"}, {"stateChangedAt": "2026-01-02T00:00:00Z"}]})");
  EXPECT_EQ(page.pull_requests[0].extra, Json({{"stateChangedAt", "?"}}));
  EXPECT_EQ(page.pull_requests[1].state_changed_at, parse_rfc3339("2026-01-02T00:00:00Z"));
}

TEST(ResponseDecodeError, ATimeOfTheWrongTypeNamesItsPath) {
  const auto error = decode_error([] {
    decode<TestDetails>(R"({"test": {"most_common_failures": [{"last_occurrence": 1700000000}]}})");
  });
  EXPECT_EQ(error.path(), "test.most_common_failures[0].last_occurrence");
  EXPECT_STREQ(error.what(), "test.most_common_failures[0].last_occurrence: expected string, got number");
}

TEST(ResponseDecodeError, FromJsonPrefixesTheGivenPath) {
  const auto error = decode_error([] { from_json<TestCase>(Json({{"name", 1}}), "tests[7]"); });
  EXPECT_STREQ(error.what(), "tests[7].name: expected string, got number");
}

// ---- malformed JSON -------------------------------------------------------------------------------------
TEST(MalformedJson, IsADecodeErrorAtTheRoot) {
  for (const char* body : {"", "{", "{\"tests\": [}", "not json", "{\"a\": 1,}", "{\"a\" 1}", "[1, 2",
                           "{\"a\": \"unterminated}", "{} trailing", "\"\\uD800\"",
                           // fuzz finding: On-Demand skipped the structure after an unknown key's value
                           "{\"a\":\"b\":1}", "{\"tests\":[],\"x\":\"y\":1,\"page\":{}}", "{\"x\":[1,]}"}) {
    const auto error = decode_error([&] { decode<TestPage>(body); });
    EXPECT_EQ(error.path(), "") << body;
    EXPECT_EQ(std::string(error.what()).rfind("malformed JSON: ", 0), 0U) << error.what();
  }
}

// Fuzz finding F1: a number no double can hold made nlohmann throw out_of_range, which escaped as a
// non-trunk exception (and a 500 from the sandbox).
TEST(MalformedJson, ANumberBeyondDoubleRangeIsADecodeError) {
  for (const char* body : {R"({"page": {"total_rows": 1e400}})", R"({"tests": [{"failure_rate_last_7d": -1e999}]})"}) {
    const auto error = decode_error([&] { decode<TestPage>(body); });
    EXPECT_EQ(error.path(), "") << body;
    EXPECT_EQ(std::string(error.what()).rfind("malformed JSON: ", 0), 0U) << error.what();
  }
  EXPECT_THROW(decode<UpdateQueueRequest>(R"({"concurrency": 1e400})"), DecodeError);
}

// Keys are read in place unless they hold an escape (json_decoder.hpp, key_of): an escaped key still names its
// field, an escaped unknown key is kept under its unescaped name, and a quote or backslash inside a key ends
// nothing early.
TEST(Keys, EscapedKeysReadAsTheirUnescapedNames) {
  const TestCase test = decode<TestCase>(
      R"({"n\u0061me": "escaped", "id": "plain", "odd\"key\\": 1, "caf\u00e9": true, "html_url": "u"})");
  EXPECT_EQ(test.name, "escaped");
  EXPECT_EQ(test.id, "plain");
  EXPECT_EQ(test.html_url, "u");
  EXPECT_EQ(test.extra["odd\"key\\"], 1);
  EXPECT_EQ(test.extra["caf\xc3\xa9"], true);
  EXPECT_EQ(test.extra.size(), 2u);
}

TEST(MalformedJson, InvalidUtf8InTheBodyIsRejectedAndTheMessageStaysText) {
  const auto error = decode_error([] { decode<TestCase>(std::string("{\"name\": \"\xff\xfe\"}")); });
  EXPECT_EQ(std::string(error.what()).rfind("malformed JSON: ", 0), 0U);
  EXPECT_TRUE(is_valid_utf8(error.what()));
}

TEST(MalformedJson, DeepNestingIsRejectedBeforeParsing) {
  const std::string deep = "{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  const auto error = decode_error([&] { decode<TestCase>(deep); });
  EXPECT_NE(std::string(error.what()).find("nested deeper than"), std::string::npos) << error.what();
  // Brackets inside strings do not count, and moderate nesting in unknown keys is kept.
  const std::string fine = R"({"note": "[[[[[[[[[[{{{{{{", "x": [[[[[[[[[[1]]]]]]]]]]})";
  EXPECT_EQ(decode<TestCase>(fine).extra["note"], "[[[[[[[[[[{{{{{{");
}

/// {"x": [[...]]} nested `levels` deep in all (the root object is level 1), `tail` after the arrays.
std::string nested(std::size_t levels, const std::string& tail = "") {
  return "{\"x\": " + std::string(levels - 1, '[') + std::string(levels - 1, ']') + tail + "}";
}

TEST(MalformedJson, NestingLimitIs128LevelsExactly) {
  EXPECT_NO_THROW(decode<TestCase>(nested(128)));
  const auto error = decode_error([&] { decode<TestCase>(nested(129)); });
  EXPECT_EQ(std::string(error.what()), "malformed JSON: nested deeper than 128 levels");
  EXPECT_THROW(decode<TestPage>(nested(129)), DecodeError);
}

TEST(MalformedJson, NestingLimitHoldsWhereTheValidatorStopsAtAnOutOfRangeNumber) {
  // simdjson's validating parser stops at 1e400; the depth of what follows is still checked before any
  // recursive parser sees it.
  const std::string deep = "{\"n\": 1e400, \"x\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
  const auto error = decode_error([&] { decode<TestCase>(deep); });
  EXPECT_NE(std::string(error.what()).find("nested deeper than 128 levels at byte"), std::string::npos)
      << error.what();
  // At the limit, what is refused is the number (kept raw in an unknown key, it is malformed when read).
  const std::string fine = "{\"n\": 1e400, \"x\": " + std::string(127, '[') + std::string(127, ']') + "}";
  const auto number = decode_error([&] { decode<TestCase>(fine); });
  EXPECT_EQ(std::string(number.what()).find("nested"), std::string::npos) << number.what();
}

}  // namespace

namespace {

using namespace trunk;

/// Decodes `body` as T; returns true when it decoded, false when it threw DecodeError. Any other exception
/// escapes and fails the test: damaged input must never surface as anything but the library's own error.
template <typename T>
bool decodes(const std::string& body) {
  try {
    (void)decode<T>(body);
    return true;
  } catch (const DecodeError&) {
    return false;
  }
}

TEST(DamagedResponses, EveryTruncationIsADecodeError) {
  // Compact form: with no trailing whitespace, every proper prefix is incomplete JSON.
  const std::string body = trunk::testing::fixture_json("test_details_with_unknowns.json").dump();
  for (std::size_t length = 0; length < body.size(); ++length) {
    EXPECT_FALSE(decodes<TestDetails>(body.substr(0, length))) << body.substr(0, length);
  }
  EXPECT_TRUE(decodes<TestDetails>(body));
}

TEST(DamagedResponses, ByteSubstitutionsNeverEscapeAsOtherExceptions) {
  const std::string original = trunk::testing::fixture_text("test_case_full.json");
  std::size_t decoded = 0;
  for (std::size_t pos = 0; pos < original.size(); ++pos) {
    for (const char replacement : {'"', '{', ']', '1', '\xff', 'n', '\\', ','}) {
      std::string body = original;
      body[pos] = replacement;
      if (decodes<TestCase>(body)) ++decoded;
    }
  }
  EXPECT_GT(decoded, 0U);  // substitutions inside string values still decode (tolerance)
}

}  // namespace

namespace trunk {
namespace {

// Protobuf's JSON mapping lets an integer arrive as a decimal string; the one integer reader takes it in
// answers as in requests (codec_requests_test.cpp has the boundaries).
TEST(ResponseDecode, IntegersGivenAsDecimalStringsAreRead) {
  const auto settings = decode<QueueSettings>(R"({"concurrency": "5", "testingTimeoutMinutes": 60})");
  EXPECT_EQ(settings.concurrency, 5);
  EXPECT_EQ(settings.testing_timeout_minutes, 60);
}

}  // namespace
}  // namespace trunk
