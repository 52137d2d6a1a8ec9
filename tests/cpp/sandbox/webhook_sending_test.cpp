// The sandbox sends webhooks (docs/webhooks.md, "The sandbox sends them"): real HTTP receivers on 127.0.0.1:0
// get every event of the moving queue, signed as Svix signs, in order per pull request, retried on Svix's
// schedule on the virtual clock, with the fault options' duplicates and jitter; endpoints registered in C++
// and over HTTP (POST /sandbox/webhooks).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "sandbox_support.hpp"
#include "webhook_receiver.hpp"
#include "trunk/error.hpp"
#include "trunk/operations.hpp"
#include "trunk/webhook_signature.hpp"

namespace sandbox_test {
namespace {

namespace paths = trunk::paths;
using namespace std::chrono_literals;
using trunk::sandbox::ClockMode;

trunk::sandbox::SandboxOptions sim_options() {
  auto options = small_options(60);
  options.clock = ClockMode::virtual_time;
  options.flaky_failure_rate = 0;
  options.broken_pull_request_rate = 0;
  return options;
}

Json queue_json(const trunk::sandbox::Sandbox& box) {
  return {{"repo", repo_json(box.repos().at(0))}, {"targetBranch", "main"}};
}

void submit(const trunk::sandbox::Sandbox& box, std::int64_t number) {
  Json body = queue_json(box);
  body["pr"] = {{"number", number}};
  const auto reply = post(box, std::string(paths::kSubmitPullRequest), body);
  ASSERT_EQ(reply.status, 200) << reply.body;
}

std::vector<std::string> actions_of(const std::vector<Received>& received, std::int64_t number) {
  std::vector<std::string> out;
  for (const Received& r : received) {
    if (r.pr_number == number) out.push_back(r.action);
  }
  return out;
}

TEST(WebhookSending, APullRequestsLifeArrivesInOrderSignedWithTheEndpointsSecret) {
  Receiver receiver;
  auto box = start_sandbox(sim_options());
  const trunk::sandbox::WebhookEndpoint endpoint = box->add_webhook({receiver.url(), std::nullopt, {}});
  EXPECT_TRUE(endpoint.id.starts_with("ep_"));
  submit(*box, 7);
  box->advance(30min);

  const auto received = receiver.received();
  EXPECT_EQ(actions_of(received, 7), (std::vector<std::string>{"submitted", "queued", "testing", "merged"}));
  std::set<std::string> ids;
  for (const Received& r : received) {
    ids.insert(r.id);
    EXPECT_TRUE(r.id.starts_with("msg_"));
    EXPECT_TRUE(r.user_agent.starts_with("trunk-sandbox-webhooks/"));
    // Verifies as a receiver verifies: against the wall clock, with the secret handed out at registration.
    const trunk::WebhookEvent event =
        trunk::verify_webhook(endpoint.secret, {r.id, r.timestamp, r.signature}, r.body);
    const auto* pr = std::get_if<trunk::PullRequestEvent>(&event);
    ASSERT_NE(pr, nullptr) << r.body;
    EXPECT_EQ(pr->repository->owner, box->repos().at(0).owner);
    EXPECT_EQ(pr->target_branch, "main");
    EXPECT_EQ(pr->author.has_value(), true);
    // The published shapes: the run's fields once tested, is_bisection where the action says it.
    const bool tested = *pr->action == trunk::QueueEventAction::testing || *pr->action == trunk::QueueEventAction::merged;
    EXPECT_EQ(pr->batched, tested ? std::optional<bool>(false) : std::nullopt) << r.body;
    EXPECT_EQ(pr->test_pr_number.has_value(), tested) << r.body;
    EXPECT_EQ(pr->is_bisection, *pr->action == trunk::QueueEventAction::testing ? std::optional<bool>(false)
                                                                                 : std::nullopt) << r.body;
    ASSERT_TRUE(pr->timestamp.has_value());
    EXPECT_GE(*pr->timestamp, fixed_now());  // the sandbox clock's time of the transition
  }
  EXPECT_EQ(ids.size(), received.size()) << "a message id is sent once when the endpoint answers 200";
  // The merged event names the branch it was tested on.
  const Received& merged = received.back();
  EXPECT_NE(merged.body.find("\"test_branch\":\"trunk-merge/main/pr-7/"), std::string::npos) << merged.body;

  // The delivery log: one successful first attempt per message.
  const auto log = box->webhook_deliveries();
  ASSERT_EQ(log.size(), received.size());
  for (const auto& d : log) {
    EXPECT_EQ(d.status, 200);
    EXPECT_EQ(d.attempt, 1);
    EXPECT_EQ(d.endpoint_id, endpoint.id);
    EXPECT_FALSE(d.next_attempt.has_value());
  }
  EXPECT_EQ(log.back().event_type, "pull_request.merged");
  EXPECT_EQ(log.back().pr_number, 7);
}

TEST(WebhookSending, AFailingEndpointIsRetriedOnSvixsScheduleOnTheSandboxClock) {
  std::atomic<int> fail_first{3};
  Receiver receiver([&](const Received&) { return fail_first-- > 0 ? 503 : 204; });
  auto box = start_sandbox(sim_options());
  box->add_webhook({receiver.url(), std::nullopt, std::vector<std::string>{"pull_request.submitted"}});
  const trunk::Timestamp start = box->clock_now();
  submit(*box, 3);
  box->advance(1s);  // the first attempt is immediate
  EXPECT_EQ(receiver.received().size(), 1U);
  box->advance(3s);  // 4 s after: the retry (due at 5 s) has not come
  EXPECT_EQ(receiver.received().size(), 1U);
  box->advance(2s);
  EXPECT_EQ(receiver.received().size(), 2U);
  box->advance(1h);  // 5 min later the third attempt (fails), 30 min after that the fourth (204)
  const auto received = receiver.received();
  ASSERT_EQ(received.size(), 4U);
  for (const Received& r : received) EXPECT_EQ(r.id, received.front().id) << "every attempt is the same message";

  const auto log = box->webhook_deliveries();
  ASSERT_EQ(log.size(), 4U);
  const std::vector<std::chrono::seconds> sent_after = {0s, 5s, 5s + 5min, 5s + 5min + 30min};
  for (std::size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(log[i].attempt, static_cast<int>(i) + 1);
    EXPECT_EQ(log[i].status, i < 3 ? 503 : 204);
    EXPECT_EQ(log[i].at - start, sent_after[i]) << "attempt " << i + 1;
    EXPECT_EQ(log[i].next_attempt.has_value(), i < 3);
  }
}

TEST(WebhookSending, AnEndpointThatNeverAnswersIsGivenUpAfterEightAttempts) {
  Receiver receiver([](const Received&) { return 500; });
  auto box = start_sandbox(sim_options());
  box->add_webhook({receiver.url(), std::nullopt, std::vector<std::string>{"pull_request.submitted"}});
  submit(*box, 1);
  box->advance(std::chrono::hours(48));
  const auto log = box->webhook_deliveries();
  ASSERT_EQ(log.size(), 8U);  // immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
  EXPECT_EQ(log.back().attempt, 8);
  EXPECT_FALSE(log.back().next_attempt.has_value());
  EXPECT_EQ(log.back().at - log.front().at, 5s + 5min + 30min + 2h + 5h + 10h + 10h);
}

TEST(WebhookSending, AnUnreachableEndpointIsRetriedToo) {
  auto box = start_sandbox(sim_options());
  std::string url;
  {
    Receiver gone;
    url = gone.url();
  }  // nothing listens there now
  box->add_webhook({url, std::nullopt, std::vector<std::string>{"pull_request.submitted"}});
  submit(*box, 2);
  box->advance(10s);
  const auto log = box->webhook_deliveries();
  ASSERT_EQ(log.size(), 2U);
  EXPECT_EQ(log[0].status, 0);
  EXPECT_FALSE(log[0].error.empty());
}

TEST(WebhookSending, AnEndpointGetsOnlyTheTypesItSubscribedTo) {
  Receiver merged_only, all;
  auto box = start_sandbox(sim_options());
  box->add_webhook({merged_only.url(), std::nullopt, std::vector<std::string>{"pull_request.merged"}});
  box->add_webhook({all.url(), std::nullopt, {}});
  submit(*box, 4);
  box->advance(30min);
  ASSERT_EQ(merged_only.received().size(), 1U);
  EXPECT_EQ(merged_only.received()[0].type, "pull_request.merged");
  EXPECT_EQ(all.received().size(), 4U);
}

TEST(WebhookSending, BadEndpointsAreRefusedNamingTheFieldNeverTheSecret) {
  auto box = start_sandbox(sim_options());
  const auto refused = [&](trunk::sandbox::WebhookEndpointOptions options) -> std::string {
    try {
      box->add_webhook(options);
    } catch (const trunk::ValidationError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refused({"ftp://x", std::nullopt, {}}).find("url"), std::string::npos);
  EXPECT_NE(refused({"", std::nullopt, {}}).find("url"), std::string::npos);
  EXPECT_NE(refused({"http://a b", std::nullopt, {}}).find("white space"), std::string::npos);
  const std::string unknown =
      refused({"http://127.0.0.1:1/", std::nullopt, std::vector<std::string>{"pull_request.merged", "pr.merged"}});
  EXPECT_NE(unknown.find("events[1]"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("pr.merged"), std::string::npos) << unknown;
  const std::string bad_secret = refused({"http://127.0.0.1:1/", "whsec_not base64 s3cr3t", {}});
  EXPECT_NE(bad_secret.find("secret"), std::string::npos);
  EXPECT_EQ(bad_secret.find("s3cr3t"), std::string::npos) << bad_secret;
  EXPECT_TRUE(box->webhooks().empty());
  // A given secret is the one deliveries are signed with.
  const auto endpoint = box->add_webhook({"http://127.0.0.1:1/", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", {}});
  EXPECT_EQ(endpoint.secret.reveal(), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  EXPECT_TRUE(box->remove_webhook(endpoint.id));
  EXPECT_FALSE(box->remove_webhook(endpoint.id));
}

TEST(WebhookSending, DuplicatesAndJitterKeepEachPullRequestsOrder) {
  Receiver receiver;
  auto options = sim_options();
  options.faults.webhook_duplicate_rate = 1.0;
  options.faults.webhook_jitter = std::chrono::minutes(2);
  auto box = start_sandbox(options);
  box->add_webhook({receiver.url(), std::nullopt, {}});
  for (int n = 1; n <= 6; ++n) submit(*box, n);
  box->advance(12h);
  const auto received = receiver.received();
  std::map<std::string, int> copies;
  for (const Received& r : received) ++copies[r.id];
  for (const auto& [id, n] : copies) EXPECT_EQ(n, 2) << id << ": every message twice, same svix-id";
  for (int n = 1; n <= 6; ++n) {
    std::vector<std::string> firsts;
    std::set<std::string> seen;
    for (const Received& r : received) {
      if (r.pr_number == n && seen.insert(r.id).second) firsts.push_back(r.action);
    }
    EXPECT_EQ(firsts, (std::vector<std::string>{"submitted", "queued", "testing", "merged"})) << "PR " << n;
  }
  // Jitter lets pull requests overtake each other: the submissions do not arrive as 1..6.
  std::vector<std::int64_t> submitted_order;
  std::set<std::string> seen;
  for (const Received& r : received) {
    if (r.action == "submitted" && seen.insert(r.id).second) submitted_order.push_back(r.pr_number);
  }
  EXPECT_NE(submitted_order, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(WebhookSending, ABatchGivesItsOwnEventsBesideItsPullRequestsEvents) {
  Receiver receiver;
  auto box = start_sandbox(sim_options());
  Json settings = queue_json(*box);
  settings["batch"] = true;
  settings["batchingMinSize"] = 3;
  settings["batchingMaxWaitTimeMinutes"] = 1;
  ASSERT_EQ(post(*box, std::string(paths::kUpdateQueue), settings).status, 200);
  box->add_webhook({receiver.url(), std::nullopt, {}});
  for (int n = 1; n <= 3; ++n) submit(*box, n);
  box->advance(2h);
  std::vector<std::string> batch_events;
  for (const Received& r : receiver.received()) {
    if (!r.type.starts_with("pull_request_batch.")) continue;
    batch_events.push_back(r.type);
    const Json body = Json::parse(r.body);
    EXPECT_EQ(body["pr_numbers"], Json::array({1, 2, 3})) << r.body;
    EXPECT_EQ(body["pr_numbers_in_batch"], Json::array({1, 2, 3})) << r.body;
    EXPECT_EQ(body["test_branch_sha"].get<std::string>().size(), 40U) << r.body;
    EXPECT_GE(body["test_pr_number"].get<std::int64_t>(), 1'000'000) << r.body;
    EXPECT_FALSE(body.contains("pull_requests")) << r.body;
  }
  EXPECT_EQ(batch_events, (std::vector<std::string>{"pull_request_batch.submitted", "pull_request_batch.testing",
                                                    "pull_request_batch.merged"}));
  for (const Received& r : receiver.received()) {
    if (r.type == "pull_request.merged") {
      EXPECT_NE(r.body.find("\"batched\":true"), std::string::npos) << r.body;
    }
  }
}

TEST(WebhookSending, TheReorderFaultLetsOnePullRequestsEventsOvertakeEachOther) {
  // What a bot meets once Svix retries a delivery: its events out of order, so it must order them by timestamp.
  Receiver receiver;
  auto options = sim_options();
  options.faults.webhook_jitter = std::chrono::minutes(30);
  options.faults.webhook_reorder = true;
  auto box = start_sandbox(options);
  box->add_webhook({receiver.url(), std::nullopt, {}});
  for (int n = 1; n <= 8; ++n) submit(*box, n);
  box->advance(12h);
  const auto received = receiver.received();
  int out_of_order = 0;
  for (int n = 1; n <= 8; ++n) {
    std::vector<trunk::Timestamp> stamps;
    std::vector<std::string> actions;
    for (const Received& r : received) {
      if (r.pr_number != n) continue;
      const auto event = std::get<trunk::PullRequestEvent>(trunk::construct_webhook_event(r.body));
      stamps.push_back(*event.timestamp);
      actions.push_back(r.action);
    }
    EXPECT_EQ(actions.size(), 4U) << "PR " << n << ": every event still arrives once";
    if (!std::is_sorted(stamps.begin(), stamps.end())) ++out_of_order;
  }
  EXPECT_GT(out_of_order, 0) << "some pull request's events arrive out of order";
}

TEST(WebhookSending, IdsAreUniqueAcrossSandboxesOfOneSeedAndThePayloadsAreNot) {
  Receiver first_receiver;
  Receiver second_receiver;
  auto first = start_sandbox(sim_options());
  auto second = start_sandbox(sim_options());
  const auto first_endpoint = first->add_webhook({first_receiver.url(), std::nullopt, std::nullopt});
  const auto second_endpoint = second->add_webhook({second_receiver.url(), std::nullopt, std::nullopt});
  EXPECT_NE(first_endpoint.id, second_endpoint.id);
  for (auto* box : {first.get(), second.get()}) {
    submit(*box, 9);
    box->advance(2h);
  }
  const auto a = first_receiver.received();
  const auto b = second_receiver.received();
  ASSERT_GE(a.size(), 3U);
  ASSERT_EQ(a.size(), b.size());
  std::set<std::string> ids;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].body, b[i].body) << "the same events, from the same seed";
    ids.insert(a[i].id);
    ids.insert(b[i].id);
  }
  EXPECT_EQ(ids.size(), 2 * a.size()) << "every message id once";
}

TEST(WebhookSending, RegistrationRefusesWhatSvixRefusesAtEachBoundary) {
  auto box = start_sandbox(sim_options());
  const auto refused = [&](const std::string& url, std::optional<std::string> secret = std::nullopt,
                           std::optional<std::vector<std::string>> events = std::nullopt) -> std::string {
    try {
      const auto endpoint = box->add_webhook({url, std::move(secret), std::move(events)});
      box->remove_webhook(endpoint.id);
    } catch (const trunk::ValidationError& e) {
      return e.what();
    }
    return "accepted";
  };
  const auto key = [](std::size_t bytes) { return "whsec_" + trunk::WebhookSecret::generate(bytes).reveal().substr(6); };
  // The URL: a host, and a port from 1 to 65535.
  EXPECT_EQ(refused("http://127.0.0.1:1/"), "accepted");
  EXPECT_EQ(refused("http://127.0.0.1:65535/hook"), "accepted");
  EXPECT_EQ(refused("https://hooks.example.com/trunk?x=1"), "accepted");
  for (const std::string bad : {"http://", "https://", "http://:80/", "http://127.0.0.1:65536/",
                                "http://127.0.0.1:99999/", "http://127.0.0.1:0/"}) {
    EXPECT_NE(refused(bad).find("url"), std::string::npos) << bad;
  }
  // Credentials in a URL are never echoed.
  const std::string with_password = refused("http://bot:hunter2@:80/");
  EXPECT_NE(with_password.find("http://***@:80/"), std::string::npos) << with_password;
  EXPECT_EQ(with_password.find("hunter2"), std::string::npos) << with_password;
  // The secret: whsec_ and a key of 24 to 75 bytes.
  EXPECT_EQ(refused("http://127.0.0.1:1/", key(24)), "accepted");
  EXPECT_EQ(refused("http://127.0.0.1:1/", key(75)), "accepted");
  for (const std::size_t bytes : {std::size_t{1}, std::size_t{23}, std::size_t{76}, std::size_t{256}}) {
    const std::string message = refused("http://127.0.0.1:1/", key(bytes));
    EXPECT_NE(message.find("24 to 75 bytes"), std::string::npos) << bytes << ": " << message;
  }
  const std::string bare = key(24).substr(6);
  EXPECT_NE(refused("http://127.0.0.1:1/", bare).find("secret"), std::string::npos) << "no whsec_ prefix";
  EXPECT_EQ(refused("http://127.0.0.1:1/", bare).find(bare), std::string::npos) << "never echoed";
  // Events: left out means every type; an empty list is refused.
  EXPECT_EQ(refused("http://127.0.0.1:1/", std::nullopt, std::nullopt), "accepted");
  EXPECT_EQ(refused("http://127.0.0.1:1/", std::nullopt, std::vector<std::string>{"pull_request.merged"}), "accepted");
  EXPECT_NE(refused("http://127.0.0.1:1/", std::nullopt, std::vector<std::string>{}).find("events"), std::string::npos);
  EXPECT_TRUE(box->webhooks().empty());
}

TEST(WebhookSending, UrlsShowNoCredentials) {
  using trunk::sandbox::url_without_credentials;
  EXPECT_EQ(url_without_credentials("https://user:pw@host.example/hook"), "https://***@host.example/hook");
  EXPECT_EQ(url_without_credentials("https://token@host.example"), "https://***@host.example");
  EXPECT_EQ(url_without_credentials("https://host.example/a@b"), "https://host.example/a@b") << "@ in the path";
  EXPECT_EQ(url_without_credentials("https://host.example?to=a@b"), "https://host.example?to=a@b");
  EXPECT_EQ(url_without_credentials("https://u:p@q@host/"), "https://***@host/") << "the last @ ends them";
  EXPECT_EQ(url_without_credentials("not a url"), "not a url");
  EXPECT_EQ(url_without_credentials(""), "");
}

TEST(WebhookSending, AnEndpointsSecretNeverEntersTheRequestRecord) {
  // Accepted, refused (a secret of the wrong type, a bad secret, an unknown field beside it) and unreadable
  // registrations alike: the record keeps the rest of the body and "<redacted>" for the secret.
  Receiver receiver;
  auto box = start_sandbox(sim_options());
  const std::string secret = "whsec_" + std::string(32, 'A');
  const std::string not_a_secret = "whsec_not-base64-at-all";
  const std::vector<std::string> bodies = {
      Json{{"url", receiver.url()}, {"secret", secret}}.dump(),
      Json{{"url", receiver.url()}, {"secret", not_a_secret}}.dump(),
      Json{{"url", receiver.url()}, {"secret", {{"nested", secret}}}}.dump(),
      Json{{"url", receiver.url()}, {"secret", secret}, {"colour", "blue"}}.dump(),
      "{\"url\": \"" + receiver.url() + "\", \"secret\": \"" + secret + "\"",  // not JSON: cut short
  };
  std::vector<int> statuses;
  for (const std::string& body : bodies) statuses.push_back(post(*box, "/sandbox/webhooks", body).status);
  EXPECT_EQ(statuses, (std::vector<int>{201, 400, 400, 400, 400}));
  const auto records = box->requests();
  ASSERT_EQ(records.size(), bodies.size());
  for (const auto& record : records) {
    EXPECT_EQ(record.body.find(secret), std::string::npos) << record.body;
    EXPECT_EQ(record.body.find("not-base64"), std::string::npos) << record.body;
    EXPECT_NE(record.body.find("<redacted>"), std::string::npos) << record.body;
  }
  EXPECT_EQ(Json::parse(records[0].body), (Json{{"url", receiver.url()}, {"secret", "<redacted>"}}));
  EXPECT_EQ(Json::parse(records[3].body)["colour"], "blue") << "the rest of the body stays";
  // Other bodies are kept as they came.
  submit(*box, 9);
  EXPECT_NE(box->requests().back().body.find("\"number\":9"), std::string::npos) << box->requests().back().body;
}

TEST(WebhookSending, EndpointsAreRegisteredAndReadOverHttp) {
  Receiver receiver;
  auto box = start_sandbox(sim_options());
  const auto created = post(*box, "/sandbox/webhooks", Json{{"url", receiver.url()}, {"events", {"pull_request.queued"}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const Json endpoint = created.json();
  EXPECT_TRUE(endpoint["secret"].get<std::string>().starts_with("whsec_"));
  EXPECT_EQ(post(*box, "/sandbox/webhooks", Json{{"url", 5}}).status, 400);
  EXPECT_EQ(post(*box, "/sandbox/webhooks", Json{{"uri", receiver.url()}}).status, 400);
  EXPECT_EQ(post(*box, "/sandbox/webhooks", Json{{"url", receiver.url()}}.dump(), "wrong-token").status, 401);
  submit(*box, 9);
  box->advance(5min);
  ASSERT_EQ(receiver.received().size(), 1U);
  const trunk::WebhookSecret secret(endpoint["secret"].get<std::string>());
  const Received r = receiver.received()[0];
  EXPECT_NO_THROW(trunk::verify_webhook(secret, {r.id, r.timestamp, r.signature}, r.body));

  httplib::Client http("127.0.0.1", box->port());
  const httplib::Headers token{{"x-api-token", box->token()}};
  const auto listed = http.Get("/sandbox/webhooks", token);
  ASSERT_TRUE(listed);
  EXPECT_EQ(Json::parse(listed->body)["endpoints"][0]["id"], endpoint["id"]);
  const auto deliveries = http.Get("/sandbox/webhooks/deliveries", token);
  ASSERT_TRUE(deliveries);
  const Json log = Json::parse(deliveries->body)["deliveries"];
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(log[0]["event_type"], "pull_request.queued");
  EXPECT_EQ(log[0]["status"], 200);
  const auto removed = http.Delete("/sandbox/webhooks/" + endpoint["id"].get<std::string>(), token);
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->status, 204);
  EXPECT_EQ(http.Delete("/sandbox/webhooks/ep_none", token)->status, 404);
  EXPECT_EQ(http.Put("/sandbox/webhooks", token, "", "application/json")->status, 405);
}

// A busy day on the virtual clock: every event reaches the receiver, signed, none twice, in order per pull
// request (the benchmark row runs 10,000 of them: benchmarks/run.py scenario 11).
TEST(WebhookSending, ABusyDayLosesNothing) {
  Receiver receiver;
  auto box = start_sandbox(sim_options());
  const auto endpoint = box->add_webhook({receiver.url(), std::nullopt, {}});
  constexpr int kPullRequests = 120;
  for (int n = 1; n <= kPullRequests; ++n) {
    submit(*box, n);
    box->advance(5min);
  }
  box->advance(24h);
  const auto received = receiver.received();
  EXPECT_GE(received.size(), 4U * kPullRequests);
  std::set<std::string> ids;
  std::map<std::int64_t, std::vector<std::string>> by_pr;
  for (const Received& r : received) {
    EXPECT_TRUE(ids.insert(r.id).second) << "sent twice: " << r.id;
    EXPECT_NO_THROW(trunk::verify_webhook(endpoint.secret, {r.id, r.timestamp, r.signature}, r.body));
    if (r.pr_number != 0) by_pr[r.pr_number].push_back(r.action);
  }
  ASSERT_EQ(by_pr.size(), static_cast<std::size_t>(kPullRequests));
  for (const auto& [number, actions] : by_pr) {
    EXPECT_EQ(actions.front(), "submitted") << number;
    EXPECT_EQ(actions.back(), "merged") << number;
  }
  EXPECT_EQ(box->webhook_deliveries().size(), received.size());
}

}  // namespace
}  // namespace sandbox_test

namespace sandbox_test {
namespace {

/// The ids list-unhealthy-tests answers for `status` ("FLAKY" or "BROKEN"), first page.
std::vector<std::string> unhealthy_ids(const trunk::sandbox::Sandbox& box, const std::string& status) {
  const Json body = {{"repo", repo_json(box.repos().at(0))}, {"org_url_slug", box.org_url_slug()},
                     {"status", status}, {"page_query", {{"page_size", 100}}}};
  const auto reply = post(box, std::string(paths::kListUnhealthyTests), body);
  EXPECT_EQ(reply.status, 200) << reply.body;
  std::vector<std::string> ids;
  const Json page = reply.json();  // kept: a range-for over a temporary's member would dangle
  for (const Json& test : page["tests"]) ids.push_back(test["id"]);
  return ids;
}

TEST(WebhookSending, SettingATestsStatusChangesTheAnswersAndSendsTheV2Event) {
  Receiver receiver, monitors, earlier_form;
  auto box = start_sandbox(sim_options());
  const auto endpoint = box->add_webhook({receiver.url(), std::nullopt, std::vector<std::string>{"v2.test_case.status_changed"}});
  box->add_webhook({monitors.url(), std::nullopt, std::vector<std::string>{"test_case.monitor_status_changed"}});
  box->add_webhook({earlier_form.url(), std::nullopt, std::vector<std::string>{"test_case.status_changed"}});
  const auto flaky_before = unhealthy_ids(*box, "FLAKY");
  std::string healthy_id;
  for (const std::string& id : box->test_ids(box->repos().at(0))) {
    const auto broken = unhealthy_ids(*box, "BROKEN");
    if (std::find(flaky_before.begin(), flaky_before.end(), id) == flaky_before.end() &&
        std::find(broken.begin(), broken.end(), id) == broken.end()) {
      healthy_id = id;
      break;
    }
  }
  ASSERT_FALSE(healthy_id.empty());
  EXPECT_TRUE(box->set_test_status(healthy_id, "flaky"));
  EXPECT_FALSE(box->set_test_status(healthy_id, "FLAKY")) << "already flaky: nothing changes, nothing is sent";

  const auto flaky_after = unhealthy_ids(*box, "FLAKY");
  EXPECT_EQ(flaky_after.size(), flaky_before.size() + 1);
  EXPECT_NE(std::find(flaky_after.begin(), flaky_after.end(), healthy_id), flaky_after.end());
  const Json details_body = {{"repo", repo_json(box->repos().at(0))}, {"org_url_slug", box->org_url_slug()},
                             {"test_id", healthy_id}};
  const Json details = post(*box, std::string(paths::kGetTestDetails), details_body).json();
  EXPECT_EQ(details["test"]["status"]["value"], "flaky");

  const auto received = receiver.received();
  ASSERT_EQ(received.size(), 1U);
  const trunk::WebhookEvent event =
      trunk::verify_webhook(endpoint.secret, {received[0].id, received[0].timestamp, received[0].signature},
                            received[0].body);
  const auto* changed = std::get_if<trunk::TestCaseStatusChangedEvent>(&event);
  ASSERT_NE(changed, nullptr) << received[0].body;
  EXPECT_EQ(changed->previous_status->wire(), "HEALTHY");
  EXPECT_EQ(changed->new_status->wire(), "FLAKY");
  EXPECT_EQ(changed->test_case->id, healthy_id);
  EXPECT_EQ(changed->triggered_by->monitor_status->wire(), "active");
  EXPECT_EQ(changed->timestamp, box->clock_now());

  // The earlier form carries the whole test case as the API reports it now, as Trunk's schema for it says.
  ASSERT_EQ(earlier_form.received().size(), 1U);
  const auto legacy = std::get<trunk::LegacyTestCaseStatusChangedEvent>(
      trunk::construct_webhook_event(earlier_form.received()[0].body));
  EXPECT_EQ(legacy.status_change->previous_status->wire(), "healthy");
  EXPECT_EQ(legacy.status_change->current_status->value->wire(), "flaky");
  EXPECT_EQ(legacy.status_change->current_status->timestamp, box->clock_now());
  EXPECT_EQ(legacy.test_case->id, healthy_id);
  EXPECT_EQ(legacy.test_case->status, legacy.status_change->current_status);
  EXPECT_TRUE(legacy.test_case->failure_rate_last_7d.has_value());
  EXPECT_TRUE(legacy.test_case->most_common_failures.has_value());
  EXPECT_EQ(legacy.test_case->repository->html_url.has_value(), true);

  // Healthy again: out of the listing, and the monitor resolves.
  EXPECT_TRUE(box->set_test_status(healthy_id, "HEALTHY"));
  EXPECT_EQ(unhealthy_ids(*box, "FLAKY"), flaky_before);
  ASSERT_EQ(receiver.received().size(), 2U);
  EXPECT_NE(receiver.received()[1].body.find(R"("monitor_status":"resolved")"), std::string::npos);

  // The monitor's own events came first for each change: it activated, then resolved.
  const auto monitor_events = monitors.received();
  ASSERT_EQ(monitor_events.size(), 2U);
  EXPECT_NE(monitor_events[0].body.find(R"("status":"active")"), std::string::npos) << monitor_events[0].body;
  EXPECT_NE(monitor_events[1].body.find(R"("status":"resolved")"), std::string::npos) << monitor_events[1].body;

  EXPECT_THROW(box->set_test_status("no-such-test", "FLAKY"), trunk::ValidationError);
  try {
    box->set_test_status(healthy_id, "wobbly");
    ADD_FAILURE() << "accepted";
  } catch (const trunk::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("status"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("wobbly"), std::string::npos);
  }
}

/// The ids list-quarantined-tests answers, first page.
std::set<std::string> quarantined_ids(const trunk::sandbox::Sandbox& box) {
  const Json body = {{"repo", repo_json(box.repos().at(0))}, {"org_url_slug", box.org_url_slug()},
                     {"page_query", {{"page_size", 100}}}};
  const auto reply = post(box, std::string(paths::kListQuarantinedTests), body);
  EXPECT_EQ(reply.status, 200) << reply.body;
  std::set<std::string> ids;
  const Json page = reply.json();
  for (const Json& test : page["quarantined_tests"]) ids.insert(test["test_case_id"]);
  return ids;
}

TEST(WebhookSending, APersonsQuarantineOverrideChangesTheAnswersAndSendsTheQuarantineEvent) {
  Receiver receiver;
  auto box = start_sandbox(sim_options());
  const auto endpoint = box->add_webhook(
      {receiver.url(), std::nullopt, std::vector<std::string>{"test_case.quarantining_setting_changed"}});
  const auto before = quarantined_ids(*box);
  std::string id;
  for (const std::string& candidate : box->test_ids(box->repos().at(0))) {
    if (before.count(candidate) == 0) id = candidate;
  }
  ASSERT_FALSE(id.empty());

  EXPECT_TRUE(box->set_quarantine(id, "alwaysQuarantine", std::string("flaky in CI")));
  EXPECT_FALSE(box->set_quarantine(id, "alwaysQuarantine")) << "already always: nothing changes, nothing is sent";
  auto after = before;
  after.insert(id);
  EXPECT_EQ(quarantined_ids(*box), after);

  ASSERT_EQ(receiver.received().size(), 1U);
  const auto delivery = receiver.received()[0];  // received() answers a copy
  const trunk::WebhookEvent event =
      trunk::verify_webhook(endpoint.secret, {delivery.id, delivery.timestamp, delivery.signature}, delivery.body);
  const auto* changed = std::get_if<trunk::TestCaseQuarantiningSettingChangedEvent>(&event);
  ASSERT_NE(changed, nullptr) << delivery.body;
  EXPECT_EQ(changed->quarantine_setting_changed->previous_quarantining_setting->wire(), "UNSPECIFIED");
  EXPECT_EQ(changed->quarantine_setting_changed->updated_quarantining_setting->wire(), "ALWAYS_QUARANTINE");
  EXPECT_EQ(changed->quarantine_setting_changed->reason, "flaky in CI");
  EXPECT_EQ(changed->quarantine_setting_changed->timestamp, box->clock_now());
  EXPECT_TRUE(changed->quarantine_setting_changed->actor->email.has_value());
  EXPECT_EQ(changed->test_case->id, id);
  EXPECT_EQ(changed->test_case->quarantined, true);

  // Cleared: the history decides again, and the event says UNSPECIFIED, its reason null as none was given.
  EXPECT_TRUE(box->set_quarantine(id, "clear"));
  EXPECT_EQ(quarantined_ids(*box), before);
  ASSERT_EQ(receiver.received().size(), 2U);
  const Json cleared = Json::parse(receiver.received()[1].body);
  EXPECT_EQ(cleared["quarantine_setting_changed"]["previous_quarantining_setting"], "ALWAYS_QUARANTINE");
  EXPECT_EQ(cleared["quarantine_setting_changed"]["updated_quarantining_setting"], "UNSPECIFIED");
  EXPECT_TRUE(cleared["quarantine_setting_changed"]["reason"].is_null());
  EXPECT_EQ(cleared["test_case"]["quarantined"], false);

  EXPECT_THROW(box->set_quarantine("no-such-test", "clear"), trunk::ValidationError);
  const auto field_of = [&](const std::function<void()>& call) -> std::string {
    try {
      call();
    } catch (const trunk::ValidationError& e) {
      return e.violations().at(0).field;
    }
    return "(accepted)";
  };
  EXPECT_EQ(field_of([&] { box->set_quarantine(id, "ALWAYS"); }), "mode");
  EXPECT_EQ(field_of([&] { box->set_quarantine(id, "alwaysQuarantine", std::string(1001, 'r')); }), "reason");
  EXPECT_EQ(field_of([&] { box->set_quarantine(id, "alwaysQuarantine", std::string()); }), "reason");
  EXPECT_EQ(receiver.received().size(), 2U) << "a refused change sends nothing";
}

}  // namespace
}  // namespace sandbox_test
