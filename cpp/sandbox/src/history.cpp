#include "history.hpp"
#include "quarantine_override.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace trunk::sandbox {

std::int64_t to_micros(trunk::Timestamp t) noexcept { return t.time_since_epoch().count(); }
trunk::Timestamp from_micros(std::int64_t us) noexcept { return trunk::Timestamp(std::chrono::microseconds(us)); }

namespace {
// Runs are sorted by time: the first run at or after `t`.
std::vector<Run>::const_iterator first_at_or_after(const std::vector<Run>& runs, std::int64_t t) {
  return std::lower_bound(runs.begin(), runs.end(), t, [](const Run& r, std::int64_t v) { return r.time_us < v; });
}
}  // namespace

Health health_at(const TestRecord& test, std::int64_t at_us) noexcept {
  // A trailing streak of failures means broken; failures mixed with passes in the last 7 days mean flaky.
  const auto end = first_at_or_after(test.runs, at_us);
  std::size_t streak = 0;
  for (auto it = end; it != test.runs.begin() && streak < kBrokenStreak;) {
    if (!(--it)->failed()) break;
    ++streak;
  }
  if (streak >= kBrokenStreak) return Health::broken;
  int runs_7d = 0, fails_7d = 0;
  for (auto it = first_at_or_after(test.runs, at_us - kWeekUs); it != end; ++it) {
    ++runs_7d;
    if (it->failed()) ++fails_7d;
  }
  return fails_7d >= kFlakyMinFailures && runs_7d > fails_7d ? Health::flaky : Health::healthy;
}

bool failed_in(const TestRecord& test, std::int64_t start_us, std::int64_t end_us) noexcept {
  for (auto it = first_at_or_after(test.runs, start_us); it != test.runs.end() && it->time_us < end_us; ++it) {
    if (it->failed()) return true;
  }
  return false;
}

std::string_view health_wire(Health health) noexcept {
  switch (health) {
    case Health::flaky: return "flaky";
    case Health::broken: return "broken";
    case Health::healthy: break;
  }
  return "healthy";
}

trunk::QuarantinedTestStatus status_of(Health health) noexcept {
  switch (health) {
    case Health::flaky: return trunk::QuarantinedTestStatus::flaky;
    case Health::broken: return trunk::QuarantinedTestStatus::broken;
    case Health::healthy: break;
  }
  return trunk::QuarantinedTestStatus::healthy;
}

Health health_of(trunk::QuarantinedTestStatus status) noexcept {
  switch (status) {
    case trunk::QuarantinedTestStatus::flaky: return Health::flaky;
    case trunk::QuarantinedTestStatus::broken: return Health::broken;
    case trunk::QuarantinedTestStatus::healthy: break;
  }
  return Health::healthy;
}

