// The sandbox's v2 tests (docs/sandbox.md#flaky-tests-in-v2): the tests v1 serves (TestLedger), as v2 shows them.
// A test's status is v1's health at the same moment, its status history health_at replayed over its runs
// (test_timeline.hpp) ending in any status set since, its metrics its runs over the period, its ticket v1's.
#include <algorithm>
#include <sstream>

#include "failure_model.hpp"
#include "identifiers.hpp"
#include "monitor_mutes.hpp"
#include "test_timeline.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

constexpr std::int64_t kPeriodDays[] = {1, 7, 14, 30};  // MetricsPeriod's order

std::int64_t period_us(trunk::MetricsPeriod period) {
  return kPeriodDays[static_cast<std::size_t>(period)] * kDayUs;
}

/// v2 spells a test's status as v1 does (health_wire), so v1's spelling is read back, not mapped again here.
trunk::TestHealth to_wire_health(Health health) {
  return trunk::enum_from_wire<trunk::TestHealth>(health_wire(health)).value_or(trunk::TestHealth::healthy);
}

/// The status changes of a test up to now: its runs' (status_changes) up to the history's now, then the status set
/// since, if any, then its monitors' mutes up to the clock's now (monitor_mutes.hpp).
std::vector<StatusChange> changes_of(const TestLedger::Entry& entry, std::int64_t now_us, const TestLedger& tests) {
  std::vector<StatusChange> changes = status_changes(*entry.test, now_us);
  if (entry.set_health && entry.set_at) {
    const Health before = changes.empty() ? Health::healthy : changes.back().to;
    if (before != *entry.set_health) changes.push_back({to_micros(*entry.set_at), before, *entry.set_health});
  }
  if (entry.mutes.empty()) return changes;
  return apply_mutes(changes, test_collection_id(entry.repo->repo.to_string()), entry.mutes,
                     to_micros(tests.clock_now()));
}

/// `*` any run of characters, `?` exactly one (the description's branch globs).
bool glob_matches(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool contains_any_case(const std::string& text, const std::string& lowered_part) {
  return lower(text).find(lowered_part) != std::string::npos;
}

/// The description's `q`: every word must be found, in any case, in the name, file, class or parent; a word
/// `file:x`, `class:x`, `parent:x` or `name:x` only in that field (keys in lower case; another prefix is text).
bool matches_search(const TestRecord& test, const std::string& q) {
  std::istringstream words(q);
  std::string word;
  while (words >> word) {
    const auto colon = word.find(':');
    const std::string key = colon == std::string::npos ? "" : word.substr(0, colon);
    const std::string part = lower(colon == std::string::npos ? word : word.substr(colon + 1));
    bool found = false;
    if (key == "file") {
      found = contains_any_case(test.file_path, part);
    } else if (key == "class") {
      found = contains_any_case(test.classname, part);
    } else if (key == "parent") {
      found = contains_any_case(test.parent, part);
    } else if (key == "name") {
      found = contains_any_case(test.name, part);
    } else {
      const std::string whole = lower(word);
      found = contains_any_case(test.name, whole) || contains_any_case(test.file_path, whole) ||
              contains_any_case(test.classname, whole) || contains_any_case(test.parent, whole);
    }
    if (!found) return false;
  }
  return true;
}

/// The branch a run ran on: every run of the history is a pull request's.
std::string branch_of(std::uint32_t pull_request) { return "pr-" + std::to_string(pull_request); }


}  // namespace

std::optional<PeriodMetrics> V2Service::metrics_of(const TestRecord& test, trunk::MetricsPeriod period) const {
  const auto key = std::pair{&test, period};
  {
    std::lock_guard lock(metrics_mutex_);
    if (const auto found = metrics_.find(key); found != metrics_.end()) return found->second;
  }
  auto computed = metrics_over(test, to_micros(tests_.tests_now()), period_us(period));
  std::lock_guard lock(metrics_mutex_);
  return metrics_.emplace(key, std::move(computed)).first->second;
}

