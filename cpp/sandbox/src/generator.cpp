// The model behind the generated history:
//  - each repository has CI pipelines at random times over the last 30 days (about 4 a day), each for a pull
//    request (numbers grow with time);
//  - each test runs in about half of the pipelines, a few minutes after the pipeline starts;
//  - each test has a profile: stable (almost never fails), occasional (fails 6-15 % of runs), flaky (20-50 %)
//    or broken (fails every run since a moment in the last 10 days);
//  - a failure picks one of the test's 1-3 typical failure messages, the first being the most likely.
// Everything the API reports is then derived from these runs (history.cpp), never drawn separately.
#include "generator.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "random.hpp"

namespace trunk::sandbox {

std::string Random::uuid() {
  const std::uint64_t hi = next();
  const std::uint64_t lo = next();
  unsigned char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(hi >> (56 - 8 * i));
    bytes[8 + i] = static_cast<unsigned char>(lo >> (56 - 8 * i));
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0x0F];
  }
  return out;
}

namespace {

using Words = std::vector<std::string>;

std::string capitalize(std::string word) {
  if (!word.empty() && word[0] >= 'a' && word[0] <= 'z') word[0] = static_cast<char>(word[0] - 'a' + 'A');
  return word;
}

// Shared vocabulary: domain nouns, behaviours and conditions read like real test names.
const Words kNouns = {"cart",    "checkout", "invoice", "coupon",  "order",   "refund",  "ledger", "session",
                      "token",   "profile",  "address", "shipment", "payment", "price",   "tax",    "discount",
                      "catalog", "search",   "review",  "rating",  "webhook", "report",  "export", "import",
                      "account", "password", "email",   "sku",     "stock",   "warehouse", "currency", "receipt"};
const Words kVerbs = {"applies",  "rejects", "retries", "caches",   "rounds",   "sorts",   "filters", "merges",
                      "expires",  "renders", "syncs",   "validates", "serializes", "refreshes", "cancels", "schedules"};
const Words kConditions = {"when_empty",       "after_timeout",     "with_unicode_input", "on_concurrent_update",
                           "for_guest_user",   "across_timezones",  "with_stale_cache",   "on_network_error",
                           "with_large_payload", "when_rate_limited", "on_first_login",   "with_partial_refund",
                           "at_midnight_utc",  "with_zero_quantity", "after_retry",       "with_expired_token"};

struct RepoPlan {
  trunk::Repo repo;
  std::string html_url;
  double share;  // of the total test count
  Words modules;
  Words variants;
  Words messages;
  std::string ticket_prefix;
  std::uint32_t first_pull_request;
};

std::vector<RepoPlan> repo_plans() {
  return {
      {{"github.com", "acme", "storefront"}, "https://github.com/acme/storefront", 0.75,
       {"checkout", "cart", "catalog", "search", "accounts", "payments", "shipping", "inventory", "promotions",
        "reviews", "notifications", "orders", "admin", "api"},
       {"", "", "", "py3.11", "py3.12", "postgres-15"},
       {"AssertionError: assert 503 == 200",
        "AssertionError: expected total 41.99, got 42.0",
        "TimeoutError: test exceeded 30.0s timeout",
        "ConnectionResetError: [Errno 104] Connection reset by peer",
        "psycopg.errors.DeadlockDetected: deadlock detected",
        "KeyError: 'currency'",
        "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.",
        "AssertionError: assert ['b', 'a'] == ['a', 'b']",
        "selenium.common.exceptions.StaleElementReferenceException: stale element reference",
        "freezegun: FakeDatetime comparison failed across DST boundary",
        "OSError: [Errno 98] Address already in use",
        "AssertionError: expected call not found: send_email(to='guest@example.com')"},
       "https://github.com/acme/storefront/issues/", 4100},
      {{"gitlab.com", "acme-labs/platform", "payments"}, "https://gitlab.com/acme-labs/platform/payments", 0.15,
       {"ledger", "settlement", "fx", "webhooks", "fraud", "payouts", "reconcile"},
       {"", "", "linux-amd64", "race"},
       {"ledger_test.go:88: expected balance 1000, got 999",
        "panic: test timed out after 10m0s",
        "context deadline exceeded",
        "WARNING: DATA RACE",
        "dial tcp 127.0.0.1:5432: connect: connection refused",
        "--- FAIL: unexpected webhook retry count: got 4, want 3",
        "rpc error: code = Unavailable desc = connection closed before server preface received",
        "mock: I don't know what to return because the method call was unexpected"},
       "https://acme.atlassian.net/browse/PAY-", 900},
      {{"github.com", "acme", "mobile-app"}, "https://github.com/acme/mobile-app", 0.10,
       {"cart", "onboarding", "feed", "settings", "sync", "notifications"},
       {"", "api-33", "api-34", "tablet"},
       {"java.lang.AssertionError: expected:<3> but was:<2>",
        "kotlinx.coroutines.TimeoutCancellationException: Timed out waiting for 5000 ms",
        "androidx.test.espresso.NoMatchingViewException: No views in hierarchy found matching: with id: checkout_button",
        "java.net.SocketTimeoutException: timeout",
        "java.lang.IllegalStateException: Fragment not attached to a context.",
        "org.junit.ComparisonFailure: expected:<[Saved]> but was:<[Saving...]>"},
       "https://github.com/acme/mobile-app/issues/", 2300},
  };
}

enum class Profile { stable, occasional, flaky, broken };

struct NameParts {
  std::string file_path, classname, parent, name;
};

// File-level naming per repository style; `index` keeps file names unique.
NameParts file_names(std::size_t repo_index, const std::string& module, Random& rng, int index) {
  const std::string noun = rng.pick(kNouns);
  const std::string noun2 = rng.pick(kNouns);
  const std::string suffix = index > 0 ? std::to_string(index) : std::string();
  NameParts parts;
  if (repo_index == 0) {  // pytest
    const std::string file = "test_" + noun + "_" + noun2 + suffix;
    parts.file_path = "tests/" + module + "/" + file + ".py";
    parts.parent = "Test" + capitalize(noun) + capitalize(noun2) + suffix;
    parts.classname = "tests." + module + "." + file + "." + parts.parent;
  } else if (repo_index == 1) {  // go test
    parts.file_path = "internal/" + module + "/" + noun + suffix + "_test.go";
    parts.parent = "Test" + capitalize(noun) + capitalize(noun2) + suffix;
    parts.classname = "gitlab.com/acme-labs/platform/payments/internal/" + module;
  } else {  // JUnit (Kotlin)
    parts.parent = capitalize(noun) + capitalize(noun2) + "ViewModel" + suffix + "Test";
    parts.file_path = "app/src/test/java/com/acme/mobile/" + module + "/" + parts.parent + ".kt";
    parts.classname = "com.acme.mobile." + module + "." + parts.parent;
  }
  return parts;
}

std::string test_name(std::size_t repo_index, const NameParts& file, Random& rng) {
  const std::string verb = rng.pick(kVerbs);
  const std::string object = rng.pick(kNouns);
  const std::string condition = rng.pick(kConditions);
  if (repo_index == 0) return "test_" + verb + "_" + object + "_" + condition;
  if (repo_index == 1) return file.parent + "/" + verb + "_" + object + "_" + condition;
  // camelCase for JUnit
  std::string camel = verb;
  camel += capitalize(object);
  std::string rest = condition;
  bool upper = true;
  for (char c : rest) {
    if (c == '_') {
      upper = true;
      continue;
    }
    camel += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  return camel;
}

struct Pipeline {
  std::int64_t time_us;
  std::uint32_t pull_request;
};

std::vector<Pipeline> pipelines(Random& rng, std::int64_t start_us, std::int64_t now_us, std::uint32_t first_pr) {
  // The last pipeline starts an hour before now so every test run of it is in the past.
  const std::int64_t span = now_us - kMicrosPerHour - start_us;
  const int count = kHistoryDays * 4;
  std::vector<Pipeline> out;
  out.reserve(count);
  for (int i = 0; i < count; ++i) {
    const double at = rng.uniform();
    const auto time = start_us + static_cast<std::int64_t>(at * static_cast<double>(span));
    const auto pr = first_pr + static_cast<std::uint32_t>(at * 150) + static_cast<std::uint32_t>(rng.between(0, 12));
    out.push_back({time, pr});
  }
  std::sort(out.begin(), out.end(), [](const Pipeline& a, const Pipeline& b) { return a.time_us < b.time_us; });
  return out;
}

void generate_runs(TestRecord& test, Profile profile, const std::vector<Pipeline>& ci, std::size_t message_count,
                   Random& rng, std::int64_t now_us) {
  // 1-3 typical failures; the first one dominates.
  std::vector<std::int32_t> kinds;
  const auto kind_count = rng.between(1, 3);
  for (int i = 0; i < kind_count; ++i) kinds.push_back(static_cast<std::int32_t>(rng.next() % message_count));
  double p = 0;
  std::int64_t broken_since = now_us;
  switch (profile) {
    case Profile::stable: p = 0.003; break;
    case Profile::occasional: p = rng.uniform(0.06, 0.15); break;
    case Profile::flaky: p = rng.uniform(0.2, 0.5); break;
    case Profile::broken:
      p = 0.02;
      broken_since = now_us - rng.between(2 * kDayUs, 10 * kDayUs);
      break;
  }
  for (const Pipeline& pipeline : ci) {
    if (!rng.chance(0.5)) continue;
    Run run;
    run.time_us = pipeline.time_us + rng.between(0, 30 * 60) * 1'000'000 + rng.between(0, 999'999);
    run.pull_request = pipeline.pull_request;
    const bool fails = run.time_us >= broken_since || rng.chance(p);
    if (fails) {
      const double which = rng.uniform();
      run.failure = run.time_us >= broken_since ? kinds[0]
                    : which < 0.6 || kinds.size() == 1 ? kinds[0]
                                                       : kinds[1 + rng.next() % (kinds.size() - 1)];
    }
    test.runs.push_back(run);
  }
  std::sort(test.runs.begin(), test.runs.end(), [](const Run& a, const Run& b) { return a.time_us < b.time_us; });
}

Profile draw_profile(Random& rng) {
  const double r = rng.uniform();
  if (r < 0.15) return Profile::stable;
  if (r < 0.60) return Profile::occasional;
  if (r < 0.92) return Profile::flaky;
  return Profile::broken;
}

}  // namespace

History generate_history(std::uint64_t seed, int tests, trunk::Timestamp now) {
  History history;
  history.now = now;
  const std::int64_t now_us = to_micros(now);
  const std::int64_t start_us = now_us - kHistoryDays * kDayUs;
  const auto plans = repo_plans();
  int assigned = 0;
  for (std::size_t r = 0; r < plans.size(); ++r) {
    const RepoPlan& plan = plans[r];
    Random rng(mix64(seed) ^ mix64(r + 1));
    const int count = r + 1 == plans.size() ? std::max(0, tests - assigned)
                                            : static_cast<int>(static_cast<double>(tests) * plan.share);
    assigned += count;

    RepoHistory repo;
    repo.repo = plan.repo;
    repo.html_url = plan.html_url;
    repo.failure_messages = plan.messages;
    const auto ci = pipelines(rng, start_us, now_us, plan.first_pull_request);
    std::set<std::string> used_files;
    std::set<std::string> used_names;
    int ticket_number = 1;
    while (static_cast<int>(repo.tests.size()) < count) {
      const std::string& module = rng.pick(plan.modules);
      NameParts file = file_names(r, module, rng, 0);
      for (int i = 2; used_files.count(file.file_path + "#" + file.parent) != 0; ++i) file = file_names(r, module, rng, i);
      used_files.insert(file.file_path + "#" + file.parent);
      const std::string owner = r == 1 ? "@acme-labs/" + module + "-team" : "@acme/" + module;
      const auto per_file = rng.between(3, 12);
      for (int t = 0; t < per_file && static_cast<int>(repo.tests.size()) < count; ++t) {
        TestRecord test;
        test.id = rng.uuid();
        test.file_path = file.file_path;
        test.classname = file.classname;
        test.parent = file.parent;
        test.variant = rng.pick(plan.variants);
        test.name = test_name(r, file, rng);
        std::string key = test.file_path + "#" + test.parent + "#" + test.name + "#" + test.variant;
        if (used_names.count(key) != 0) {
          test.name += '_';
          test.name += std::to_string(repo.tests.size());
          key = test.file_path + "#" + test.parent + "#" + test.name + "#" + test.variant;
        }
        used_names.insert(key);
        test.codeowners = {owner};
        if (rng.chance(0.3)) test.codeowners.push_back(r == 1 ? "@acme-labs/sre" : "@acme/platform");
        const Profile profile = draw_profile(rng);
        const bool unhealthy = profile == Profile::flaky || profile == Profile::broken;
        test.quarantined = rng.chance(unhealthy ? 0.35 : 0.02);
        if (unhealthy && rng.chance(0.5)) test.ticket_url = plan.ticket_prefix + std::to_string(100 + ticket_number++);
        generate_runs(test, profile, ci, plan.messages.size(), rng, now_us);
        repo.tests.push_back(std::move(test));
      }
    }
    std::sort(repo.tests.begin(), repo.tests.end(), [](const TestRecord& a, const TestRecord& b) {
      if (a.file_path != b.file_path) return a.file_path < b.file_path;
      if (a.parent != b.parent) return a.parent < b.parent;
      if (a.name != b.name) return a.name < b.name;
      if (a.variant != b.variant) return a.variant < b.variant;
      return a.id < b.id;
    });
    history.repos.push_back(std::move(repo));
  }
  return history;
}

}  // namespace trunk::sandbox