DerivedFacts derive(const RepoHistory& repo, const TestRecord& test, trunk::Timestamp now) {
  DerivedFacts facts;
  const std::int64_t now_us = to_micros(now);
  const auto& runs = test.runs;

  int runs_7d = 0, fails_7d = 0, runs_24h = 0, fails_24h = 0;
  std::set<std::uint32_t> prs;
  std::int64_t first_failure_7d = -1;
  for (auto it = first_at_or_after(runs, now_us - kWeekUs); it != runs.end() && it->time_us < now_us; ++it) {
    ++runs_7d;
    const bool in_day = it->time_us >= now_us - kDayUs;
    if (in_day) ++runs_24h;
    if (!it->failed()) continue;
    ++fails_7d;
    if (first_failure_7d < 0) first_failure_7d = it->time_us;
    if (in_day) ++fails_24h;
    prs.insert(it->pull_request);
  }
  facts.failure_rate_last_7d = runs_7d == 0 ? 0.0 : static_cast<double>(fails_7d) / runs_7d;
  facts.failure_rate_last_24h = runs_24h == 0 ? 0.0 : static_cast<double>(fails_24h) / runs_24h;
  facts.pull_requests_impacted_last_7d = static_cast<std::int64_t>(prs.size());

  // Most common failures over the whole history: count and last occurrence per failure message.
  std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> by_kind;  // kind -> (count, last time)
  for (const Run& run : runs) {
    if (!run.failed() || run.time_us >= now_us) continue;
    auto& [count, last] = by_kind[run.failure];
    ++count;
    last = std::max(last, run.time_us);
  }
  std::vector<std::pair<std::int32_t, std::pair<std::int64_t, std::int64_t>>> kinds(by_kind.begin(), by_kind.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) {
    if (a.second.first != b.second.first) return a.second.first > b.second.first;
    return a.second.second > b.second.second;
  });
  for (std::size_t i = 0; i < kinds.size() && i < kMaxCommonFailures; ++i) {
    trunk::FailureSummary summary;
    const auto kind = static_cast<std::size_t>(kinds[i].first);
    summary.summary = kind < repo.failure_messages.size() ? repo.failure_messages[kind] : std::string("unknown failure");
    summary.occurrence_count = kinds[i].second.first;
    summary.last_occurrence = from_micros(kinds[i].second.second);
    facts.most_common_failures.push_back(std::move(summary));
  }

  // Classification (health_at); then why, and since when.
  facts.health = health_at(test, now_us);
  std::size_t streak = 0;
  auto end = first_at_or_after(runs, now_us);
  for (auto it = end; it != runs.begin();) {
    --it;
    if (!it->failed()) break;
    ++streak;
  }
  if (facts.health == Health::broken) {
    facts.reason = "failed the last " + std::to_string(streak) + " runs in a row";
    facts.status_since = from_micros((end - static_cast<std::ptrdiff_t>(streak))->time_us);
  } else if (facts.health == Health::flaky) {
    facts.reason = "failed " + std::to_string(fails_7d) + " of " + std::to_string(runs_7d) +
                   " runs in the last 7 days, passing on other runs of the same code";
    facts.status_since = from_micros(first_failure_7d);
  } else {
    facts.reason = "";
    // Healthy since the first run after the most recent failure (or since the first run at all).
    std::int64_t since = runs.empty() ? now_us : runs.front().time_us;
    for (auto it = end; it != runs.begin();) {
      --it;
      if (it->failed()) {
        if (it + 1 != end) since = (it + 1)->time_us;
        break;
      }
    }
    facts.status_since = from_micros(since);
  }
  return facts;
}

std::string test_html_url(const RepoHistory& repo, const TestRecord& test, const std::string& org_url_slug) {
  return "https://app.trunk.io/" + org_url_slug + "/flaky-tests/test/" + test.id + "?repo=" + repo.repo.to_string();
}

trunk::TestCase to_test_case(const RepoHistory& repo, const TestRecord& test, const DerivedFacts& facts,
                             const std::string& org_url_slug, bool with_failure_fields) {
  trunk::TestCase out;
  out.id = test.id;
  out.repository = trunk::RepositoryRef{repo.html_url, nullptr};
  out.html_url = test_html_url(repo, test, org_url_slug);
  out.name = test.name;
  out.variant = test.variant;
  trunk::TestStatus status;
  status.value = trunk::OpenEnum<trunk::TestHealth>::from_wire(health_wire(facts.health));
  status.reason = facts.reason;
  status.timestamp = facts.status_since;
  out.status = std::move(status);
  if (with_failure_fields) {
    out.most_common_failures = facts.most_common_failures;
    out.failure_rate_last_7d = facts.failure_rate_last_7d;
    out.failure_rate_last_24h = facts.failure_rate_last_24h;
  }
  out.codeowners = test.codeowners;
  out.pull_requests_impacted_last_7d = facts.pull_requests_impacted_last_7d;
  out.quarantined = test.quarantined;
  out.file_path = test.file_path;
  out.parent = test.parent;
  out.classname = test.classname;
  if (!test.ticket_url.empty()) out.ticket = trunk::TicketRef{test.ticket_url, nullptr};
  return out;
}

trunk::QuarantinedTest to_quarantined_test(const TestRecord& test, const DerivedFacts& facts,
                                           const std::optional<QuarantineOverride>& override) {
  trunk::QuarantinedTest out;
  out.name = test.name;
  out.parent = test.parent;
  out.file = test.file_path;
  out.classname = test.classname;
  out.status = status_of(facts.health);
  out.codeowners = test.codeowners;
  out.quarantine_setting = (override && override->always) || facts.health == Health::healthy
                               ? trunk::QuarantineSetting::always_quarantine
                               : trunk::QuarantineSetting::auto_quarantine;
  out.quarantined_at = quarantined_since(test, override).value_or(facts.status_since);
  out.status_last_updated_at = facts.status_since;
  out.test_case_id = test.id;
  out.variant = test.variant;
  return out;
}

}  // namespace trunk::sandbox