trunk::TestCaseSummary V2Service::to_test_summary(const TestLedger::Entry& entry,
                                                  std::optional<trunk::MetricsPeriod> period) const {
  const TestRecord& test = *entry.test;
  const std::string repo_key = entry.repo->repo.to_string();
  const std::int64_t now_us = to_micros(tests_.tests_now());
  trunk::TestCaseSummary out;
  out.id = test.id;
  out.test_collection_id = test_collection_id(repo_key);
  out.repo_id = repository_id(repo_key);
  out.name = test.name;
  out.parent_name = test.parent;
  out.class_name = test.classname;
  out.file = test.file_path;
  out.target = "";
  out.variant = test.variant;
  out.codeowners = test.codeowners;
  out.status = to_wire_health(entry.health());
  // When the status last changed; null for a test never classified (no change at all).
  const auto changes = changes_of(entry, now_us, tests_);
  if (!changes.empty()) out.status_since = from_micros(changes.back().at_us);
  out.quarantine_state =
      entry.quarantined() ? trunk::QuarantineState::quarantined : trunk::QuarantineState::not_quarantined;
  out.quarantined_since = quarantined_since(test, entry.quarantine_override);  // as v1's quarantined_at
  out.url = tests_.test_url(entry);
  if (period) {
    if (const auto metrics = metrics_of(test, *period)) {
      trunk::TestCaseMetrics m;
      m.failure_rate = metrics->failure_rate();
      m.prs_impacted = metrics->prs_impacted;
      m.run_count = metrics->runs;
      m.failure_count = metrics->failures;
      m.duration_p95_ms = metrics->duration_p95_ms;
      m.last_run_at = from_micros(metrics->last_run_us);
      if (metrics->last_failure_us) m.last_failure_at = from_micros(*metrics->last_failure_us);
      out.metrics = std::move(m);
    }
  }
  return out;
}

Reply V2Service::test_case_reply(const TestLedger::Entry& entry, std::optional<trunk::MetricsPeriod> period) const {
  trunk::TestCaseSummary summary = to_test_summary(entry, period);
  trunk::TestCaseV2 out;
  trunk::schema::for_each_field<trunk::TestCaseSummary>([&](const auto& field) {
    // The summary's fields are the first of TestCaseV2's, under the same names (test_case_v2.hpp).
    trunk::schema::for_each_field<trunk::TestCaseV2>([&](const auto& whole) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(summary.*(field.member))>,
                                   std::remove_cvref_t<decltype(out.*(whole.member))>>) {
        if (field.wire == whole.wire) out.*(whole.member) = std::move(summary.*(field.member));
      }
    });
  });
  if (const auto& override = entry.quarantine_override) {
    trunk::QuarantineOverride shown;
    shown.mode = override->always ? trunk::QuarantineMode::always_quarantine : trunk::QuarantineMode::never_quarantine;
    shown.reason = override->reason;
    shown.created_at = override->since;
    out.quarantine_override = std::move(shown);
  }
  const TestRecord& test = *entry.test;
  if (const auto monitor = classifying_monitor(*out.test_collection_id, entry.health())) {
    trunk::ActiveMonitor active;
    active.monitor_id = monitor->id;
    active.monitor_type = monitor->type;
    active.active_since = out.status_since;
    out.active_monitors.push_back(std::move(active));
  }
  if (!test.runs.empty()) out.first_seen_at = from_micros(test.runs.front().time_us);
  const std::int64_t now_us = to_micros(tests_.tests_now());
  for (auto run = test.runs.rbegin(); run != test.runs.rend(); ++run) {
    if (run->time_us < now_us && run->failed()) {
      out.last_failure_at = from_micros(run->time_us);
      break;
    }
  }
  trunk::Json json = v2::answer_json(out);
  if (period && !out.metrics) json["metrics"] = nullptr;  // asked for, and no run in the period
  return json_reply(json);
}

