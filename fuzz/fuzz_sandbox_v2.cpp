// libFuzzer target: the sandbox's v2 request handling, below HTTP (Service::handle with v2 enabled, which hands the
// /v2/ paths to V2Service: method, path, Authorization, body or query in; status, headers, body out), so every
// execution is a full v2 request without sockets. fuzz_sandbox_requests does the same for v1.
//
// Input: one selector byte, then the path-parameter value up to the first '\n', then the rest (no '\n': the value
// is empty and all of it is the rest).
//   selector & 0x1f       operation: index into the v2 rows of trunk/operations.hpp (TRUNK_V2_OPERATIONS, in row
//                         order), modulo their count, plus 32 when the input after the selector has an odd length
//                         (the selector byte is full; v2 has more than 32 operations since its flaky tests)
//   (selector >> 5) & 3   access: 0 the operation's method with the right API key (Authorization: Bearer <key>),
//                         1 no Authorization, 2 a wrong credential (by the rest's length % 4: another key, the right
//                         key without "Bearer ", v1's organization token, a trunk token the sandbox did not make as
//                         x-trunk-token), 3 a method the operation's path does not
//                         serve (the first of PUT, PATCH, DELETE, POST, GET it lacks), with the right key
//   selector & 0x80       a real id instead of the value: storefront's main queue, one of the pull requests
//                         submitted to it (#1 + the value's length % 4), the newest verification run of that queue,
//                         storefront's repository id, its test collection, or one of its tests (by the value's
//                         length), whichever the path's parameter names
//   value                 substituted as it is (not percent-encoded) for every {...} of the path, so the router's
//                         segment matching and percent-decoding are fuzzed too: a '/' or an empty value may make
//                         another path, or none
//   rest                  the query string (without '?') for GET and DELETE, else the JSON body
// Seeds (fuzz/corpus/make_seeds.py) are mostly 0x80 + the operation's index: its own method, the right key, a real
// id, a plausible query or body.
//
// Every input meets the same sandbox: fuzz_sandbox_requests' history, queues on a fixed clock (nothing runs between
// two requests), and pull requests #1..#4 submitted to storefront's main queue 20 minutes before "now", so the queue
// holds entries in several states and verification runs. GETs share one such Service; any other method gets a fresh
// one, so a finding replays alone.
//
// Properties, besides "no crash, no sanitizer report, no exception other than trunk::Error escapes":
//  - the status is the one docs/reference/v2.md and V2Service::handle decide, in their order: 404 NOT_FOUND for a
//    path no v2 row matches (a literal segment winning over a parameter: /v2/merge-queues/metrics is the metrics);
//    then 401 exactly when the credential is missing or wrong; then 405 with an Allow naming the path's methods for
//    a method it does not serve; else the answer of the row that serves it: one of 200, 201, 202, 204, 400, 404,
//    409, 422, and a 2xx is exactly the row's status. Never 500 (a sandbox bug), never 403 (the key holds every
//    permission), never 429 (the documented rate limits are off), never NOT_FOUND (that code says no operation);
//  - every non-2xx reply is v2's envelope: JSON, an object whose "error" holds a string "code" and a string
//    "message";
//  - no reply (body or header) contains the API key unless the request's path, query or body did (also once
//    percent-decoded or JSON-unescaped; never the Authorization header), nor a wrong credential that was sent;
//  - every 2xx answer reads with the client's reader of the row's Response (client.cpp, decode_redacted): a 204
//    has no body; a NoContent answer is not read; the Prometheus text (text/plain) parses with
//    MergeQueueMetrics::parse; any other is JSON and decode<Response> reads it without throwing.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"
#include "generator.hpp"
#include "history.hpp"
#include "page_token.hpp"
#include "queue_store.hpp"
#include "service.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/merge_queue_answers.hpp"
#include "trunk/operations.hpp"
#include "trunk/wire_request.hpp"
#include "v2_service.hpp"

