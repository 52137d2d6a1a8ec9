#include "trunk/validation.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace trunk;
using namespace std::chrono;

Timestamp at(const char* text) { return parse_rfc3339(text); }

ListFailingTestsRequest valid_failing() {
  ListFailingTestsRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.org_url_slug = "acme";
  request.start_time = at("2024-05-01T00:00:00Z");
  request.end_time = at("2024-05-08T00:00:00Z");
  return request;
}

ListUnhealthyTestsRequest valid_unhealthy() {
  ListUnhealthyTestsRequest request;
  request.repo = {"gitlab.com", "group/sub", "project"};
  request.org_url_slug = "acme";
  request.status = HealthStatus::broken;
  return request;
}

GetTestDetailsRequest valid_details() {
  return {{"github.com", "acme", "widgets"}, "acme", "3f2c9a1e-7b4d-4c8e-9f01-23456789abcd"};
}

UpdateQueueRequest valid_update() {
  UpdateQueueRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.target_branch = "main";
  return request;
}

std::vector<std::string> fields(const std::vector<Violation>& violations) {
  std::vector<std::string> result;
  for (const auto& violation : violations) result.push_back(violation.field);
  return result;
}

using Fields = std::vector<std::string>;

TEST(Validation, ValidRequestsHaveNoViolations) {
  EXPECT_TRUE(check(valid_failing()).empty());
  EXPECT_TRUE(check(valid_unhealthy()).empty());
  EXPECT_TRUE(check(valid_details()).empty());
  EXPECT_TRUE(check(valid_update()).empty());
  EXPECT_NO_THROW(validate(valid_failing()));
}

// ---- repo and org_url_slug ----------------------------------------------------------------------------
TEST(Validation, RepoPartsMustNotBeEmpty) {
  auto request = valid_details();
  request.repo = {"", "", ""};
  const auto violations = check(request);
  EXPECT_EQ(fields(violations), (Fields{"repo.host", "repo.owner", "repo.name"}));
  EXPECT_EQ(violations[0].value, "\"\"");
  EXPECT_EQ(violations[0].rule, "must not be empty");
}

TEST(Validation, OneCharacterRepoPartsPass) {
  auto request = valid_details();
  request.repo = {"h", "o", "n"};
  EXPECT_TRUE(check(request).empty());
}

TEST(Validation, OrgUrlSlugMustNotBeEmptyInEveryFlakyTestRequest) {
  auto failing = valid_failing();
  failing.org_url_slug = "";
  auto unhealthy = valid_unhealthy();
  unhealthy.org_url_slug = "";
  auto details = valid_details();
  details.org_url_slug = "";
  for (const auto& violations : {check(failing), check(unhealthy), check(details)}) {
    ASSERT_EQ(fields(violations), Fields{"org_url_slug"});
    EXPECT_EQ(violations[0].rule, "must not be empty");
  }
  details.org_url_slug = "a";
  EXPECT_TRUE(check(details).empty());
}

TEST(Validation, RepoCheckUsesTheGivenFieldPrefix) {
  EXPECT_EQ(fields(check(Repo{"", "o", "n"}, "source")), Fields{"source.host"});
  EXPECT_EQ(fields(check(Repo{"", "o", "n"}, "")), Fields{"host"});
}

// ---- UTF-8 --------------------------------------------------------------------------------------------
TEST(Validation, StringsMustBeValidUtf8AndTheValueIsEscaped) {
  auto request = valid_update();
  request.repo.owner = "ac\xffme";
  request.target_branch = "feature/\xc3\x28";
  request.required_statuses = std::vector<std::string>{"ci/\xed\xa0\x80"};
  const auto violations = check(request);
  EXPECT_EQ(fields(violations), (Fields{"repo.owner", "targetBranch", "requiredStatuses[0]"}));
  EXPECT_EQ(violations[0].value, "\"ac\\xFFme\"");
  EXPECT_EQ(violations[0].rule, "must be valid UTF-8");
  EXPECT_TRUE(is_valid_utf8(ValidationError(violations).what()));
}

TEST(Validation, NonAsciiUtf8Passes) {
  auto request = valid_update();
  request.target_branch = "r\xc3\xa9lease/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x9a\x80";
  EXPECT_TRUE(check(request).empty());
}

