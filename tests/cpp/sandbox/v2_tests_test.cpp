// v2's flaky tests against the sandbox, through the C++ client (docs/reference/v2.md#flaky-tests): collections,
// tests searched, filtered and sorted, a test with its metrics, its status history and its runs, a ticket linked;
// and that v2 says what v1 says of the same test at the same moment (status, quarantine, rates, pull requests
// impacted, ticket).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_fixture.hpp"

namespace sandbox_test {
namespace {

using trunk::MetricsPeriod;
using trunk::TestHealth;

class TestsV2 : public V2Fixture {
 protected:
  trunk::sandbox::SandboxOptions sandbox_options() const override {
    auto options = V2Fixture::sandbox_options();
    options.tests = 120;
    return options;
  }

  /// Every test of a listing request, every page walked.
  std::vector<trunk::TestCaseSummary> all(trunk::ListTestCasesRequest request) {
    request.limit = 37;  // several pages
    std::vector<trunk::TestCaseSummary> out;
    for (const auto& test : client_->pager<trunk::op::ListTestCases>(request)) out.push_back(test);
    return out;
  }

  static std::set<std::string> ids(const std::vector<trunk::TestCaseSummary>& tests) {
    std::set<std::string> out;
    for (const auto& test : tests) out.insert(*test.id);
    return out;
  }

  trunk::TestCaseV2 get(const std::string& id, std::optional<MetricsPeriod> period = std::nullopt) {
    trunk::GetTestCaseRequest request;
    request.test_id = id;
    if (period) {
      request.include = trunk::TestInclude::metrics;
      request.period = period;
    }
    return client_->get_test_case(request);
  }

  std::vector<trunk::TestRunV2> runs(trunk::ListTestRunsRequest request) {
    std::vector<trunk::TestRunV2> out;
    for (const auto& run : client_->pager<trunk::op::ListTestRuns>(request)) out.push_back(run);
    return out;
  }

  std::vector<trunk::StatusHistoryEntry> history(const std::string& id) {
    trunk::TestStatusHistoryRequest request;
    request.test_id = id;
    std::vector<trunk::StatusHistoryEntry> out;
    for (const auto& entry : client_->pager<trunk::op::ListTestStatusHistory>(request)) out.push_back(entry);
    return out;
  }

  std::string collection_id() const { return trunk::sandbox::test_collection_id(repo().to_string()); }

  /// v1's quarantined tests of the repository, by id.
  std::map<std::string, trunk::QuarantinedTest> v1_quarantined() {
    trunk::ListQuarantinedTestsRequest request;
    request.repo = repo();
    request.org_url_slug = sandbox_->org_url_slug();
    std::map<std::string, trunk::QuarantinedTest> out;
    for (const auto& test : client_->pager<trunk::op::ListQuarantinedTests>(request)) out[*test.test_case_id] = test;
    return out;
  }