namespace {

namespace sb = trunk::sandbox;
using trunk::fuzz::excerpt;

constexpr std::string_view kApiKey = "trunk_v2_fuzzkey0123456789";
/// Another v2 key: refused with 401, and never to be echoed either.
constexpr std::string_view kWrongKey = "trunk_v2_notthekey9876543210";
/// A trunk token (x-trunk-token) the sandbox never made: as wrong as a wrong key.
constexpr std::string_view kWrongTrunkToken = "tt1.notonethesandboxmade";
/// v1's organization token, which v2 refuses (docs/reference/v2.md, "v1 tokens on v2").
constexpr std::string_view kToken = "fuzz-token-0123456789";
constexpr std::string_view kOrg = "trunk-sandbox";
/// Pull requests #1..#4 are submitted to storefront's main queue before every input.
constexpr int kSubmitted = 4;

// ---- the v2 rows -----------------------------------------------------------------------------------------------

/// Calls f(Op{}, index) for every v2 operation, index counting them in row order (the selector's operation).
template <typename F>
constexpr void for_each_v2_operation(F&& f) {
  int index = 0;
  trunk::for_each_operation([&](auto operation) {
    if constexpr (decltype(operation)::credential == trunk::Credential::api_key) f(operation, index++);
  });
}

constexpr int kV2Operations = [] {
  int count = 0;
  for_each_v2_operation([&](auto, int) { ++count; });
  return count;
}();
// Every v2 operation is fuzzed by construction (the selector indexes all of them); the selector must still reach them.
static_assert(kV2Operations > 0 && kV2Operations <= 64,
              "the selector's 5 operation bits and the input's parity no longer reach every v2 operation: widen them");

struct Row {
  std::string_view method;
  std::string_view path;
  std::string_view name;
};

const std::array<Row, kV2Operations>& rows() {
  static const auto table = [] {
    std::array<Row, kV2Operations> out{};
    for_each_v2_operation([&](auto operation, int index) {
      using Op = decltype(operation);
      out[static_cast<std::size_t>(index)] = Row{Op::method, Op::path, Op::name};
    });
    return out;
  }();
  return table;
}

// ---- the sandbox -----------------------------------------------------------------------------------------------

/// The clock of every Service here (queues and v2): fixed while a request runs, so the same input always meets the
/// same queues; make_service moves it to submit the pull requests earlier.
constexpr trunk::Timestamp kStart{std::chrono::sys_days{std::chrono::year{2026} / 1 / 15}};
constexpr trunk::Timestamp kNow = kStart + std::chrono::minutes(20);
trunk::Timestamp g_now = kNow;

const sb::History& history() {
  static const sb::History generated = sb::generate_history(7, 60, kStart);
  return generated;
}

const trunk::Repo& storefront() { return history().repos.at(0).repo; }

std::string main_queue_id() { return sb::merge_queue_id(storefront().to_string(), "main"); }

std::string submit_path() { return "/v2/merge-queues/" + main_queue_id() + "/pull-requests"; }

std::string bearer(std::string_view key) { return "Bearer " + std::string(key); }

/// A Service serving v2 to kApiKey, with pull requests #1..#4 submitted at kStart, answering at kNow.
std::unique_ptr<sb::Service> make_service() {
  g_now = kStart;
  const auto clock = [] { return g_now; };
  auto service = std::make_unique<sb::Service>(history(), std::string(kToken), std::string(kOrg),
                                               std::make_unique<sb::QueueStore>("", clock),
                                               sb::PageTokens(0x6675757a7a6b6579ULL, 0x73616e64626f7821ULL));
  service->enable_v2(std::string(kApiKey), clock);
  // #2 urgent and #3 not batched, so the queue holds more than one shape of entry.
  constexpr std::array<std::string_view, kSubmitted> kBodies = {
      R"({"number":1})", R"({"number":2,"priorityName":"urgent"})", R"({"number":3,"allowBatching":false})",
      R"({"number":4,"priorityValue":7})"};
  for (const std::string_view body : kBodies) {
    const sb::Reply reply = service->handle("POST", submit_path(), std::nullopt, body, {}, std::nullopt,
                                            bearer(kApiKey));
    FUZZ_REQUIRE(reply.status == 201, "setting up: submitting " + std::string(body) + " answered " +
                                          std::to_string(reply.status) + " " + excerpt(reply.body));
  }
  g_now = kNow;
  return service;
}

/// The GETs do not change the service (v2 remembers ids and when it first showed a queue, the same at every
/// input), so one instance serves them all; every other method gets a fresh one.
sb::Service& shared_service() {
  static const auto service = make_service();
  return *service;
}

/// The newest verification run of storefront's main queue, for the real id of a verification-run path.
const std::string& real_run_id() {
  static const std::string id = [] {
    const sb::Reply reply = shared_service().handle("GET", "/v2/merge-queues/" + main_queue_id() + "/verification-runs",
                                                    std::nullopt, {}, "limit=1", std::nullopt, bearer(kApiKey));
    FUZZ_REQUIRE(reply.status == 200, "setting up: listing the verification runs answered " + excerpt(reply.body));
    const auto runs = trunk::decode<trunk::VerificationRunList>(reply.body);
    FUZZ_REQUIRE(!runs.data.empty() && runs.data.front().id,
                 "setting up: no verification run 20 minutes after 4 submissions: " + excerpt(reply.body));
    return *runs.data.front().id;
  }();
  return id;
}

/// The real id a path parameter of `path_template` names (the selector's real-id bit).
std::string real_id(std::string_view path_template, std::string_view value) {
  const std::string repo_key = storefront().to_string();
  if (path_template.starts_with("/v2/merge-queues/")) return main_queue_id();
  if (path_template.starts_with("/v2/pull-requests/")) {
    return sb::pull_request_id(repo_key, 1 + static_cast<std::int64_t>(value.size() % kSubmitted));
  }
  if (path_template.starts_with("/v2/merge-queue-verification-runs/")) return real_run_id();
  if (path_template.starts_with("/v2/repositories/")) return sb::repository_id(repo_key);
  if (path_template.starts_with("/v2/test-collections/")) return sb::test_collection_id(repo_key);
  if (path_template.starts_with("/v2/tests/")) {
    const auto& tests = history().repos.at(0).tests;
    return tests.at(value.size() % tests.size()).id;
  }
  return std::string(value);  // no parameter: nothing is substituted
}

std::string substitute(std::string_view path_template, std::string_view value) {
  std::string path;
  while (!path_template.empty()) {
    const std::size_t open = path_template.find('{');
    path += path_template.substr(0, open);
    if (open == std::string_view::npos) break;
    path += value;
    path_template.remove_prefix(path_template.find('}', open) + 1);
  }
  return path;
}

// ---- the expected route ----------------------------------------------------------------------------------------

/// Where a request goes (docs/reference/v2.md; V2Service::handle): the rows whose template the path matches with
/// the fewest parameters (a literal segment wins over a parameter), and among them the one of the method.
struct Route {
  bool known = false;
  std::vector<std::string_view> methods;  ///< of the winning rows: what Allow must name
  int served = -1;                        ///< the winning row of the method, if any
};

Route route_of(std::string_view method, std::string_view path) {
  Route route;
  std::size_t fewest = 0;
  const auto& table = rows();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto matched = trunk::match_path(table[i].path, path);
    if (!matched) continue;
    if (route.known && matched->size() > fewest) continue;
    if (!route.known || matched->size() < fewest) {
      route.methods.clear();
      route.served = -1;
    }
    route.known = true;
    fewest = matched->size();
    route.methods.push_back(table[i].method);
    if (table[i].method == method) route.served = static_cast<int>(i);
  }
  return route;
}