TEST(Validation, PageTokenMustBeUtf8ButMayBeEmpty) {
  auto request = valid_failing();
  request.page_query.page_token = "";
  EXPECT_TRUE(check(request).empty());
  request.page_query.page_token = "tok\x80";
  EXPECT_EQ(fields(check(request)), Fields{"page_query.page_token"});
}

TEST(Utf8, AcceptsWellFormedSequences) {
  for (const std::string& text :
       {std::string(""), std::string("ascii"), std::string("\x7f"), std::string("\xc2\x80"),
        std::string("\xdf\xbf"), std::string("\xe0\xa0\x80"), std::string("\xed\x9f\xbf"),
        std::string("\xee\x80\x80"), std::string("\xef\xbf\xbf"), std::string("\xf0\x90\x80\x80"),
        std::string("\xf4\x8f\xbf\xbf"), std::string("a\0b", 3)}) {
    EXPECT_TRUE(is_valid_utf8(text)) << testing::PrintToString(text);
  }
}

TEST(Utf8, RejectsOverlongsSurrogatesOutOfRangeAndTruncation) {
  for (const std::string& text : {
           std::string("\x80"),              // lone continuation
           std::string("\xc0\xaf"),          // overlong '/'
           std::string("\xc1\xbf"),          // overlong
           std::string("\xe0\x9f\xbf"),      // overlong 3-byte
           std::string("\xf0\x8f\xbf\xbf"),  // overlong 4-byte
           std::string("\xed\xa0\x80"),      // surrogate U+D800
           std::string("\xed\xbf\xbf"),      // surrogate U+DFFF
           std::string("\xf4\x90\x80\x80"),  // U+110000
           std::string("\xf5\x80\x80\x80"),  // lead byte above F4
           std::string("\xff"),              // never valid
           std::string("\xc3"),              // truncated 2-byte
           std::string("\xe2\x82"),          // truncated 3-byte
           std::string("\xf0\x9f\x9a"),      // truncated 4-byte
           std::string("\xc3\x28"),          // bad continuation
       }) {
    EXPECT_FALSE(is_valid_utf8(text)) << testing::PrintToString(text);
  }
}

// ---- the failing-tests window -------------------------------------------------------------------------
TEST(Validation, WindowOfExactlySevenDaysPasses) {
  auto request = valid_failing();
  request.end_time = request.start_time + hours(24 * 7);
  EXPECT_TRUE(check(request).empty());
}

TEST(Validation, WindowOneMicrosecondOverSevenDaysFails) {
  auto request = valid_failing();
  request.end_time = request.start_time + hours(24 * 7) + microseconds(1);
  const auto violations = check(request);
  ASSERT_EQ(fields(violations), Fields{"end_time"});
  EXPECT_EQ(violations[0].rule, "must be at most 7 days after start_time");
  EXPECT_EQ(violations[0].value, "2024-05-08T00:00:00.000001Z (start_time 2024-05-01T00:00:00Z)");
}

TEST(Validation, WindowOfOneMicrosecondPasses) {
  auto request = valid_failing();
  request.end_time = request.start_time + microseconds(1);
  EXPECT_TRUE(check(request).empty());
}

TEST(Validation, EmptyAndReversedWindowsFail) {
  auto request = valid_failing();
  request.end_time = request.start_time;
  auto violations = check(request);
  ASSERT_EQ(fields(violations), Fields{"end_time"});
  EXPECT_EQ(violations[0].rule, "must be after start_time");
  request.end_time = request.start_time - microseconds(1);
  violations = check(request);
  ASSERT_EQ(fields(violations), Fields{"end_time"});
  EXPECT_EQ(violations[0].rule, "must be after start_time");
}

TEST(Validation, WindowUsesUtcSoOffsetsDoNotMatter) {
  auto request = valid_failing();
  request.start_time = at("2024-05-01T02:00:00+02:00");
  request.end_time = at("2024-05-08T00:00:00Z");
  EXPECT_TRUE(check(request).empty());
  request.end_time = at("2024-05-08T00:00:00-00:01");
  EXPECT_EQ(fields(check(request)), Fields{"end_time"});
}

