// libFuzzer target: the sandbox's request handling, below HTTP (Service::handle: method, path, token, body in;
// status, content type, body out), so every execution is a full request without sockets.
//
// Input: one selector byte, then the request body (for getMergeQueueMetrics, a GET, its query string).
//   selector & 3, with bits 4-5 and 7     operation (operation_of): 0 list-failing-tests, 1 list-unhealthy-tests,
//                                         2 get-test-details, 3 updateQueue, 4.. every other operation, in
//                                         kOtherOperations' order
//   (selector >> 2) & 3                   access: 0 the operation's method with the right token, 1 no token,
//                                         2 a wrong token, 3 the other method (GET for POST, POST for GET)
//   selector & 0x40                       the path in another letter case (no such operation)
// '0'..'3' are the first four operations with the right token, so their seed files are one digit followed by
// JSON; the others' selectors are 0x20..0x23, 0x10..0x13, 0x00..0x03, 0xb0 (fuzz/corpus/make_seeds.py).
//
// The history is generated once (fixed seed and clock); updateQueue and the other merge-queue operations get a
// fresh Service (fresh queue store) per input, so a finding replays alone.
//
// Properties, besides "no crash, no sanitizer report, no exception other than trunk::Error escapes":
//  - the status is exactly the one docs/reference/service.md#errors decides: 404 unknown path, 405 not POST,
//    401 missing or wrong token, 400 exactly when the client's own decode + check rejects the body, 404 for an
//    unknown repository, organization or test, 500 only for a page token, else 200;
//  - every error body is one line of plain text; no body ever contains the token unless the request did;
//  - every 200 body decodes with the client's decoders, and says what was asked: pages no larger than
//    page_size, consistent page information, only tests that really failed in the window (checked against the
//    history), following next_page_token gives the next page without repeats; details of the requested id;
//    updateQueue echoes every field that was set, and an update that sets nothing changes nothing;
//  - every other operation (the merge queue's, link-ticket-to-test-case): 400 whenever the client's own decode +
//    check rejects the body; a request it accepts is answered 200, or refused for the state of the queue
//    (400, 404, 409) or an unknown repository (404), never 500; every 200 body decodes with the client's
//    decoder of that operation's answer (the Prometheus text parses).

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "fuzz_support.hpp"
#include "generator.hpp"
#include "history.hpp"
#include "page_token.hpp"
#include "queue_store.hpp"
#include "service.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/operations.hpp"
#include "trunk/validation.hpp"