std::string_view unserved_method(std::string_view path_template) {
  for (const std::string_view method : {"PUT", "PATCH", "DELETE", "POST", "GET"}) {
    bool served = false;
    for (const Row& row : rows()) served = served || (row.path == path_template && row.method == method);
    if (!served) return method;
  }
  return "TRACE";  // unreachable while a path serves at most four of the five
}

// ---- properties ------------------------------------------------------------------------------------------------

struct Request {
  std::string_view method;
  std::string path;
  std::optional<std::string> authorization;
  std::optional<std::string> trunk_token;  ///< the x-trunk-token header
  std::string_view body;
  std::string_view query;
};

std::string describe(const Request& request, const sb::Reply& reply) {
  std::string text = std::string(request.method) + " " + excerpt(request.path);
  if (!request.query.empty()) text += "?" + excerpt(request.query);
  text += request.authorization ? " (Authorization: " + excerpt(*request.authorization) + ")" : " (no Authorization)";
  if (request.trunk_token) text += " (x-trunk-token: " + excerpt(*request.trunk_token) + ")";
  if (!request.body.empty()) text += "\nrequest body " + excerpt(request.body);
  text += "\nstatus " + std::to_string(reply.status) + ", content type " + reply.content_type + ", reply " +
          excerpt(reply.body);
  for (const auto& header : reply.headers) text += "\nheader " + header.first + ": " + excerpt(header.second);
  return text;
}

