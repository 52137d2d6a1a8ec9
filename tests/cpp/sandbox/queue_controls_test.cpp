// Staging exact situations in a merge queue (trunk/sandbox/queue_controls.hpp, pull_request_script.hpp): run
// durations as distributions, per-queue rates, scripted outcomes, their checks at every boundary, and the HTTP
// control routes against the real local server. All on the virtual clock: no wall-clock time is asserted.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "merge_queue.hpp"
#include "queue_harness.hpp"
#include "sandbox_support.hpp"
#include "trunk/error.hpp"
#include "trunk/codec.hpp"

// The tests name only the fields they set (designated initializers); the others keep their defaults on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sandbox_test {
namespace {

namespace paths = trunk::paths;
using trunk::sandbox::EmpiricalRunDuration;
using trunk::sandbox::FixedRunDuration;
using trunk::sandbox::LognormalRunDuration;
using trunk::sandbox::PullRequestScript;
using trunk::sandbox::QueueControls;
using trunk::sandbox::ScriptedOutcome;

trunk::sandbox::SandboxOptions virtual_options(double flaky = 0, double broken = 0) {
  auto options = small_options(60);
  options.clock = trunk::sandbox::ClockMode::virtual_time;
  options.flaky_failure_rate = flaky;
  options.broken_pull_request_rate = broken;
  return options;
}

/// A started sandbox on the virtual clock, driven through its first repository's main queue.
class Staged {
 public:
  explicit Staged(trunk::sandbox::SandboxOptions options = virtual_options()) : box_(start_sandbox(std::move(options))) {}
  trunk::sandbox::Sandbox& box() { return *box_; }
  trunk::Repo repo() const { return box_->repos().at(0); }
  HttpReply call(std::string_view path, Json fields) {
    Json body = {{"repo", repo_json(repo())}, {"targetBranch", "main"}};
    body.update(fields);
    return post(*box_, std::string(path), body);
  }
  void settings(Json fields) { ASSERT_EQ(call(paths::kUpdateQueue, std::move(fields)).status, 200); }
  void submit(std::int64_t number) {
    const auto reply = call(paths::kSubmitPullRequest, {{"pr", {{"number", number}}}});
    ASSERT_EQ(reply.status, 200) << reply.body;
  }
  Json pr(std::int64_t number) { return call(paths::kGetSubmittedPullRequest, {{"pr", {{"number", number}}}}).json(); }
  std::string state(std::int64_t number) { return pr(number).value("state", ""); }
  void minutes(double n) { box_->advance(std::chrono::milliseconds(std::llround(n * 60'000))); }
  void controls(const QueueControls& controls) { box_->set_queue_controls(repo(), "main", controls); }
  void script(std::int64_t number, const PullRequestScript& script) {
    box_->script_pull_request(repo(), "main", number, script);
  }
  std::string failure_cause(std::int64_t number) {
    const auto reply = call(paths::kGetMergeQueueTestingDetails, {{"testRunId", pr(number)["testRunId"]}});
    return reply.json().value("failureCause", "");
  }

 private:
  std::unique_ptr<trunk::sandbox::Sandbox> box_;
};

/// The durations (minutes) of a harness queue's finished runs.
std::vector<double> finished_run_minutes(const trunk::sandbox::MergeQueue& queue) {
  std::vector<double> out;
  for (const auto& run : queue.runs()) {
    if (run.status == trunk::TestingStatus::in_progress) continue;
    out.push_back(std::chrono::duration<double, std::ratio<60>>(run.updated_at - run.created_at).count());
  }
  return out;
}

TEST(QueueControls, AFixedFortyMinuteRunEndsExactlyFortyMinutesAfterItStarts) {
  Staged staged;
  staged.controls({.run_duration = FixedRunDuration{40}});
  staged.submit(1);
  staged.minutes(1);  // the mergeability delay: the run starts now
  ASSERT_EQ(staged.state(1), "testing");
  staged.minutes(40 - 1.0 / 60);
  EXPECT_EQ(staged.state(1), "testing") << "a second before +40 min";
  staged.minutes(1.0 / 60);
  EXPECT_EQ(staged.state(1), "merged") << "at +40 min exactly";
}

TEST(QueueControls, TheSandboxWideRunMinutesOptionFixesEveryQueuesDuration) {
  auto options = virtual_options();
  options.run_minutes = 40;
  Staged staged(options);
  staged.submit(1);
  staged.minutes(1 + 40 - 1.0 / 60);
  EXPECT_EQ(staged.state(1), "testing");
  staged.minutes(1.0 / 60);
  EXPECT_EQ(staged.state(1), "merged");
  EXPECT_EQ(staged.box().queue_controls(staged.repo(), "main"), QueueControls{}) << "an option is no control";
}

TEST(QueueControls, AnEmpiricalBimodalListGivesOnlyItsValuesAndBothOfThem) {
  QueueHarness harness;
  harness.queue().set_controls({.run_duration = EmpiricalRunDuration{{5, 40}}});
  for (std::int64_t n = 1; n <= 60; ++n) ASSERT_FALSE(harness.submit(n));
  for (int step = 0; step < 60 * 45 / 5 + 10; ++step) harness.minutes(5);
  const auto minutes = finished_run_minutes(harness.queue());
  ASSERT_EQ(minutes.size(), 60U);
  const std::set<double> seen(minutes.begin(), minutes.end());
  EXPECT_EQ(seen, (std::set<double>{5, 40}));
}

TEST(QueueControls, NoControlAndTheDefaultsSpelledOutGiveTheSameDurationsAsBefore) {
  const auto durations = [](const std::optional<QueueControls>& controls) {
    QueueHarness harness;
    if (controls) harness.queue().set_controls(*controls);
    for (std::int64_t n = 1; n <= 20; ++n) (void)harness.submit(n);
    for (int step = 0; step < 20 * 60; ++step) harness.minutes(1);
    return finished_run_minutes(harness.queue());
  };
  const auto before = durations(std::nullopt);
  ASSERT_EQ(before.size(), 20U);
  EXPECT_GT(std::set<double>(before.begin(), before.end()).size(), 10U) << "lognormal: durations differ";
  EXPECT_EQ(durations(QueueControls{}), before);
  EXPECT_EQ(durations(QueueControls{.run_duration = LognormalRunDuration{}}), before);
}

TEST(QueueControls, AScriptedBrokenPullRequestFailsAndItsBatchMatesRequeueAndMerge) {
  Staged staged;
  staged.settings({{"batch", true}, {"batchingMinSize", 4}});
  staged.script(3, {.broken = true});
  for (std::int64_t n = 1; n <= 4; ++n) staged.submit(n);
  staged.minutes(10 * 60);
  EXPECT_EQ(staged.state(3), "failed");
  EXPECT_EQ(staged.failure_cause(3), "broken");
  for (const std::int64_t n : {1, 2, 4}) EXPECT_EQ(staged.state(n), "merged") << n;
}

TEST(QueueControls, AScriptedPassBeatsAFlakyRateOfOneAndIsUsedUpByOneRun) {
  Staged staged;
  staged.controls({.flaky_run_rate = 1.0});
  staged.script(1, {.next_run = ScriptedOutcome::pass});
  staged.submit(1);
  staged.minutes(3 * 60);
  EXPECT_EQ(staged.state(1), "merged");
  EXPECT_TRUE(staged.box().pull_request_scripts(staged.repo(), "main").empty()) << "used up";
  staged.submit(2);
  staged.minutes(3 * 60);
  EXPECT_EQ(staged.state(2), "failed");
  EXPECT_EQ(staged.failure_cause(2), "flaky");
}

TEST(QueueControls, AScriptedFailureFailsOnceThenTheDiceDecideAgain) {
  Staged staged;
  staged.script(1, {.next_run = ScriptedOutcome::fail});
  staged.submit(1);
  staged.minutes(3 * 60);
  EXPECT_EQ(staged.state(1), "failed");
  staged.submit(1);  // resubmitted: its script is used up, flaky rate 0
  staged.minutes(3 * 60);
  EXPECT_EQ(staged.state(1), "merged");
}

TEST(QueueControls, InABatchAnyScriptedFailureFailsTheRunAndTheLongestScriptedDurationWins) {
  Staged staged;
  staged.settings({{"batch", true}, {"batchingMinSize", 3}});
  staged.controls({.run_duration = FixedRunDuration{10}});
  staged.script(1, {.next_run = ScriptedOutcome::pass, .next_run_minutes = 20});
  staged.script(2, {.next_run = ScriptedOutcome::fail, .next_run_minutes = 30});
  staged.submit(1);
  staged.submit(2);
  staged.submit(3);
  staged.minutes(1);  // the batch of three starts
  ASSERT_EQ(staged.state(1), "testing");
  const std::string batch_run = staged.pr(1)["testRunId"];
  staged.minutes(30 - 1.0 / 60);
  EXPECT_EQ(staged.state(1), "testing") << "the longest scripted duration, 30, not 10 or 20";
  staged.minutes(1.0 / 60);
  const auto details = staged.call(paths::kGetMergeQueueTestingDetails, {{"testRunId", batch_run}}).json();
  EXPECT_EQ(details.value("status", ""), "failed") << "at +30 min";
  EXPECT_EQ(details.value("failureCause", ""), "flaky") << "a scripted failure fails like a flaky run";
  staged.minutes(5 * 60);
  for (const std::int64_t n : {1, 2, 3}) {
    EXPECT_EQ(staged.state(n), "merged") << n << ": the bisection's runs find no culprit (the failure was used up)";
  }
}

TEST(QueueControls, RatesChangedWhileRunningAffectOnlyLaterRuns) {
  Staged staged;
  staged.controls({.run_duration = FixedRunDuration{20}});
  staged.submit(1);
  staged.minutes(5);
  ASSERT_EQ(staged.state(1), "testing");
  staged.controls({.run_duration = FixedRunDuration{20}, .flaky_run_rate = 1.0});
  staged.minutes(30);
  EXPECT_EQ(staged.state(1), "merged") << "its run started at rate 0";
  staged.submit(2);
  staged.minutes(30);
  EXPECT_EQ(staged.state(2), "failed") << "started at rate 1";
  staged.controls({});
  staged.submit(3);
  staged.minutes(60);
  EXPECT_EQ(staged.state(3), "merged") << "controls cleared: the sandbox's rate 0 again";
}

TEST(QueueControls, APerQueueBrokenRateDecidesLaterSubmissions) {
  Staged staged;
  staged.submit(1);
  staged.controls({.broken_pull_request_rate = 1.0});
  staged.submit(2);
  staged.minutes(3 * 60);
  EXPECT_EQ(staged.state(1), "merged") << "submitted before: not broken";
  EXPECT_EQ(staged.state(2), "failed");
  EXPECT_EQ(staged.failure_cause(2), "broken");
}

void expect_refused(const std::function<void()>& call, const std::string& field, const std::string& rule_part) {
  try {
    call();
    ADD_FAILURE() << field << ": accepted";
  } catch (const trunk::ValidationError& e) {
    ASSERT_EQ(e.violations().size(), 1U) << e.what();
    EXPECT_EQ(e.violations()[0].field, field);
    EXPECT_NE(e.violations()[0].rule.find(rule_part), std::string::npos) << e.what();
  }
}

TEST(QueueControls, EveryRuleIsCheckedAtItsBoundaries) {
  Staged staged;
  const auto set = [&](QueueControls c) { return [&staged, c] { staged.controls(c); }; };
  for (const double rate : {0.0, 1.0}) {
    EXPECT_NO_THROW(staged.controls({.flaky_run_rate = rate, .broken_pull_request_rate = rate}));
  }
  for (const double rate : {-0.0001, 1.0001, std::nan("")}) {
    expect_refused(set({.flaky_run_rate = rate}), "flaky_run_rate", "from 0 to 1");
    expect_refused(set({.broken_pull_request_rate = rate}), "broken_pull_request_rate", "from 0 to 1");
  }
  for (const double minutes : {trunk::sandbox::kMinRunMinutes, trunk::sandbox::kMaxRunMinutes}) {
    EXPECT_NO_THROW(staged.controls({.run_duration = FixedRunDuration{minutes}}));
    EXPECT_NO_THROW(staged.controls({.run_duration = LognormalRunDuration{minutes, 0}}));
    EXPECT_NO_THROW(staged.controls({.run_duration = EmpiricalRunDuration{{minutes}}}));
  }
  for (const double minutes : {0.0, -5.0, 0.9999, 10080.0001}) {
    expect_refused(set({.run_duration = FixedRunDuration{minutes}}), "run_duration.minutes", "from 1 to 10080 minutes");
    expect_refused(set({.run_duration = LognormalRunDuration{minutes, 0.35}}), "run_duration.median_minutes", "minutes");
    expect_refused(set({.run_duration = EmpiricalRunDuration{{5, minutes}}}), "run_duration.minutes[1]", "minutes");
  }
  EXPECT_NO_THROW(staged.controls({.run_duration = LognormalRunDuration{15, trunk::sandbox::kMaxRunSigma}}));
  expect_refused(set({.run_duration = LognormalRunDuration{15, -0.0001}}), "run_duration.sigma", "from 0 to 5");
  expect_refused(set({.run_duration = LognormalRunDuration{15, 5.0001}}), "run_duration.sigma", "from 0 to 5");
  expect_refused(set({.run_duration = EmpiricalRunDuration{}}), "run_duration.minutes", "from 1 to 10000 durations");

  EXPECT_EQ(staged.box().queue_controls(staged.repo(), "main").run_duration,
            std::optional<trunk::sandbox::RunDuration>(LognormalRunDuration{15, trunk::sandbox::kMaxRunSigma}))
      << "a refused change changes nothing";

  EXPECT_NO_THROW(staged.script(1, {.next_run_minutes = 1}));
  expect_refused([&] { staged.script(1, {.next_run_minutes = 0}); }, "next_run_minutes", "from 1 to 10080");
  expect_refused([&] { staged.script(1, {.next_run_minutes = -1}); }, "next_run_minutes", "from 1 to 10080");
  expect_refused([&] { staged.script(0, {.broken = true}); }, "number", "at least 1");

  EXPECT_THROW(staged.box().set_queue_controls(staged.repo(), "no-such-branch", {}), trunk::sandbox::UnknownQueue);
  EXPECT_THROW(staged.box().script_pull_request(staged.repo(), "no-such-branch", 1, {}), trunk::sandbox::UnknownQueue);
  EXPECT_THROW((void)staged.box().queue_controls(trunk::Repo{"github.com", "nobody", "nothing"}, "main"),
               trunk::sandbox::UnknownQueue);
}

TEST(QueueControls, BeforeStartEveryControlSaysSo) {
  trunk::sandbox::Sandbox box(virtual_options());
  EXPECT_THROW(box.set_queue_controls(trunk::Repo{"github.com", "a", "b"}, "main", {}), trunk::Error);
}

// ---- the HTTP routes, against the real local server ------------------------------------------------------

class Routes : public ::testing::Test {
 protected:
  Staged staged;
  httplib::Client client{"127.0.0.1", staged.box().port()};
  httplib::Headers token{{"x-api-token", staged.box().token()}};
  std::string query(const std::string& branch = "main") {
    return "?repo=" + staged.repo().to_string() + "&branch=" + branch;
  }
};

TEST_F(Routes, PutSetsGetShowsAndScriptsAppearUntilUsed) {
  auto put = client.Put("/sandbox/queues/controls" + query(), token,
                        R"({"run_duration": {"kind": "empirical", "minutes": [5, 40]}, "flaky_run_rate": 0.25})",
                        "application/json");
  ASSERT_TRUE(put);
  ASSERT_EQ(put->status, 200) << put->body;
  const Json shown = Json::parse(client.Get("/sandbox/queues/controls" + query(), token)->body);
  EXPECT_EQ(shown["repo"], staged.repo().to_string());
  EXPECT_EQ(shown["branch"], "main");
  EXPECT_EQ(shown["controls"]["run_duration"], (Json{{"kind", "empirical"}, {"minutes", {5.0, 40.0}}}));
  EXPECT_EQ(shown["controls"]["flaky_run_rate"], 0.25);
  EXPECT_TRUE(shown["controls"]["broken_pull_request_rate"].is_null());
  const auto typed = staged.box().queue_controls(staged.repo(), "main");
  EXPECT_EQ(typed.run_duration, std::optional<trunk::sandbox::RunDuration>(EmpiricalRunDuration{{5, 40}}));

  auto scripted = client.Post("/sandbox/queues/pull-requests/7/script" + query(), token,
                              R"({"next_run": "fail", "next_run_minutes": 12.5})", "application/json");
  ASSERT_EQ(scripted->status, 200) << scripted->body;
  EXPECT_EQ(Json::parse(scripted->body)["scripts"],
            (Json::array({{{"number", 7}, {"broken", nullptr}, {"next_run", "fail"}, {"next_run_minutes", 12.5}}})));
  staged.controls({});
  staged.submit(7);
  staged.minutes(1);
  EXPECT_EQ(Json::parse(client.Get("/sandbox/queues/controls" + query(), token)->body)["scripts"], Json::array())
      << "used up by the run that started";
  staged.minutes(12.5 - 1.0 / 60);
  EXPECT_EQ(staged.state(7), "testing");
  staged.minutes(1.0 / 60);
  EXPECT_EQ(staged.state(7), "failed");

  auto lognormal = client.Put("/sandbox/queues/controls" + query(), token,
                              R"({"run_duration": {"kind": "lognormal", "sigma": 0}})", "application/json");
  ASSERT_EQ(lognormal->status, 200) << lognormal->body;
  EXPECT_EQ(Json::parse(lognormal->body)["controls"]["run_duration"],
            (Json{{"kind", "lognormal"}, {"median_minutes", 15.0}, {"sigma", 0.0}}));
}

TEST_F(Routes, ErrorsNameTheirMethodTokenFieldValueAndRule) {
  auto wrong_method = client.Post("/sandbox/queues/controls" + query(), token, "{}", "application/json");
  EXPECT_EQ(wrong_method->status, 405);
  EXPECT_EQ(wrong_method->get_header_value("Allow"), "GET, PUT");
  auto wrong_script_method = client.Get("/sandbox/queues/pull-requests/1/script" + query(), token);
  EXPECT_EQ(wrong_script_method->status, 405);
  EXPECT_EQ(wrong_script_method->get_header_value("Allow"), "POST");
  EXPECT_EQ(client.Get("/sandbox/queues/controls" + query())->status, 401);
  EXPECT_EQ(client.Get("/sandbox/queues/nothing-here", token)->status, 404);

  const auto put = [&](const std::string& body) {
    return client.Put("/sandbox/queues/controls" + query(), token, body, "application/json");
  };
  const auto expect_400 = [](const httplib::Result& reply, const std::string& says) {
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400) << reply->body;
    EXPECT_NE(reply->body.find(says), std::string::npos) << reply->body;
  };
  expect_400(put(R"({"flaky_run_rate": 1.0001})"), "flaky_run_rate: 1.0001: must be from 0 to 1");
  expect_400(put(R"({"broken_pull_request_rate": -0.0001})"), "broken_pull_request_rate: -0.0001: must be from 0 to 1");
  expect_400(put(R"({"flaky_run_rate": "high"})"), R"(flaky_run_rate: "high": must be a number)");
  expect_400(put(R"({"run_duration": {"kind": "fixed", "minutes": 0}})"), "run_duration.minutes: 0: must be from 1 to 10080 minutes");
  expect_400(put(R"({"run_duration": {"kind": "fixed", "minutes": -3}})"), "run_duration.minutes: -3:");
  expect_400(put(R"({"run_duration": {"kind": "fixed"}})"), "run_duration.minutes: <missing>: is required");
  expect_400(put(R"({"run_duration": {"kind": "empirical", "minutes": []}})"), "run_duration.minutes: 0 durations: must hold from 1 to 10000 durations");
  expect_400(put(R"({"run_duration": {"kind": "uniform"}})"), R"(run_duration.kind: "uniform": must be one of fixed, lognormal, empirical)");
  expect_400(put(R"({"run_duration": {"kind": "fixed", "minutes": 5, "max": 9}})"), "run_duration.max: 9: unknown field");
  expect_400(put(R"({"flaky": 0.5})"), "flaky: 0.5: unknown field");
  expect_400(put("[1]"), "body: [1]: must be an object");
  expect_400(put("{"), "body: <malformed>");
  for (const std::string ok : {R"({"flaky_run_rate": 0})", R"({"flaky_run_rate": 1})", "{}", ""}) {
    EXPECT_EQ(put(ok)->status, 200) << ok;
  }

  const auto script = [&](const std::string& number, const std::string& body) {
    return client.Post("/sandbox/queues/pull-requests/" + number + "/script" + query(), token, body, "application/json");
  };
  expect_400(script("1", R"({"next_run_minutes": 0})"), "next_run_minutes: 0: must be from 1 to 10080 minutes");
  expect_400(script("1", R"({"next_run": "maybe"})"), R"(next_run: "maybe": must be one of fail, pass, null)");
  expect_400(script("1", R"({"broken": "yes"})"), R"(broken: "yes": must be true, false or null)");
  expect_400(script("x", "{}"), "number: x: must be a pull request number");
  expect_400(script("0", R"({"broken": true})"), "number: 0: must be a pull request number, at least 1");

  auto no_repo = client.Get("/sandbox/queues/controls", token);
  expect_400(no_repo, "repo: <missing>: is required");
  auto bad_repo = client.Get("/sandbox/queues/controls?repo=nothing", token);
  EXPECT_EQ(bad_repo->status, 400) << bad_repo->body;
  auto unknown = client.Get("/sandbox/queues/controls" + query("no-such-branch"), token);
  EXPECT_EQ(unknown->status, 404) << unknown->body;
  EXPECT_NE(unknown->body.find("no-such-branch"), std::string::npos) << unknown->body;
  EXPECT_EQ(unknown->body.find(staged.box().token()), std::string::npos);
}

TEST_F(Routes, ArrivalsArePutShownAndSubmitPullRequestsOnTheClock) {
  const auto put = [&](const std::string& body) {
    return client.Put("/sandbox/queues/controls" + query(), token, body, "application/json");
  };
  auto set = put(R"({"arrivals": {"kind": "scheduled", "at": ["2030-01-01T00:00:00Z", "2020-01-01T00:00:00Z"],
                                   "targets": [{"target": "//app", "probability": 1}], "first_number": 500}})");
  ASSERT_EQ(set->status, 200) << set->body;
  EXPECT_EQ(Json::parse(set->body)["controls"]["arrivals"],
            (Json{{"kind", "scheduled"},
                  {"at", {"2030-01-01T00:00:00Z", "2020-01-01T00:00:00Z"}},
                  {"targets", Json::array({{{"target", "//app"}, {"probability", 1.0}}})},
                  {"first_number", 500},
                  {"priorities", Json::array()}}));
  auto hourly = put(R"({"arrivals": {"kind": "poisson", "per_hour": 30,
                                      "priorities": [{"value": 0, "probability": 0.25}, {"value": 10, "probability": 0.75}]}})");
  ASSERT_EQ(hourly->status, 200) << hourly->body;
  EXPECT_EQ(Json::parse(hourly->body)["controls"]["arrivals"],
            (Json{{"kind", "poisson"}, {"per_hour", 30.0}, {"targets", Json::array()}, {"first_number", 1},
                  {"priorities", Json::array({{{"value", 0}, {"probability", 0.25}}, {{"value", 10}, {"probability", 0.75}}})}}));
  staged.minutes(120);
  EXPECT_EQ(staged.pr(1).value("prNumber", 0), 1) << "an arrival, submitted by the queue: " << staged.pr(1).dump();
  EXPECT_EQ(staged.pr(30).value("prNumber", 0), 30) << "about 60 in two hours at 30 an hour";
  std::map<std::int64_t, int> priorities;
  for (int n = 1; n <= 30; ++n) ++priorities[staged.pr(n).value("priorityValue", -1)];
  EXPECT_EQ(priorities[0] + priorities[10], 30) << "every arrival drew one of the two: none took the default (100)";
  EXPECT_GT(priorities[0], 0);
  EXPECT_GT(priorities[10], priorities[0]);