  trunk::TestCaseV2 set_quarantine(const std::string& id, trunk::QuarantineOverrideMode mode,
                                   std::optional<std::string> reason = std::nullopt) {
    trunk::SetTestQuarantineRequest request;
    request.test_id = id;
    request.mode = mode;
    request.reason = std::move(reason);
    return client_->set_test_quarantine(request);
  }
};

TEST_F(TestsV2, EachRepositoryIsACollectionHoldingItsTestsAndCreatedOnesComeFirst) {
  const auto collection = client_->get_test_collection(trunk::TestCollectionRef{collection_id()});
  EXPECT_EQ(collection.name, repo().owner + "/" + repo().name);
  EXPECT_EQ(collection.test_case_count, static_cast<std::int64_t>(sandbox_->test_ids(repo()).size()));
  EXPECT_EQ(collection.quarantine_enabled, true);

  trunk::CreateTestCollectionRequest create;
  create.name = "  backend nightly  ";
  create.description = std::string(trunk::kMaxCollectionDescriptionLength, 'd');
  const auto created = client_->create_test_collection(create);
  EXPECT_EQ(created.name, "backend nightly");  // trimmed, as the service does
  EXPECT_EQ(created.test_case_count, 0);
  EXPECT_EQ(created.id->size(), 8u);

  trunk::ListTestCollectionsRequest list;
  std::vector<std::string> order;
  for (const auto& c : client_->pager<trunk::op::ListTestCollections>(list)) order.push_back(*c.id);
  ASSERT_EQ(order.size(), sandbox_->repos().size() + 1);
  EXPECT_EQ(order.front(), *created.id);  // newest first
  list.q = "NIGHTLY";
  const auto found = client_->list_test_collections(list);
  ASSERT_EQ(found.data.size(), 1u);
  EXPECT_EQ(found.data[0].id, created.id);

  try {
    client_->get_test_collection(trunk::TestCollectionRef{"zzzzzzzz"});
    FAIL() << "an unknown collection was found";
  } catch (const trunk::NotFoundError& e) {
    EXPECT_EQ(e.code(), "TEST_COLLECTION_NOT_FOUND");
  }
}

TEST_F(TestsV2, CollectionRulesAreCheckedBeforeSendingAtTheirBoundaries) {
  trunk::CreateTestCollectionRequest create;
  create.name = std::string(trunk::kMaxCollectionNameLength, 'n');
  EXPECT_NO_THROW(client_->create_test_collection(create));
  create.name += "n";
  try {
    client_->create_test_collection(create);
    FAIL() << "a 101-character name was sent";
  } catch (const trunk::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("name"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at most 100 characters"), std::string::npos) << e.what();
  }
  // Characters, not bytes: 100 two-byte letters are a valid name.
  create.name.clear();
  for (int i = 0; i < 100; ++i) create.name += "\xC3\xA9";
  EXPECT_NO_THROW(client_->create_test_collection(create));
  create.name = "x";
  create.description = std::string(trunk::kMaxCollectionDescriptionLength + 1, 'd');
  EXPECT_THROW(client_->create_test_collection(create), trunk::ValidationError);
  create.description.reset();
  create.name = "";
  EXPECT_THROW(client_->create_test_collection(create), trunk::ValidationError);
  // Blank after trimming: the sandbox refuses it, as the service would.
  create.name = "   ";
  try {
    client_->create_test_collection(create);
    FAIL() << "a blank name was taken";
  } catch (const trunk::ApiError& e) {
    EXPECT_EQ(e.status_code(), 400);
  }
}

TEST_F(TestsV2, StatusAndQuarantineAgreeWithV1AtTheSameMoment) {
  trunk::ListTestCasesRequest request;
  request.test_collection_id = collection_id();
  const auto every = all(request);
  EXPECT_EQ(every.size(), sandbox_->test_ids(repo()).size());
  std::set<std::string> flaky, broken, quarantined;
  for (const auto& test : every) {
    if (test.status == TestHealth::flaky) flaky.insert(*test.id);
    if (test.status == TestHealth::broken) broken.insert(*test.id);
    if (test.quarantine_state == trunk::QuarantineState::quarantined) quarantined.insert(*test.id);
    EXPECT_EQ(test.repo_id, repo_id());
  }
  EXPECT_FALSE(flaky.empty());
  EXPECT_EQ(flaky, v1_unhealthy(repo(), trunk::HealthStatus::flaky));
  EXPECT_EQ(broken, v1_unhealthy(repo(), trunk::HealthStatus::broken));
  trunk::ListQuarantinedTestsRequest v1_quarantined;
  v1_quarantined.repo = repo();
  v1_quarantined.org_url_slug = sandbox_->org_url_slug();
  std::set<std::string> v1_ids;
  for (const auto& test : client_->pager<trunk::op::ListQuarantinedTests>(v1_quarantined)) v1_ids.insert(*test.test_case_id);
  EXPECT_EQ(quarantined, v1_ids);

  request.status = std::vector{TestHealth::flaky, TestHealth::broken};
  std::set<std::string> unhealthy = flaky;
  unhealthy.insert(broken.begin(), broken.end());
  EXPECT_EQ(ids(all(request)), unhealthy);
  request.status.reset();
  request.quarantine_state = trunk::QuarantineState::quarantined;
  EXPECT_EQ(ids(all(request)), quarantined);
}

TEST_F(TestsV2, MetricsOverSevenDaysAndOneDayAreV1sRatesAndCounts) {
  for (const std::string& id : sandbox_->test_ids(repo())) {
    const auto v1 = v1_details(id);
    const auto week = get(id, MetricsPeriod::seven_days);
    const auto day = get(id, MetricsPeriod::one_day);
    if (week.metrics) {
      EXPECT_DOUBLE_EQ(*week.metrics->failure_rate, *v1.failure_rate_last_7d) << id;
      EXPECT_EQ(week.metrics->prs_impacted, v1.pull_requests_impacted_last_7d) << id;
      EXPECT_LE(*week.metrics->failure_count, *week.metrics->run_count);
    } else {
      EXPECT_EQ(*v1.failure_rate_last_7d, 0.0) << id;
    }
    EXPECT_DOUBLE_EQ(day.metrics ? *day.metrics->failure_rate : 0.0, *v1.failure_rate_last_24h) << id;
    EXPECT_EQ(week.status, v1.status->value) << id;
  }
}

TEST_F(TestsV2, AMetricSortOrdersWorstFirstAndLeavesOutTestsWithoutAValue) {
  trunk::ListTestCasesRequest request;
  request.include = trunk::TestInclude::metrics;
  request.period = MetricsPeriod::thirty_days;
  request.sort = trunk::TestSort::failure_rate;
  const auto sorted = all(request);
  ASSERT_GT(sorted.size(), 2u);
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_GE(*sorted[i - 1].metrics->failure_rate, *sorted[i].metrics->failure_rate);
  }
  request.direction = trunk::SortDirection::asc;
  const auto ascending = all(request);
  EXPECT_LE(*ascending.front().metrics->failure_rate, *ascending.back().metrics->failure_rate);
  request.sort = trunk::TestSort::last_failure_at;
  for (const auto& test : all(request)) EXPECT_TRUE(test.metrics->last_failure_at.has_value()) << *test.id;
  // By name by default, ascending.
  trunk::ListTestCasesRequest by_name;
  by_name.test_collection_id = collection_id();
  const auto named = all(by_name);
  EXPECT_TRUE(std::is_sorted(named.begin(), named.end(), [](const auto& a, const auto& b) { return *a.name < *b.name; }));
}

TEST_F(TestsV2, SearchWordsMustAllBeFoundAndQualifiersNameTheirField) {
  trunk::ListTestCasesRequest request;
  request.test_collection_id = collection_id();
  const auto every = all(request);
  const auto& sample = every.front();
  const std::string file = *sample.file;
  request.q = "file:" + file;
  for (const auto& test : all(request)) EXPECT_NE(test.file->find(file), std::string::npos);
  EXPECT_TRUE(ids(all(request)).count(*sample.id));
  request.q = *sample.name + " no-such-word-anywhere";
  EXPECT_TRUE(all(request).empty());
  request.q.reset();
  request.label = "no label";
  EXPECT_TRUE(all(request).empty());
}

TEST_F(TestsV2, StatusHistoryIsAChainEndingInTheCurrentStatusAndASetStatusJoinsIt) {
  const auto ids_of_repo = sandbox_->test_ids(repo());
  bool saw_changes = false;
  for (const std::string& id : ids_of_repo) {
    const auto test = get(id);
    const auto entries = history(id);
    if (entries.empty()) {
      EXPECT_EQ(test.status, TestHealth::healthy) << id;
      EXPECT_FALSE(test.status_since.has_value()) << id;
      continue;
    }
    saw_changes = true;
    EXPECT_EQ(entries.front().to_status, test.status) << id;
    EXPECT_EQ(entries.front().started_at, test.status_since) << id;
    for (std::size_t i = 1; i < entries.size(); ++i) {
      EXPECT_EQ(entries[i - 1].from_status, entries[i].to_status) << id;  // newest first, no repeats
      EXPECT_GT(*entries[i - 1].started_at, *entries[i].started_at) << id;
    }
    EXPECT_EQ(entries.back().from_status, TestHealth::healthy) << id;
  }
  EXPECT_TRUE(saw_changes);

  // A status set through the sandbox (as a monitor would) is v1's and v2's, and the newest change.
  const std::string id = ids_of_repo.front();
  const auto before = get(id);
  const std::string target = before.status == TestHealth::broken ? "flaky" : "broken";
  ASSERT_TRUE(sandbox_->set_test_status(id, target));
  const auto after = get(id);
  EXPECT_EQ(trunk::to_wire(after.status->known().value()), target);
  EXPECT_EQ(v1_details(id).status->value, after.status);
  const auto entries = history(id);
  EXPECT_EQ(entries.front().from_status, before.status);
  EXPECT_EQ(entries.front().to_status, after.status);
  ASSERT_EQ(after.active_monitors.size(), 1u);
  EXPECT_EQ(after.active_monitors[0].active_since, entries.front().started_at);
}

TEST_F(TestsV2, RunsAreNewestFirstAndTheirCountsAreTheMetrics) {
  const std::string id = sandbox_->test_ids(repo()).front();
  const auto month = get(id, MetricsPeriod::thirty_days);
  trunk::ListTestRunsRequest request;
  request.test_id = id;
  request.limit = 7;
  const auto every = runs(request);
  ASSERT_TRUE(month.metrics.has_value());
  EXPECT_EQ(static_cast<std::int64_t>(every.size()), month.metrics->run_count);
  for (std::size_t i = 1; i < every.size(); ++i) EXPECT_GE(*every[i - 1].started_at, *every[i].started_at);
  for (const auto& run : every) EXPECT_GT(*run.ended_at, *run.started_at);
  request.conclusion = trunk::TestRunConclusion::failure;
  EXPECT_EQ(static_cast<std::int64_t>(runs(request).size()), month.metrics->failure_count);
  request.conclusion.reset();
  // Globs over the branches: the first run's own branch, and a pattern no branch matches.
  request.branches = std::vector<std::string>{*every.front().branch};
  for (const auto& run : runs(request)) EXPECT_EQ(run.branch, every.front().branch);
  request.branches = std::vector<std::string>{"release-?", "main"};
  EXPECT_TRUE(runs(request).empty());
  request.branches = std::vector<std::string>{"pr-*"};
  EXPECT_EQ(runs(request).size(), every.size());
  request.pull_request_only = true;  // an alternative to branches, never both
  EXPECT_THROW(runs(request), trunk::ValidationError);
  request.branches.reset();
  EXPECT_EQ(runs(request).size(), every.size());
}

TEST_F(TestsV2, ALinkedTicketIsV1sTooAndNeedsItsPermission) {
  const std::string id = sandbox_->test_ids(repo()).back();
  trunk::LinkTicketRequest link;
  link.test_id = id;
  link.external_ticket_id = "KAN-42";
  const auto ticket = client_->link_ticket_to_test(link);
  EXPECT_EQ(ticket.key, "KAN-42");
  EXPECT_EQ(ticket.provider, trunk::TicketProvider::jira_cloud);
  EXPECT_EQ(v1_details(id).ticket->html_url, ticket.url);

  link.external_ticket_id = std::string(trunk::kMaxExternalTicketIdLength + 1, 'k');
  EXPECT_THROW(client_->link_ticket_to_test(link), trunk::ValidationError);
  link.external_ticket_id = "KAN-43";
  link.integration_id = "not-a-uuid";
  EXPECT_THROW(client_->link_ticket_to_test(link), trunk::ValidationError);
  link.integration_id.reset();

  EXPECT_THROW(client_with({trunk::sandbox::Permission::quarantine_tests})->link_ticket_to_test(link),
               trunk::PermissionDeniedError);
  EXPECT_EQ(v1_details(id).ticket->html_url, ticket.url);  // unchanged
  link.test_id = "00000000-0000-4000-8000-000000000000";
  EXPECT_EQ(not_found_code([&] { client_->link_ticket_to_test(link); }), "TEST_CASE_NOT_FOUND");
}

TEST_F(TestsV2, AQuarantineOverrideDecidesBothVersionsUntilCleared) {
  using Mode = trunk::QuarantineOverrideMode;
  const auto before = v1_quarantined();
  std::string free_id, quarantined_id;  // one test of each kind, in v1's words
  for (const std::string& id : sandbox_->test_ids(repo())) {
    (before.count(id) ? quarantined_id : free_id) = id;
  }
  ASSERT_FALSE(free_id.empty());
  ASSERT_FALSE(quarantined_id.empty());
  const auto runs_before = runs(trunk::ListTestRunsRequest{free_id});

  // alwaysQuarantine: quarantined in both versions from now on, dated by the override.
  const auto set = set_quarantine(free_id, Mode::always_quarantine, "flaky in CI");
  ASSERT_TRUE(set.quarantine_override.has_value());
  EXPECT_EQ(set.quarantine_override->mode, trunk::QuarantineMode::always_quarantine);
  EXPECT_EQ(set.quarantine_override->reason, "flaky in CI");
  EXPECT_EQ(set.quarantine_override->created_at, sandbox_->clock_now());
  EXPECT_EQ(set.quarantine_state, trunk::QuarantineState::quarantined);
  EXPECT_EQ(set.quarantined_since, sandbox_->clock_now());
  EXPECT_EQ(get(free_id), set);
  EXPECT_TRUE(v1_details(free_id).quarantined.value_or(false));
  const auto listed = v1_quarantined();
  ASSERT_EQ(listed.count(free_id), 1u);
  EXPECT_EQ(listed.at(free_id).quarantine_setting, trunk::QuarantineSetting::always_quarantine);
  EXPECT_EQ(listed.at(free_id).quarantined_at, set.quarantined_since);
  EXPECT_EQ(listed.size(), before.size() + 1);
  trunk::ListTestCasesRequest only_quarantined;
  only_quarantined.quarantine_state = trunk::QuarantineState::quarantined;
  EXPECT_EQ(ids(all(only_quarantined)).count(free_id), 1u);
  // A run's quarantine is the one in force when it ran: the history's runs all came before the override.
  EXPECT_EQ(runs(trunk::ListTestRunsRequest{free_id}), runs_before);

  // The same mode again changes nothing, its reason and time included (idempotent by state).
  sandbox_->advance(std::chrono::minutes(5));
  const auto again = set_quarantine(free_id, Mode::always_quarantine, "another reason");
  EXPECT_EQ(again.quarantine_override, set.quarantine_override);

  // neverQuarantine takes a quarantined test out of both versions; clear hands the decision back.
  const auto never = set_quarantine(quarantined_id, Mode::never_quarantine);
  EXPECT_EQ(never.quarantine_override->mode, trunk::QuarantineMode::never_quarantine);
  EXPECT_FALSE(never.quarantine_override->reason.has_value());
  EXPECT_EQ(never.quarantine_state, trunk::QuarantineState::not_quarantined);
  EXPECT_FALSE(never.quarantined_since.has_value());
  EXPECT_FALSE(v1_details(quarantined_id).quarantined.value_or(true));
  EXPECT_EQ(v1_quarantined().count(quarantined_id), 0u);
  const auto cleared = set_quarantine(quarantined_id, Mode::clear);
  EXPECT_FALSE(cleared.quarantine_override.has_value());
  EXPECT_EQ(cleared.quarantine_state, trunk::QuarantineState::quarantined);
  EXPECT_EQ(v1_quarantined().at(quarantined_id), before.at(quarantined_id));
  set_quarantine(free_id, Mode::clear);
  EXPECT_EQ(v1_quarantined(), before);
  EXPECT_EQ(get(free_id).quarantine_state, trunk::QuarantineState::not_quarantined);
}

TEST_F(TestsV2, AQuarantineOverridesReasonIsCheckedAtItsBoundariesAndNeedsItsPermission) {
  using Mode = trunk::QuarantineOverrideMode;
  const std::string id = sandbox_->test_ids(repo()).front();
  EXPECT_EQ(set_quarantine(id, Mode::always_quarantine, std::string(trunk::kMaxQuarantineReasonLength, 'r'))
                .quarantine_override->reason->size(),
            trunk::kMaxQuarantineReasonLength);
  std::string two_byte_letters;  // characters, not bytes: 1000 of them are a valid reason
  for (std::size_t i = 0; i < trunk::kMaxQuarantineReasonLength; ++i) two_byte_letters += "\xC3\xA9";
  EXPECT_NO_THROW(set_quarantine(id, Mode::never_quarantine, two_byte_letters));
  for (const std::string& bad : {std::string(trunk::kMaxQuarantineReasonLength + 1, 'r'), std::string()}) {
    try {
      set_quarantine(id, Mode::always_quarantine, bad);
      ADD_FAILURE() << "a reason of " << bad.size() << " characters was sent";
    } catch (const trunk::ValidationError& e) {
      ASSERT_EQ(e.violations().size(), 1u) << e.what();
      EXPECT_EQ(e.violations()[0].field, "reason");
    }
  }
  EXPECT_EQ(get(id).quarantine_override->mode, trunk::QuarantineMode::never_quarantine);  // nothing was sent

  trunk::SetTestQuarantineRequest request;
  request.test_id = id;
  request.mode = Mode::clear;
  EXPECT_THROW(client_with({trunk::sandbox::Permission::link_tickets})->set_test_quarantine(request),
               trunk::PermissionDeniedError);
  EXPECT_EQ(get(id).quarantine_override->mode, trunk::QuarantineMode::never_quarantine);  // unchanged
  EXPECT_FALSE(client_with({trunk::sandbox::Permission::quarantine_tests})
                   ->set_test_quarantine(request)
                   .quarantine_override.has_value());

  request.test_id = "00000000-0000-4000-8000-000000000000";
  EXPECT_EQ(not_found_code([&] { client_->set_test_quarantine(request); }), "TEST_CASE_NOT_FOUND");
}

TEST_F(TestsV2, MetricsNeedAPeriodAndTheOldPathsAnswerAsAliases) {
  trunk::GetTestCaseRequest request;
  request.test_id = sandbox_->test_ids(repo()).front();
  request.include = trunk::TestInclude::metrics;
  try {
    client_->get_test_case(request);
    FAIL() << "include without period was sent";
  } catch (const trunk::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("include"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs period"), std::string::npos) << e.what();
  }
  trunk::ListTestCasesRequest list;
  list.sort = trunk::TestSort::prs_impacted;
  EXPECT_THROW(client_->list_test_cases(list), trunk::ValidationError);
  list.sort = trunk::TestSort::name;
  EXPECT_NO_THROW(client_->list_test_cases(list));
  list.newly_flaky = true;
  EXPECT_THROW(client_->list_test_cases(list), trunk::ValidationError);

  httplib::Client http(sandbox_->url());
  const httplib::Headers bearer{{"Authorization", "Bearer " + sandbox_->api_key()}};
  const auto now = http.Get("/v2/tests/" + request.test_id + "?include=metrics&period=7d", bearer);
  const auto old = http.Get("/v2/test-cases/" + request.test_id + "?include=metrics&period=7d", bearer);
  ASSERT_TRUE(now && old);
  EXPECT_EQ(now->status, 200);
  EXPECT_EQ(old->status, 200);
  EXPECT_EQ(Json::parse(old->body), Json::parse(now->body));
  // Required fields the description allows as null are sent as null.
  const Json test = Json::parse(now->body);
  EXPECT_TRUE(test.contains("crossVariantId") && test["crossVariantId"].is_null()) << now->body;
  EXPECT_TRUE(test.contains("quarantineOverride") && test["quarantineOverride"].is_null()) << now->body;
  const auto bad = http.Get("/v2/test-cases?period=2d", bearer);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(http.Get("/v2/test-casesx", bearer)->status, 404);
}

}  // namespace
}  // namespace sandbox_test