namespace {

namespace sb = trunk::sandbox;
using trunk::fuzz::excerpt;

constexpr std::string_view kToken = "fuzz-token-0123456789";
constexpr std::string_view kWrongToken = "not-the-token";
constexpr std::string_view kOrg = "trunk-sandbox";
/// Pages followed after the first, per input: enough to cross page boundaries, bounded for speed.
constexpr int kMaxFollowedPages = 3;

/// Fixed clock and seed: the same input always meets the same data. 60 tests keep a Service cheap to build
/// per input while every repository still has failing, flaky and broken tests.
const sb::History& history() {
  static const sb::History generated = sb::generate_history(
      7, 60, trunk::Timestamp{std::chrono::sys_days{std::chrono::year{2026} / 1 / 15}});
  return generated;
}

std::unique_ptr<sb::Service> make_service() {
  return std::make_unique<sb::Service>(history(), std::string(kToken), std::string(kOrg),
                                       std::make_unique<sb::QueueStore>(""),
                                       sb::PageTokens(0x6675757a7a6b6579ULL, 0x73616e64626f7821ULL));
}

/// The listings, the details and the access checks do not change the service (its window cache only saves
/// time), so one instance serves them all; updateQueue gets a fresh one (fresh queue store) per input.
sb::Service& shared_service() {
  static const auto service = make_service();
  return *service;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

const sb::RepoHistory* find_repo(const trunk::Repo& repo) {
  for (const auto& candidate : history().repos) {
    if (candidate.repo == repo) return &candidate;
  }
  return nullptr;
}

const sb::TestRecord* find_test(const sb::RepoHistory& repo, const std::string& id) {
  for (const auto& test : repo.tests) {
    if (lower(test.id) == lower(id)) return &test;
  }
  return nullptr;
}

std::string describe(const sb::Reply& reply, std::string_view body) {
  return "status " + std::to_string(reply.status) + ", reply " + excerpt(reply.body) + "\nrequest body " +
         excerpt(body);
}

/// What every reply must satisfy, whatever the request. `text_answer`: a 200 is plain text (the Prometheus
/// exposition of getMergeQueueMetrics), not JSON.
void check_any_reply(const sb::Reply& reply, std::string_view request_body, bool text_answer = false) {
  if (request_body.find(kToken) == std::string_view::npos) {
    FUZZ_REQUIRE(reply.body.find(kToken) == std::string::npos, "the token leaked into a reply: " +
                                                                   describe(reply, request_body));
  }
  if (reply.status == 200) {
    // "application/json; charset=utf-8" (service.hpp).
    FUZZ_REQUIRE(reply.content_type.rfind(text_answer ? "text/plain" : "application/json", 0) == 0,
                 describe(reply, request_body));
    return;
  }
  FUZZ_REQUIRE(reply.content_type.rfind("text/plain", 0) == 0, "error reply is not plain text: " +
                                                                   describe(reply, request_body));
  FUZZ_REQUIRE(reply.body.size() > 1 && reply.body.back() == '\n' &&
                   reply.body.find('\n') == reply.body.size() - 1,
               "error body is not one line of text: " + describe(reply, request_body));
}

// ---- list operations ---------------------------------------------------------------------------------------

/// Ids of the tests that failed in [start, end) in listing order: what list-failing-tests must return.
std::vector<std::string> failing_ids(const sb::RepoHistory& repo, const trunk::ListFailingTestsRequest& request) {
  std::vector<std::string> ids;
  const auto start = sb::to_micros(request.start_time);
  const auto end = sb::to_micros(request.end_time);
  for (const auto& test : repo.tests) {
    if (sb::failed_in(test, start, end)) ids.push_back(test.id);
  }
  return ids;
}

template <typename Request>
void check_pages(sb::Service& service, std::string_view path, Request request, const sb::Reply& first,
                 std::string_view body, const std::optional<std::vector<std::string>>& expected_ids) {
  constexpr bool failing = std::is_same_v<Request, trunk::ListFailingTestsRequest>;
  const auto page_size = request.page_query.page_size;
  const bool from_first_page = request.page_query.page_token.empty();
  std::set<std::string> seen;
  sb::Reply reply = first;
  for (int followed = 0;; ++followed) {
    trunk::TestPage page;
    try {
      page = trunk::decode<trunk::TestPage>(reply.body);
    } catch (const trunk::Error& e) {
      FUZZ_REQUIRE(false, std::string("a 200 page does not decode: ") + e.what() + "\n" + describe(reply, body));
    }
    const auto& info = page.page;
    FUZZ_REQUIRE(info.total_rows && info.total_pages && info.page_index && info.next_page_token &&
                     info.prev_page_token && info.last_page_token,
                 "page information incomplete: " + describe(reply, body));
    FUZZ_REQUIRE(std::ssize(page.tests) <= page_size, "page larger than page_size: " + describe(reply, body));
    FUZZ_REQUIRE(*info.total_pages == (*info.total_rows + page_size - 1) / page_size,
                 "total_pages does not match total_rows and page_size: " + describe(reply, body));
    if (from_first_page) {
      FUZZ_REQUIRE(*info.page_index == followed, "page_index is not the number of pages followed: " +
                                                     describe(reply, body));
    }
    if (expected_ids) {
      FUZZ_REQUIRE(*info.total_rows == std::ssize(*expected_ids),
                   "total_rows differs from the tests that failed in the window (" +
                       std::to_string(expected_ids->size()) + "): " + describe(reply, body));
    }
    const bool last = info.next_page_token->empty();
    if (last && *info.total_rows > 0) {
      FUZZ_REQUIRE(*info.page_index + 1 == *info.total_pages, "last page has the wrong index: " + describe(reply, body));
    }
    if (!last) {
      FUZZ_REQUIRE(std::ssize(page.tests) == page_size, "a page before the last is not full: " + describe(reply, body));
    }
    for (std::size_t i = 0; i < page.tests.size(); ++i) {
      const auto& test = page.tests[i];
      FUZZ_REQUIRE(test.id.has_value(), "test without id: " + describe(reply, body));
      FUZZ_REQUIRE(seen.insert(*test.id).second, "test " + *test.id + " listed twice: " + describe(reply, body));
      FUZZ_REQUIRE(test.failure_rate_last_7d.has_value() == failing && test.most_common_failures.has_value() == failing,
                   "failure fields present on the wrong listing: " + describe(reply, body));
      if (expected_ids) {
        const auto position = static_cast<std::size_t>(*info.page_index * page_size) + i;
        FUZZ_REQUIRE(position < expected_ids->size() && (*expected_ids)[position] == *test.id,
                     "test " + *test.id + " is not the one that failed at position " + std::to_string(position) +
                         ": " + describe(reply, body));
      }
      if constexpr (!failing) {
        FUZZ_REQUIRE(test.status && test.status->value &&
                         test.status->value->wire() == lower(std::string(trunk::to_wire(request.status))),
                     "unhealthy listing returned a test of another status: " + describe(reply, body));
      }
    }
    if (last || followed == kMaxFollowedPages) return;

    request.page_query.page_token = *info.next_page_token;
    const std::string next_body = trunk::encode(request);
    reply = service.handle("POST", path, std::string(kToken), next_body);
    check_any_reply(reply, next_body);
    FUZZ_REQUIRE(reply.status == 200, "following next_page_token failed: " + describe(reply, next_body));
  }
}

template <typename Request>
std::optional<Request> client_side_accepts(std::string_view body) {
  try {
    Request request = trunk::decode<Request>(body);
    if (!trunk::check(request).empty()) return std::nullopt;
    return request;
  } catch (const trunk::Error&) {
    return std::nullopt;
  }
}

template <typename Request>
void check_request_round_trip(const Request& request, std::string_view body) {
  const std::string encoded = trunk::encode(request);
  FUZZ_REQUIRE(trunk::decode<Request>(encoded) == request,
               "request decode(encode(x)) != x: " + excerpt(body) + " -> " + excerpt(encoded));
}

template <typename Request>
void check_listing(std::string_view path, std::string_view body) {
  sb::Service& service = shared_service();
  const sb::Reply reply = service.handle("POST", path, std::string(kToken), body);
  check_any_reply(reply, body);
  const auto request = client_side_accepts<Request>(body);
  if (!request) {
    FUZZ_REQUIRE(reply.status == 400, "the client rejects this body, the sandbox did not: " + describe(reply, body));
    return;
  }
  check_request_round_trip(*request, body);
  const sb::RepoHistory* repo = find_repo(request->repo);
  if (repo == nullptr || request->org_url_slug != kOrg) {
    FUZZ_REQUIRE(reply.status == 404, "unknown repository or organization not 404: " + describe(reply, body));
    return;
  }
  if (reply.status == 500) {
    FUZZ_REQUIRE(!request->page_query.page_token.empty(), "500 without a page token: " + describe(reply, body));
    return;
  }
  FUZZ_REQUIRE(reply.status == 200, "valid request not answered 200: " + describe(reply, body));
  std::optional<std::vector<std::string>> expected_ids;
  if constexpr (std::is_same_v<Request, trunk::ListFailingTestsRequest>) expected_ids = failing_ids(*repo, *request);
  check_pages(service, path, *request, reply, body, expected_ids);
}

// ---- get-test-details --------------------------------------------------------------------------------------

void check_details(std::string_view path, std::string_view body) {
  const sb::Reply reply = shared_service().handle("POST", path, std::string(kToken), body);
  check_any_reply(reply, body);
  const auto request = client_side_accepts<trunk::GetTestDetailsRequest>(body);
  if (!request) {
    FUZZ_REQUIRE(reply.status == 400, "the client rejects this body, the sandbox did not: " + describe(reply, body));
    return;
  }
  check_request_round_trip(*request, body);
  const sb::RepoHistory* repo = find_repo(request->repo);
  if (repo == nullptr || request->org_url_slug != kOrg || find_test(*repo, request->test_id) == nullptr) {
    FUZZ_REQUIRE(reply.status == 404, "unknown repository, organization or test not 404: " + describe(reply, body));
    return;
  }
  FUZZ_REQUIRE(reply.status == 200, "valid request for a known test not answered 200: " + describe(reply, body));
  trunk::TestDetails details;
  try {
    details = trunk::decode<trunk::TestDetails>(reply.body);
  } catch (const trunk::Error& e) {
    FUZZ_REQUIRE(false, std::string("a 200 test details does not decode: ") + e.what() + "\n" + describe(reply, body));
  }
  FUZZ_REQUIRE(details.test.id && lower(*details.test.id) == lower(request->test_id),
               "details of another test: " + describe(reply, body));
  FUZZ_REQUIRE(details.test.failure_rate_last_7d && details.test.most_common_failures,
               "details without the failure fields: " + describe(reply, body));
}

// ---- updateQueue -------------------------------------------------------------------------------------------

trunk::QueueSettings decode_settings(const sb::Reply& reply, std::string_view body) {
  try {
    return trunk::decode<trunk::QueueSettings>(reply.body);
  } catch (const trunk::Error& e) {
    FUZZ_REQUIRE(false, std::string("200 queue settings do not decode: ") + e.what() + "\n" + describe(reply, body));
  }
}

template <typename Value, typename Reported>
bool echoes(const std::optional<Value>& requested, const std::optional<Reported>& reported) {
  return !requested || (reported && *reported == *requested);
}

void check_update_queue(std::string_view path, std::string_view body) {
  auto service = make_service();
  const sb::Reply reply = service->handle("POST", path, std::string(kToken), body);
  check_any_reply(reply, body);
  const auto request = client_side_accepts<trunk::UpdateQueueRequest>(body);
  if (!request) {
    FUZZ_REQUIRE(reply.status == 400, "the client rejects this body, the sandbox did not: " + describe(reply, body));
    return;
  }
  check_request_round_trip(*request, body);
  if (find_repo(request->repo) == nullptr) {
    FUZZ_REQUIRE(reply.status == 404, "unknown repository not 404: " + describe(reply, body));
    return;
  }
  if (request->target_branch != "main") {
    // Only main has a queue from the start; any other branch has none until createQueue.
    FUZZ_REQUIRE(reply.status == 404 && reply.body.rfind("not found: no merge queue", 0) == 0,
                 "update of a branch without a queue not 404: " + describe(reply, body));
    return;
  }
  FUZZ_REQUIRE(reply.status == 200, "valid update not answered 200: " + describe(reply, body));
  const trunk::QueueSettings s = decode_settings(reply, body);
  FUZZ_REQUIRE(s.state && s.branch && s.concurrency && s.testing_timeout_minutes && s.mode &&
                   s.can_optimistically_merge && s.pending_failure_depth && s.batch &&
                   s.batching_max_wait_time_minutes && s.batching_min_size && s.create_prs_for_testing_branches &&
                   s.comments_enabled && s.commands_enabled && s.status_check_enabled && s.bisection_concurrency &&
                   s.required_statuses && s.direct_merge_mode && s.optimization_mode && s.merge_method,
               "a required settings field is missing: " + describe(reply, body));
  const auto& r = *request;
  FUZZ_REQUIRE(*s.branch == r.target_branch, "branch not echoed: " + describe(reply, body));
  // The requested state, unless a change of mode waits for pull requests testing (switching_modes).
  FUZZ_REQUIRE(!r.state || *s.state == *r.state || *s.state == trunk::QueueState::switching_modes,
               "state not echoed: " + describe(reply, body));
  FUZZ_REQUIRE(!r.mode || *s.mode == *r.mode, "mode not echoed: " + describe(reply, body));
  FUZZ_REQUIRE(!r.direct_merge_mode || *s.direct_merge_mode == *r.direct_merge_mode, describe(reply, body));
  FUZZ_REQUIRE(!r.optimization_mode || *s.optimization_mode == *r.optimization_mode, describe(reply, body));
  FUZZ_REQUIRE(!r.merge_method || *s.merge_method == *r.merge_method, describe(reply, body));
  FUZZ_REQUIRE(echoes(r.concurrency, s.concurrency) && echoes(r.bisection_concurrency, s.bisection_concurrency) &&
                   echoes(r.testing_timeout_minutes, s.testing_timeout_minutes) &&
                   echoes(r.pending_failure_depth, s.pending_failure_depth) &&
                   echoes(r.batching_max_wait_time_minutes, s.batching_max_wait_time_minutes) &&
                   echoes(r.batching_min_size, s.batching_min_size),
               "an integer setting not echoed: " + describe(reply, body));
  FUZZ_REQUIRE(echoes(r.can_optimistically_merge, s.can_optimistically_merge) && echoes(r.batch, s.batch) &&
                   echoes(r.comments_enabled, s.comments_enabled) && echoes(r.commands_enabled, s.commands_enabled) &&
                   echoes(r.create_prs_for_testing_branches, s.create_prs_for_testing_branches) &&
                   echoes(r.status_check_enabled, s.status_check_enabled),
               "a boolean setting not echoed: " + describe(reply, body));
  if (r.delete_required_statuses.value_or(false)) {
    FUZZ_REQUIRE(*s.required_statuses == sb::kBranchProtectionStatuses,
                 "deleteRequiredStatuses did not fall back to branch protection: " + describe(reply, body));
  } else {
    FUZZ_REQUIRE(echoes(r.required_statuses, s.required_statuses), "requiredStatuses not echoed: " + describe(reply, body));
  }

  // Omitted fields leave the settings unchanged (docs/reference/service.md#queue-settings): an empty update reports
  // the same.
  trunk::UpdateQueueRequest nothing;
  nothing.repo = r.repo;
  nothing.target_branch = r.target_branch;
  const std::string nothing_body = trunk::encode(nothing);
  const sb::Reply again = service->handle("POST", path, std::string(kToken), nothing_body);
  check_any_reply(again, nothing_body);
  FUZZ_REQUIRE(again.status == 200, "empty update not answered 200: " + describe(again, nothing_body));
  FUZZ_REQUIRE(decode_settings(again, nothing_body) == s,
               "an update that sets nothing changed the settings: " + describe(again, nothing_body));
}

// ---- every other operation ---------------------------------------------------------------------------------

/// The operations beyond the four above, in the order of their selector values 4, 5, ...
using OtherOperations =
    std::tuple<trunk::op::ListQuarantinedTests, trunk::op::GetQueue, trunk::op::CreateQueue, trunk::op::DeleteQueue,
               trunk::op::SubmitPullRequest, trunk::op::CancelPullRequest, trunk::op::RestartTestsOnPullRequest,
               trunk::op::GetSubmittedPullRequest, trunk::op::ListPullRequests, trunk::op::SetImpactedTargets,
               trunk::op::GetMergeQueueTestingDetails, trunk::op::GetMergeQueueMetrics,
               trunk::op::LinkTicketToTestCase, trunk::op::GetSubmittedPullRequests,
               trunk::op::ListMergeQueueTestingResults, trunk::op::GetStatus>;
constexpr int kOperations = 4 + static_cast<int>(std::tuple_size_v<OtherOperations>);
/// v1's operations, every one of which this target fuzzes. v2's (the Authorization-keyed V2Service) are fuzzed by
/// fuzz_sandbox_v2, which indexes every v2 row.
constexpr int kV1Operations = [] {
  int count = 0;
  trunk::for_each_operation([&](auto operation) {
    if (decltype(operation)::credential != trunk::Credential::api_key) ++count;
  });
  return count;
}();
static_assert(kOperations == kV1Operations, "a v1 operation is missing from the fuzz target");

template <typename Op>
void check_other_operation(std::string_view body) {
  using Request = typename Op::Request;
  using Response = typename Op::Response;
  auto service = make_service();  // the merge-queue operations change the queue store
  constexpr bool get = Op::method == std::string_view("GET");
  const sb::Reply reply = get ? service->handle("GET", Op::path, std::string(kToken), "", body)
                              : service->handle("POST", Op::path, std::string(kToken), body);
  check_any_reply(reply, body, trunk::kTextAnswer<Response>);
  FUZZ_REQUIRE(reply.status != 500, "500 from " + std::string(Op::path) + ": " + describe(reply, body));
  if constexpr (!get) {
    const auto request = client_side_accepts<Request>(body);
    if (!request) {
      FUZZ_REQUIRE(reply.status == 400, "the client rejects this body, the sandbox did not: " + describe(reply, body));
      return;
    }
    check_request_round_trip(*request, body);
    if (find_repo(request->repo) == nullptr) {
      FUZZ_REQUIRE(reply.status == 404, "unknown repository not 404: " + describe(reply, body));
      return;
    }
    FUZZ_REQUIRE(reply.status == 200 || reply.status == 400 || reply.status == 404 || reply.status == 409,
                 "a valid request answered neither 200 nor a refusal of the queue's state: " + describe(reply, body));
  }
  if (reply.status != 200) return;
  try {
    if constexpr (trunk::kTextAnswer<Response>) {
      static_cast<void>(Response::parse(reply.body));
    } else {
      static_cast<void>(trunk::decode<Response>(reply.body));
    }
  } catch (const trunk::Error& e) {
    FUZZ_REQUIRE(false, std::string("a 200 answer does not decode: ") + e.what() + "\n" + describe(reply, body));
  }
}

/// The operation of a selector: bits 0-1 and, above them, bits 4-5 (inverted, so that the digits '0'..'3', whose
/// bits 4-5 are set, stay the first four operations) and bit 7.
int operation_of(std::uint8_t selector) {
  const int low = selector & 3;
  const int middle = ((selector >> 4) & 3) ^ 3;
  const int high = selector >> 7;
  return (low | (middle << 2) | (high << 4)) % kOperations;
}

/// The path and method of operation `index` (operation_of).
std::pair<std::string_view, std::string_view> route_of(int index) {
  constexpr std::string_view kFirstPaths[] = {trunk::paths::kListFailingTests, trunk::paths::kListUnhealthyTests,
                                              trunk::paths::kGetTestDetails, trunk::paths::kUpdateQueue};
  if (index < 4) return {kFirstPaths[index], "POST"};
  std::pair<std::string_view, std::string_view> route;
  int position = 4;
  std::apply([&](auto... operations) {
    ((position++ == index ? (route = {decltype(operations)::path, decltype(operations)::method}, 0) : 0), ...);
  }, OtherOperations{});
  return route;
}

/// Whether the operation at `index` needs a credential: all but those their request declares public (GET /v1/status,
/// Credential::none), which answer with or without a token.
bool needs_credential(int index) {
  bool needs = true;
  int position = 4;
  std::apply([&](auto... operations) {
    ((position++ == index ? (needs = decltype(operations)::credential != trunk::Credential::none, 0) : 0), ...);
  }, OtherOperations{});
  return needs;
}

void check_other_operation(int index, std::string_view body) {
  int position = 4;
  std::apply([&](auto... operations) {
    ((position++ == index ? (check_other_operation<decltype(operations)>(body), 0) : 0), ...);
  }, OtherOperations{});
}

std::string other_case(std::string_view path) {
  std::string out(path);
  for (char& c : out) c = static_cast<char>(std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c));
  return out;
}

}  // namespace