TEST(Validation, TimestampsOutsideFourDigitYearsAreRejected) {
  auto request = valid_failing();
  request.start_time = Timestamp{sys_days{year{-1} / 12 / 31}};
  request.end_time = Timestamp{sys_days{year{10000} / 1 / 1}};
  const auto violations = check(request);
  EXPECT_EQ(fields(violations), (Fields{"start_time", "end_time"}));
  EXPECT_NE(violations[0].rule.find("0000-01-01T00:00:00Z"), std::string::npos);
}

// ---- page_size ----------------------------------------------------------------------------------------
TEST(Validation, PageSizeBoundaries) {
  const std::pair<std::int64_t, bool> cases[] = {{-1, false},  {0, false},         {1, true},
                                                 {2, true},    {99, true},         {100, true},
                                                 {101, false}, {INT64_MIN, false}, {INT64_MAX, false}};
  for (const auto& [size, ok] : cases) {
    auto request = valid_unhealthy();
    request.page_query.page_size = size;
    const auto violations = check(request);
    if (ok) {
      EXPECT_TRUE(violations.empty()) << size;
    } else {
      ASSERT_EQ(fields(violations), Fields{"page_query.page_size"}) << size;
      EXPECT_EQ(violations[0].value, std::to_string(size));
      EXPECT_EQ(violations[0].rule, "must be between 1 and 100");
    }
  }
}

TEST(Validation, PageQueryCheckedOnItsOwn) {
  EXPECT_EQ(fields(check(PageQuery{0, ""})), Fields{"page_query.page_size"});
  EXPECT_TRUE(check(PageQuery{}).empty());  // the default page size is valid
}

// ---- status filter and other enumerations ---------------------------------------------------------------
TEST(Validation, StatusFilterMustBeAKnownValue) {
  auto request = valid_unhealthy();
  request.status = static_cast<HealthStatus>(7);
  const auto violations = check(request);
  ASSERT_EQ(fields(violations), Fields{"status"});
  EXPECT_EQ(violations[0].rule, "must be one of FLAKY, BROKEN");
}

TEST(Validation, QueueEnumsMustBeKnownValues) {
  auto request = valid_update();
  request.mode = static_cast<QueueMode>(9);
  request.direct_merge_mode = static_cast<DirectMergeMode>(9);
  request.optimization_mode = static_cast<OptimizationMode>(9);
  request.merge_method = static_cast<MergeMethod>(9);
  request.state = static_cast<QueueState>(9);
  const auto violations = check(request);
  EXPECT_EQ(fields(violations),
            (Fields{"state", "mode", "directMergeMode", "optimizationMode", "mergeMethod"}));
  EXPECT_EQ(violations[4].rule, "must be one of merge_commit, squash, rebase");
}

TEST(Validation, RequestedStateMayNotBeSwitchingModes) {
  auto request = valid_update();
  for (auto state : {QueueState::running, QueueState::paused, QueueState::draining}) {
    request.state = state;
    EXPECT_TRUE(check(request).empty());
  }
  request.state = QueueState::switching_modes;
  const auto violations = check(request);
  ASSERT_EQ(fields(violations), Fields{"state"});
  EXPECT_EQ(violations[0].value, "\"switching_modes\"");
  EXPECT_NE(violations[0].rule.find("must be one of running, paused, draining"), std::string::npos);
}

// ---- test_id -----------------------------------------------------------------------------------------
TEST(Validation, TestIdAcceptsUuidsInEitherCase) {
  for (const char* id : {"3f2c9a1e-7b4d-4c8e-9f01-23456789abcd", "3F2C9A1E-7B4D-4C8E-9F01-23456789ABCD",
                         "3f2C9a1E-7b4D-4c8E-9F01-23456789aBcD", "00000000-0000-0000-0000-000000000000",
                         "ffffffff-ffff-ffff-ffff-ffffffffffff"}) {
    auto request = valid_details();
    request.test_id = id;
    EXPECT_TRUE(check(request).empty()) << id;
    EXPECT_TRUE(is_uuid(id));
  }
}