bool contains(std::string_view text, std::string_view secret) { return text.find(secret) != std::string_view::npos; }

/// Whether the request itself carried `secret` where an answer may quote it back: the path, query or body, as sent,
/// percent-decoded or (the body) with its JSON escapes read. Only asked when a reply holds the secret.
bool request_carries(const Request& request, std::string_view secret) {
  for (const std::string_view text : {std::string_view(request.path), request.query, request.body}) {
    if (contains(text, secret)) return true;
    if (const auto decoded = trunk::percent_decode(text); decoded && contains(*decoded, secret)) return true;
  }
  const trunk::Json parsed = trunk::Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  return !parsed.is_discarded() && contains(parsed.dump(-1, ' ', false, trunk::Json::error_handler_t::replace), secret);
}

void check_no_leak(const Request& request, const sb::Reply& reply, std::string_view secret) {
  bool leaked = contains(reply.body, secret);
  for (const auto& header : reply.headers) leaked = leaked || contains(header.second, secret);
  FUZZ_REQUIRE(!leaked || request_carries(request, secret),
               "a credential leaked into a reply: " + std::string(secret) + "\n" + describe(request, reply));
}

/// v2's envelope; returns its code.
std::string check_envelope(const Request& request, const sb::Reply& reply) {
  FUZZ_REQUIRE(reply.content_type.rfind("application/json", 0) == 0,
               "error reply is not JSON: " + describe(request, reply));
  const trunk::Json json = trunk::Json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  FUZZ_REQUIRE(json.is_object() && json.contains("error") && json["error"].is_object() &&
                   json["error"].contains("code") && json["error"]["code"].is_string() &&
                   json["error"].contains("message") && json["error"]["message"].is_string(),
               "error reply is not v2's envelope: " + describe(request, reply));
  return json["error"]["code"].get<std::string>();
}

bool is_2xx(int status) { return status >= 200 && status < 300; }

/// A reply of row Op, which served the request.
template <typename Op>
void check_answer(const Request& request, const sb::Reply& reply) {
  using Response = typename Op::Response;
  if (!is_2xx(reply.status)) {
    FUZZ_REQUIRE(reply.status == 400 || reply.status == 404 || reply.status == 409 || reply.status == 422,
                 std::string(Op::name) + " answered a status it must not: " + describe(request, reply));
    FUZZ_REQUIRE(check_envelope(request, reply) != "NOT_FOUND",
                 std::string(Op::name) + " answered as if no operation were at the path: " + describe(request, reply));
    return;
  }
  FUZZ_REQUIRE(reply.status == Op::status, std::string(Op::name) + " succeeded with another status than its row's (" +
                                               std::to_string(Op::status) + "): " + describe(request, reply));
  if (reply.status == 204) FUZZ_REQUIRE(reply.body.empty(), "a 204 with a body: " + describe(request, reply));
  try {
    if constexpr (std::is_same_v<Response, trunk::NoContent>) {
      // The client reads nothing of it (client.cpp).
    } else if constexpr (trunk::kTextAnswer<Response>) {
      FUZZ_REQUIRE(reply.content_type.rfind("text/plain", 0) == 0, "metrics not text: " + describe(request, reply));
      static_cast<void>(Response::parse(reply.body));
    } else {
      FUZZ_REQUIRE(reply.content_type.rfind("application/json", 0) == 0,
                   "a 2xx answer not JSON: " + describe(request, reply));
      static_cast<void>(trunk::decode<Response>(reply.body));
    }
  } catch (const trunk::Error& e) {
    FUZZ_REQUIRE(false, std::string("a 2xx answer of ") + std::string(Op::name) +
                            " does not read with the client's decoder: " + e.what() + "\n" + describe(request, reply));
  }
}