template <>
Reply V2Service::answer<trunk::op::GetTestCase>(const trunk::GetTestCaseRequest& request) {
  const auto entry = tests_.find_test(request.test_id);
  if (!entry) return v2_error(404, "TEST_CASE_NOT_FOUND", "no test has the id " + request.test_id);
  return test_case_reply(*entry, request.include ? request.period : std::nullopt);
}

template <>
Reply V2Service::answer<trunk::op::SetTestQuarantine>(const trunk::SetTestQuarantineRequest& request) {
  const auto entry = tests_.find_test(request.test_id);
  if (!entry) return v2_error(404, "TEST_CASE_NOT_FOUND", "no test has the id " + request.test_id);
  // Idempotent by state: the mode it already has leaves the override as it was. Trunk's docs say a change made with
  // an API key sends no webhook yet, so none is sent.
  tests_.set_quarantine_override(entry->test->id, override_of(request.mode, request.reason, clock_()));
  return test_case_reply(*tests_.find_test(request.test_id), std::nullopt);
}

template <>
Reply V2Service::answer<trunk::op::ListTestCases>(const trunk::ListTestCasesRequest& request) {
  const std::int64_t now_us = to_micros(tests_.tests_now());
  const std::optional<std::int64_t> window =
      request.period ? std::optional(period_us(*request.period)) : std::nullopt;
  const trunk::TestSort sort = request.sort.value_or(trunk::TestSort::name);
  struct Row {
    TestLedger::Entry entry;
    std::optional<PeriodMetrics> metrics;
  };
  std::vector<Row> rows;
  const RepoHistory* last_repo = nullptr;  // the collection is the repository's: decided once per repository
  bool repo_selected = true;
  tests_.for_each_test([&](const TestLedger::Entry& entry) {
    const TestRecord& test = *entry.test;
    if (entry.repo != last_repo) {
      last_repo = entry.repo;
      repo_selected = !request.test_collection_id ||
                      *request.test_collection_id == test_collection_id(entry.repo->repo.to_string());
    }
    if (!repo_selected) return;
    if (request.status && std::find(request.status->begin(), request.status->end(), to_wire_health(entry.health())) ==
                              request.status->end()) {
      return;
    }
    if (request.q && !matches_search(test, *request.q)) return;
    if (request.file && test.file_path.find(*request.file) == std::string::npos) return;
    if (request.owner && std::find(test.codeowners.begin(), test.codeowners.end(), *request.owner) ==
                             test.codeowners.end()) {
      return;
    }
    if (request.variant && test.variant != *request.variant) return;
    if (request.label) return;  // the sandbox's tests carry no label
    if (request.marked_flaky == true) return;  // nor the manual flaky mark
    if (request.quarantine_state &&
        (*request.quarantine_state == trunk::QuarantineState::quarantined) != entry.quarantined()) {
      return;
    }
    if (request.newly_flaky == true && window) {
      // First became flaky inside the period.
      const auto changes = changes_of(entry, now_us, tests_);
      const auto first = std::find_if(changes.begin(), changes.end(),
                                      [](const StatusChange& c) { return c.to == Health::flaky; });
      if (first == changes.end() || first->at_us < now_us - *window) return;
    }
    // The metrics only where the sort needs them (the page's rows get theirs from to_test_summary).
    Row row{entry, sort != trunk::TestSort::name && request.period ? metrics_of(test, *request.period) : std::nullopt};
    if (sort != trunk::TestSort::name) {
      // A metric sort leaves out the tests without a value to compare.
      if (!row.metrics || (sort == trunk::TestSort::last_failure_at && !row.metrics->last_failure_us)) return;
    }
    rows.push_back(std::move(row));
  });
  // The metric of a sort, as a number to compare; ties by name, then id.
  const auto key = [sort](const Row& row) -> double {
    const PeriodMetrics& m = *row.metrics;
    switch (sort) {
      case trunk::TestSort::failure_rate: return m.failure_rate();
      case trunk::TestSort::duration_p95: return static_cast<double>(m.duration_p95_ms);
      case trunk::TestSort::prs_impacted: return static_cast<double>(m.prs_impacted);
      case trunk::TestSort::last_run_at: return static_cast<double>(m.last_run_us);
      case trunk::TestSort::last_failure_at: return static_cast<double>(*m.last_failure_us);
      case trunk::TestSort::name: break;
    }
    return 0;
  };
  const bool descending =
      request.direction ? *request.direction == trunk::SortDirection::desc : sort != trunk::TestSort::name;
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (sort != trunk::TestSort::name) {
      const double x = key(a), y = key(b);
      if (x != y) return descending ? x > y : x < y;
    }
    const auto by_name = std::tie(a.entry.test->name, a.entry.test->id);
    const auto other = std::tie(b.entry.test->name, b.entry.test->id);
    return sort == trunk::TestSort::name && descending ? other < by_name : by_name < other;
  });
  const std::optional<trunk::MetricsPeriod> embed = request.include ? request.period : std::nullopt;
  auto page = v2::page_of<trunk::TestCaseList>(rows.size(), request, v2::filter_of("tests", request), [&](std::size_t i) {
    return to_test_summary(rows[i].entry, embed);
  });
  if (const auto* list = std::get_if<trunk::TestCaseList>(&page); list && embed) {
    // Asked for: null for a test with no run in the period.
    trunk::Json json = v2::answer_json(*list);
    for (auto& item : json["data"]) {
      if (!item.contains("metrics")) item["metrics"] = nullptr;
    }
    return json_reply(json);
  }
  return v2::page_reply(page);
}