TEST(Validation, TestIdRejectsEverythingElse) {
  for (const std::string& id : {
           std::string(""),
           std::string("3f2c9a1e-7b4d-4c8e-9f01-23456789abc"),     // 35 characters
           std::string("3f2c9a1e-7b4d-4c8e-9f01-23456789abcde"),   // 37 characters
           std::string("3f2c9a1e7b4d4c8e9f0123456789abcd"),        // no hyphens
           std::string("3f2c9a1e-7b4d-4c8e-9f0123456789-abcd"),    // hyphen moved
           std::string("3f2c9a1e_7b4d_4c8e_9f01_23456789abcd"),    // wrong separator
           std::string("3f2c9a1g-7b4d-4c8e-9f01-23456789abcd"),    // 'g' is not hex
           std::string("{3f2c9a1e-7b4d-4c8e-9f01-23456789abcd}"),  // braces
           std::string(" 3f2c9a1e-7b4d-4c8e-9f01-23456789abc"),    // leading space
           std::string("3f2c9a1e-7b4d-4c8e-9f01-23456789abc\0", 36),
       }) {
    auto request = valid_details();
    request.test_id = id;
    const auto violations = check(request);
    ASSERT_EQ(fields(violations), Fields{"test_id"}) << id;
    EXPECT_NE(violations[0].rule.find("must be a UUID"), std::string::npos);
    EXPECT_FALSE(is_uuid(id));
  }
}

// ---- the six integer settings ---------------------------------------------------------------------------
using Setting = std::optional<std::int64_t> UpdateQueueRequest::*;
const std::pair<Setting, const char*> kSettings[] = {
    {&UpdateQueueRequest::concurrency, "concurrency"},
    {&UpdateQueueRequest::bisection_concurrency, "bisectionConcurrency"},
    {&UpdateQueueRequest::testing_timeout_minutes, "testingTimeoutMinutes"},
    {&UpdateQueueRequest::pending_failure_depth, "pendingFailureDepth"},
    {&UpdateQueueRequest::batching_max_wait_time_minutes, "batchingMaxWaitTimeMinutes"},
    {&UpdateQueueRequest::batching_min_size, "batchingMinSize"},
};

TEST(Validation, IntegerSettingBoundaries) {
  const std::pair<std::int64_t, bool> cases[] = {{INT64_MIN, false}, {-1, false},         {0, false},
                                                 {1, true},          {2, true},           {4294967294, true},
                                                 {4294967295, true}, {4294967296, false}, {INT64_MAX, false}};
  for (const auto& [member, wire_name] : kSettings) {
    for (const auto& [value, ok] : cases) {
      auto request = valid_update();
      request.*member = value;
      const auto violations = check(request);
      if (ok) {
        EXPECT_TRUE(violations.empty()) << wire_name << "=" << value;
      } else {
        ASSERT_EQ(fields(violations), Fields{wire_name}) << value;
        EXPECT_EQ(violations[0].value, std::to_string(value));
        EXPECT_TRUE(violations[0].rule.starts_with("must be between 1 and 4294967295")) << violations[0].rule;
      }
    }
  }
}

TEST(Validation, PendingFailureDepthZeroIsTheContractsNoButTheServicesYes) {
  // The client keeps the contract's range and says why 0 is refused; the sandbox judges as the service does.
  auto request = valid_update();
  request.pending_failure_depth = 0;
  const auto refused = check(request);
  ASSERT_EQ(fields(refused), Fields{"pendingFailureDepth"});
  EXPECT_EQ(refused[0].rule,
            "must be between 1 and 4294967295: the contract's range, which this client keeps, although Trunk's "
            "service takes 0 (its default, which getQueue answers); leave the field out to keep the queue's value");
  EXPECT_TRUE(check(request, "", Judge::service).empty());
  // Below the service's own least value, both refuse, and the note is not given.
  request.pending_failure_depth = -1;
  for (const Judge judge : {Judge::contract, Judge::service}) {
    const auto violations = check(request, "", judge);
    ASSERT_EQ(fields(violations), Fields{"pendingFailureDepth"});
    EXPECT_EQ(violations[0].rule, "must be between 1 and 4294967295");
  }
  // The other settings have no service range: 0 is refused by both.
  request = valid_update();
  request.concurrency = 0;
  EXPECT_EQ(fields(check(request, "", Judge::service)), Fields{"concurrency"});
}