void check_served(int served, const Request& request, const sb::Reply& reply) {
  for_each_v2_operation([&](auto operation, int index) {
    if (index == served) check_answer<decltype(operation)>(request, reply);
  });
}

void run(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t selector = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t operation = (selector & 0x1fU) | ((input.size() & 1U) << 5);
  const Row& row = rows()[operation % static_cast<std::size_t>(kV2Operations)];
  const int access = (selector >> 5) & 3;
  const bool real = (selector & 0x80) != 0;
  const std::size_t newline = input.find('\n');
  const std::string_view value = newline == std::string_view::npos ? std::string_view{} : input.substr(0, newline);
  const std::string_view rest = newline == std::string_view::npos ? input : input.substr(newline + 1);

  Request request;
  request.method = access == 3 ? unserved_method(row.path) : row.method;
  request.path = substitute(row.path, real ? real_id(row.path, value) : std::string(value));
  const bool query_method = request.method == "GET" || request.method == "DELETE";
  (query_method ? request.query : request.body) = rest;
  std::string_view wrong;  // the wrong credential sent, if any
  if (access == 0 || access == 3) {
    request.authorization = bearer(kApiKey);
  } else if (access == 2) {
    switch (rest.size() % 4) {
      case 0: request.authorization = bearer(kWrongKey); wrong = kWrongKey; break;
      case 1: request.authorization = std::string(kApiKey); break;  // no "Bearer ": not the scheme v2 takes
      case 2: request.authorization = bearer(kToken); wrong = kToken; break;
      default: request.trunk_token = std::string(kWrongTrunkToken); wrong = kWrongTrunkToken; break;
    }
  }

  std::unique_ptr<sb::Service> fresh;
  if (request.method != "GET") fresh = make_service();  // anything but a read may change the queues
  sb::Service& service = fresh ? *fresh : shared_service();
  const sb::Reply reply = service.handle(request.method, request.path, std::nullopt, request.body, request.query,
                                         std::nullopt, request.authorization, request.trunk_token);

  check_no_leak(request, reply, kApiKey);
  if (!wrong.empty()) check_no_leak(request, reply, wrong);
  FUZZ_REQUIRE(reply.status != 500, "a 500 (a sandbox bug): " + describe(request, reply));
  constexpr std::array<int, 12> kDocumented = {200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 422, 429};
  FUZZ_REQUIRE(std::find(kDocumented.begin(), kDocumented.end(), reply.status) != kDocumented.end(),
               "a status v2 does not document: " + describe(request, reply));
  if (!is_2xx(reply.status)) check_envelope(request, reply);

  const Route route = route_of(request.method, request.path);
  if (!route.known) {
    FUZZ_REQUIRE(reply.status == 404 && check_envelope(request, reply) == "NOT_FOUND",
                 "a path no v2 row matches not answered 404 NOT_FOUND: " + describe(request, reply));
    return;
  }
  if (access == 1 || access == 2) {
    FUZZ_REQUIRE(reply.status == 401, "a missing or wrong credential not answered 401: " + describe(request, reply));
    return;
  }
  FUZZ_REQUIRE(reply.status != 401, "the right API key answered 401: " + describe(request, reply));
  if (route.served < 0) {
    FUZZ_REQUIRE(reply.status == 405, "a method the path does not serve not answered 405: " + describe(request, reply));
    std::string allow;
    for (const auto& header : reply.headers) {
      if (header.first == "Allow") allow = header.second;
    }
    for (const std::string_view method : route.methods) {
      FUZZ_REQUIRE(contains(allow, method), "405 whose Allow lacks " + std::string(method) + ": " +
                                                describe(request, reply));
    }
    return;
  }
  check_served(route.served, request, reply);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  trunk::fuzz::run_input([&] { run(data, size); });
  return 0;
}