namespace {

void run(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t selector = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const int operation = operation_of(selector);
  const int access = (selector >> 2) & 3;
  const auto [path, method] = route_of(operation);
  const std::string_view other_method = method == "GET" ? "POST" : "GET";

  if ((selector & 0x40) != 0) {
    const std::string wrong_path = other_case(path);
    const sb::Reply reply = shared_service().handle(access == 3 ? other_method : method, wrong_path,
                                                    std::string(kToken), body);
    check_any_reply(reply, body);
    FUZZ_REQUIRE(reply.status == 404, "unknown path " + wrong_path + " not 404: " + describe(reply, body));
    return;
  }
  if (access != 0) {
    std::optional<std::string> token;
    if (access == 2) token = std::string(kWrongToken);
    if (access == 3) token = std::string(kToken);
    const sb::Reply reply = shared_service().handle(access == 3 ? other_method : method, path, token, body);
    check_any_reply(reply, body);
    FUZZ_REQUIRE(reply.body.find(kWrongToken) == std::string::npos || body.find(kWrongToken) != std::string_view::npos,
                 "the wrong token was echoed: " + describe(reply, body));
    const bool refused = access == 3 ? reply.status == 405
                         : needs_credential(operation) ? reply.status == 401
                                                       : reply.status != 401;  // public: no token needed
    FUZZ_REQUIRE(refused, "access check failed: " + describe(reply, body));
    if (access == 3) {
      const bool allow = std::find(reply.headers.begin(), reply.headers.end(),
                                   std::pair<std::string, std::string>("Allow", method)) != reply.headers.end();
      FUZZ_REQUIRE(allow, "405 without Allow: " + std::string(method) + ": " + describe(reply, body));
    }
    return;
  }
  switch (operation) {
    case 0: check_listing<trunk::ListFailingTestsRequest>(path, body); break;
    case 1: check_listing<trunk::ListUnhealthyTestsRequest>(path, body); break;
    case 2: check_details(path, body); break;
    case 3: check_update_queue(path, body); break;
    default: check_other_operation(operation, body); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  trunk::fuzz::run_input([&] { run(data, size); });
  return 0;
}