TEST(Validation, UnsetSettingsAreNotChecked) {
  auto request = valid_update();
  for (const auto& [member, wire_name] : kSettings) EXPECT_FALSE((request.*member).has_value()) << wire_name;
  EXPECT_TRUE(check(request).empty());
}

// ---- targetBranch and required statuses ---------------------------------------------------------------
TEST(Validation, TargetBranchMustNotBeEmpty) {
  auto request = valid_update();
  request.target_branch = "";
  EXPECT_EQ(fields(check(request)), Fields{"targetBranch"});
  request.target_branch = "x";
  EXPECT_TRUE(check(request).empty());
}

TEST(Validation, RequiredStatusesWithDeleteTrueIsRejected) {
  auto request = valid_update();
  request.required_statuses = std::vector<std::string>{"ci/build"};
  request.delete_required_statuses = true;
  auto violations = check(request);
  ASSERT_EQ(fields(violations), Fields{"requiredStatuses"});
  EXPECT_EQ(violations[0].rule, "must not be set together with deleteRequiredStatuses: true");
  // Even the empty list contradicts "drop the manual list".
  request.required_statuses = std::vector<std::string>{};
  EXPECT_EQ(fields(check(request)), Fields{"requiredStatuses"});
}

TEST(Validation, RequiredStatusesAndDeleteAreEachFineAlone) {
  auto request = valid_update();
  request.required_statuses = std::vector<std::string>{};
  EXPECT_TRUE(check(request).empty());
  request.delete_required_statuses = false;
  EXPECT_TRUE(check(request).empty());
  request.required_statuses.reset();
  request.delete_required_statuses = true;
  EXPECT_TRUE(check(request).empty());
}

TEST(Validation, RequiredStatusNamesMustNotBeEmpty) {
  auto request = valid_update();
  request.required_statuses = std::vector<std::string>{"ci/build", "", "ci/test"};
  const auto violations = check(request);
  ASSERT_EQ(fields(violations), Fields{"requiredStatuses[1]"});
  EXPECT_EQ(violations[0].rule, "must not be empty");
}

// ---- everything at once ---------------------------------------------------------------------------------
TEST(Validation, ReportsEveryViolationAtOnce) {
  UpdateQueueRequest request;  // empty repo and branch
  request.state = QueueState::switching_modes;
  request.concurrency = 0;
  request.batching_min_size = 4294967296;
  request.required_statuses = std::vector<std::string>{"a"};
  request.delete_required_statuses = true;
  EXPECT_EQ(fields(check(request)), (Fields{"repo.host", "repo.owner", "repo.name", "targetBranch", "state",
                                            "concurrency", "batchingMinSize", "requiredStatuses"}));
  try {
    validate(request);
    FAIL() << "expected ValidationError";
  } catch (const ValidationError& error) {
    EXPECT_EQ(error.violations().size(), 8U);
    const std::string message = error.what();
    EXPECT_NE(message.find("concurrency: 0: must be between 1 and 4294967295"), std::string::npos) << message;
    EXPECT_NE(message.find("; batchingMinSize: 4294967296: must be between 1 and 4294967295"),
              std::string::npos);
  }
}

TEST(Validation, FailingRequestReportsEveryFieldAtOnce) {
  ListFailingTestsRequest request;  // everything empty, both times the epoch
  request.page_query.page_size = 101;
  EXPECT_EQ(fields(check(request)), (Fields{"repo.host", "repo.owner", "repo.name", "org_url_slug",
                                            "end_time", "page_query.page_size"}));
}

TEST(Validation, LongValuesAreBoundedInTheMessage) {
  auto request = valid_update();
  request.target_branch = std::string(100000, '\xff');
  const auto violations = check(request);
  ASSERT_EQ(violations.size(), 1U);
  EXPECT_LT(violations[0].value.size(), 1000U);
  EXPECT_NE(violations[0].value.find("(100000 bytes)"), std::string::npos);
}

}  // namespace