template <>
Reply V2Service::answer<trunk::op::ListTestStatusHistory>(const trunk::TestStatusHistoryRequest& request) {
  const auto entry = tests_.find_test(request.test_id);
  if (!entry) return v2_error(404, "TEST_CASE_NOT_FOUND", "no test has the id " + request.test_id);
  const std::string collection = test_collection_id(entry->repo->repo.to_string());
  std::vector<StatusChange> changes = changes_of(*entry, to_micros(tests_.tests_now()), tests_);
  std::vector<trunk::StatusHistoryEntry> rows;
  for (auto change = changes.rbegin(); change != changes.rend(); ++change) {  // newest first
    const trunk::Timestamp at = from_micros(change->at_us);
    if (request.started_after && at < *request.started_after) continue;
    if (request.started_before && at >= *request.started_before) continue;
    trunk::StatusHistoryEntry row;
    row.id = uuid_of("status change\n" + entry->test->id + "\n" + std::to_string(change->at_us));
    row.from_status = to_wire_health(change->from);
    row.to_status = to_wire_health(change->to);
    if (const auto monitor = classifying_monitor(collection, change->to)) {
      trunk::ClassifyingMonitor classifying;
      classifying.monitor_id = monitor->id;
      classifying.monitor_type = monitor->type;
      row.active_monitors.push_back(std::move(classifying));
    }
    row.started_at = at;
    rows.push_back(std::move(row));
  }
  return v2::page_reply(
      v2::page_of<trunk::StatusHistoryEntryList>(std::move(rows), request, v2::filter_of("status history", request)));
}