  const auto expect_400 = [](const httplib::Result& reply, const std::string& says) {
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400) << reply->body;
    EXPECT_NE(reply->body.find(says), std::string::npos) << reply->body;
  };
  expect_400(put(R"({"arrivals": {"kind": "burst"}})"), R"(arrivals.kind: "burst": must be one of poisson, hourly, scheduled)");
  expect_400(put(R"({"arrivals": {"kind": "poisson"}})"), "arrivals.per_hour: <missing>: is required for kind poisson");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 3601}})"), "arrivals.per_hour: 3601: must be from 0 to 3600 per hour");
  expect_400(put(R"({"arrivals": {"kind": "hourly", "per_hour": [1, 2]}})"), "arrivals.per_hour: 2 rates: must hold 24 rates");
  expect_400(put(R"({"arrivals": {"kind": "scheduled", "at": ["tomorrow"]}})"), R"(arrivals.at[0]: "tomorrow": must be an RFC 3339 time)");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 1, "targets": [{"target": "a", "probability": 2}]}})"),
             "arrivals.targets[0].probability: 2: must be from 0 to 1");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 1, "targets": [{"name": "a"}]}})"), "arrivals.targets[0]:");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 1, "first_number": 0}})"),
             "arrivals.first_number: 0: must be a pull request number, at least 1");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 1, "every": 2}})"), "arrivals.every: 2: unknown field");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 1, "priorities": [{"value": "high", "probability": 1}]}})"),
             "arrivals.priorities[0]:");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 1, "priorities": [{"value": 1, "probability": 1, "name": "x"}]}})"),
             "arrivals.priorities[0].name: \"x\": unknown field");
  expect_400(put(R"({"arrivals": {"kind": "poisson", "per_hour": 1, "priorities": [{"value": 1, "probability": 0.6}, {"value": 2, "probability": 0.6}]}})"),
             "arrivals.priorities: chances summing to 1.2: must sum to 1 at most");
}

}  // namespace
}  // namespace sandbox_test