template <>
Reply V2Service::answer<trunk::op::ListTestRuns>(const trunk::ListTestRunsRequest& request) {
  const auto entry = tests_.find_test(request.test_id);
  if (!entry) return v2_error(404, "TEST_CASE_NOT_FOUND", "no test has the id " + request.test_id);
  const TestRecord& test = *entry->test;
  const RepoHistory& repo = *entry->repo;
  const std::int64_t now_us = to_micros(tests_.tests_now());
  // A run's quarantine is the one in force when it ran.
  const auto quarantine_of = [&](const Run& run) {
    return quarantined_at_run(test, entry->quarantine_override, run.time_us) ? trunk::QuarantineState::quarantined
                                                                              : trunk::QuarantineState::not_quarantined;
  };
  std::vector<std::size_t> selected;  // run indices, newest first
  for (std::size_t i = test.runs.size(); i-- > 0;) {
    const Run& run = test.runs[i];
    if (run.time_us >= now_us) continue;
    const trunk::Timestamp at = from_micros(run.time_us);
    if (request.conclusion &&
        *request.conclusion != (run.failed() ? trunk::TestRunConclusion::failure : trunk::TestRunConclusion::success)) {
      continue;
    }
    if (request.branches && std::none_of(request.branches->begin(), request.branches->end(), [&](const auto& glob) {
          return glob_matches(glob, branch_of(run.pull_request));
        })) {
      continue;
    }
    if (request.quarantine_state && *request.quarantine_state != quarantine_of(run)) continue;
    if (request.started_after && at < *request.started_after) continue;
    if (request.started_before && at >= *request.started_before) continue;
    selected.push_back(i);
  }
  const std::string repo_key = repo.repo.to_string();
  auto page = v2::page_of<trunk::TestRunList>(selected.size(), request, v2::filter_of("test runs", request),
                                              [&](std::size_t n) {
    const std::size_t i = selected[n];
    const Run& run = test.runs[i];
    trunk::TestRunV2 out;
    out.id = uuid_of("test run\n" + test.id + "\n" + std::to_string(i));
    out.conclusion = run.failed() ? trunk::TestRunConclusion::failure : trunk::TestRunConclusion::success;
    out.branch = branch_of(run.pull_request);
    out.is_pull_request = true;
    out.sha = hex40(text_hash(repo_key + "\npull request\n" + std::to_string(run.pull_request)));
    out.quarantine_state = quarantine_of(run);
    out.status_at_run_time = to_wire_health(health_at(test, run.time_us));
    out.started_at = from_micros(run.time_us);
    out.ended_at = from_micros(run.time_us + run_duration_ms(test, i) * 1000);
    out.pull_request = trunk::TestRunPullRequest{run.pull_request, repo.html_url + "/pull/" +
                                                                       std::to_string(run.pull_request), {}};
    out.build_url = repo.html_url + "/actions/runs/" + std::to_string(text_hash(test.id + std::to_string(i)) % 1'000'000'000);
    out.workflow = "CI";
    out.job_name = "test";
    return out;
  });
  return v2::page_reply(page);
}

template <>
Reply V2Service::answer<trunk::op::LinkTicketToTest>(const trunk::LinkTicketRequest& request) {
  const auto entry = tests_.find_test(request.test_id);
  if (!entry) return v2_error(404, "TEST_CASE_NOT_FOUND", "no test has the id " + request.test_id);
  // The sandbox's one ticketing connection takes any integrationId; the ticket is v1's from now on too.
  tests_.link_ticket(entry->test->id, request.external_ticket_id);
  const std::string& given = request.external_ticket_id;
  const bool address = given.starts_with("https://") || given.starts_with("http://");
  trunk::Ticket ticket;
  ticket.key = address ? given.substr(given.find_last_of('/') + 1) : given;
  ticket.id = uuid_of("ticket\n" + given);
  ticket.provider = given.find("linear.app") != std::string::npos  ? trunk::TicketProvider::linear
                    : given.find("asana.com") != std::string::npos ? trunk::TicketProvider::asana
                                                                   : trunk::TicketProvider::jira_cloud;
  ticket.url = tests_.ticket_url(given);
  ticket.title = "Fix " + entry->test->name;
  ticket.status = "To Do";
  ticket.synced_at = clock_();
  return json_reply(v2::answer_json(ticket), 201);
}

}  // namespace trunk::sandbox
