#include "service.hpp"

#include "identifiers.hpp"
#include "v2_service.hpp"

#include <algorithm>
#include <cctype>
#include <concepts>

#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/openapi.hpp"
#include "trunk/validation.hpp"

namespace trunk::sandbox {

namespace {

constexpr std::size_t kMaxCachedWindows = 256;

/// Where the OpenAPI document of the operations is served, to anyone: it describes the API, it holds no data.
constexpr std::string_view kOpenApiPath = "/openapi.json";

}  // namespace

Reply json_reply(const trunk::Json& json, int status) {
  Reply reply;
  reply.status = status;
  reply.body = json.dump();
  return reply;
}

Reply method_not_allowed(std::string_view method, std::string_view allowed) {
  Reply reply = text_reply(405, "method not allowed: " + std::string(method) + " (use " + std::string(allowed) + ")");
  reply.headers.emplace_back("Allow", std::string(allowed));
  return reply;
}

std::optional<Reply> refuse_token(const std::optional<std::string>& token, std::string_view expected) {
  if (!token) return text_reply(401, "unauthorized: missing x-api-token header");
  if (!constant_time_equal(*token, expected)) return text_reply(401, "unauthorized: invalid API token");
  return std::nullopt;
}

Reply text_reply(int status, std::string message) {
  // Error bodies are one line of text: a newline in a quoted value must not start a second one.
  std::replace_if(message.begin(), message.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  Reply reply;
  reply.status = status;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = std::move(message) + "\n";
  return reply;
}

namespace {

constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

/// Decodes and validates a request (from the query string for the GET operation); on failure fills *error
/// with the 400 reply.
template <typename Request>
std::optional<Request> read_request(std::string_view body, std::string_view query, Reply* error) {
  try {
    Request request;
    if constexpr (std::is_same_v<Request, trunk::GetMergeQueueMetricsRequest>) {
      request = trunk::metrics_request_from_query(query);
    } else if constexpr (trunk::schema::field_count<Request>() == 0) {
      // GET /v1/status: nothing to read (no body, no query described); whatever came with it is not looked at.
    } else if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      // Said plainly: a POST without Content-Length (or with 0) has no body at all (RFC 9112 6.3).
      *error = text_reply(400, "malformed request: the body is empty; request body must be JSON");
      return std::nullopt;
    } else {
      request = trunk::decode<Request>(body);
    }
    // By the service's ranges, not the contract's: the sandbox stands in for the service, which takes more in a
    // few places (pendingFailureDepth 0, its default; describe.hpp Rules::service_min).
    auto violations = trunk::check(request, "", trunk::Judge::service);
    if (!violations.empty()) throw trunk::ValidationError(std::move(violations));
    return request;
  } catch (const trunk::ValidationError& e) {
    *error = text_reply(400, std::string("invalid request: ") + e.what());
  } catch (const trunk::DecodeError& e) {
    *error = text_reply(400, std::string("malformed request: ") + e.what());
  } catch (const trunk::Error& e) {
    *error = text_reply(400, std::string("invalid request: ") + e.what());
  } catch (const std::exception& e) {
    // Whatever else the JSON layer throws (e.g. a number literal beyond a double's range, fuzz finding F1) is
    // still a bad request, not a server error.
    *error = text_reply(400, std::string("malformed request: ") + e.what());
  }
  return std::nullopt;
}

/// GET (or HEAD, which the HTTP server answers without the body) of the OpenAPI document; 405 for other methods.
Reply openapi_reply(std::string_view method) {
  if (method != "GET" && method != "HEAD") {
    Reply reply = text_reply(405, "method not allowed: " + std::string(method) + " (use GET)");
    reply.headers.emplace_back("Allow", "GET, HEAD");
    return reply;
  }
  Reply reply;
  reply.body = trunk::openapi_document();
  return reply;
}

}  // namespace

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  // The length is not secret enough to hide (tokens have a fixed format), but every byte is still visited.
  unsigned char difference = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    difference = static_cast<unsigned char>(difference | (x ^ y));
  }
  return difference == 0;
}

Service::Service(History history, std::string token, std::string org_url_slug, std::unique_ptr<QueueStore> queues,
                 PageTokens page_tokens, std::size_t test_json_budget)
    : history_(std::move(history)),
      token_(std::move(token)),
      org_url_slug_(std::move(org_url_slug)),
      queues_(std::move(queues)),
      page_tokens_(page_tokens) {
  // Everything that depends only on the history is derived once here, so a request only pages.
  index_.resize(history_.repos.size());
  for (std::size_t r = 0; r < history_.repos.size(); ++r) {
    RepoIndex& index = index_[r];
    index.data = &history_.repos[r];
    const auto& tests = history_.repos[r].tests;
    index.facts.reserve(tests.size());
    for (std::uint32_t t = 0; t < tests.size(); ++t) {
      index.facts.push_back(derive(history_.repos[r], tests[t], history_.now));
      index.by_id.emplace(lower(tests[t].id), t);
      if (index.facts.back().health == Health::flaky) index.flaky.push_back(t);
      if (index.facts.back().health == Health::broken) index.broken.push_back(t);
      if (tests[t].quarantined) index.quarantined.push_back(t);
    }
  }
  std::vector<std::size_t> tests_per_repo;
  for (const auto& repo : history_.repos) tests_per_repo.push_back(repo.tests.size());
  test_json_ = std::make_unique<TestJsonCache>(tests_per_repo, test_json_budget);
  std::vector<std::pair<trunk::Repo, FailureModel>> repositories;
  for (const RepoIndex& index : index_) {
    repositories.emplace_back(index.data->repo, derive_failure_model(*index.data, index.facts, 0));
  }
  queues_->adopt_repositories(repositories);
}

std::vector<trunk::Repo> Service::repos() const {
  std::vector<trunk::Repo> out;
  for (const auto& repo : history_.repos) out.push_back(repo.repo);
  return out;
}

std::vector<std::string> Service::test_ids(const trunk::Repo& repo) const {
  std::vector<std::string> out;
  for (const auto& data : history_.repos) {
    if (data.repo != repo) continue;
    for (const auto& test : data.tests) out.push_back(test.id);
  }
  return out;
}

std::optional<Reply> Service::find_repo(const trunk::Repo& repo, const RepoIndex** index) const {
  for (const auto& candidate : index_) {
    if (candidate.data->repo == repo) {
      *index = &candidate;
      return std::nullopt;
    }
  }
  return text_reply(404, "not found: repository " + repo.to_string() + " is not onboarded in this organization");
}

std::optional<Reply> Service::check_org(const std::string& org_url_slug) const {
  if (org_url_slug == org_url_slug_) return std::nullopt;
  return text_reply(404, "not found: organization \"" + org_url_slug + "\" (this token belongs to \"" +
                             org_url_slug_ + "\")");
}

Service::Rows Service::failing_rows(std::size_t repo_index, std::int64_t start_us, std::int64_t end_us) {
  const auto key = std::make_tuple(repo_index, start_us, end_us);
  {
    std::lock_guard lock(cache_mutex_);
    if (auto it = window_cache_.find(key); it != window_cache_.end()) return it->second;
  }
  auto rows = std::make_shared<std::vector<std::uint32_t>>();
  const auto& tests = history_.repos[repo_index].tests;
  for (std::uint32_t t = 0; t < tests.size(); ++t) {
    if (failed_in(tests[t], start_us, end_us)) rows->push_back(t);
  }
  std::lock_guard lock(cache_mutex_);
  if (window_cache_.size() >= kMaxCachedWindows) window_cache_.clear();
  window_cache_.emplace(key, rows);
  return rows;
}

std::variant<Service::PageWindow, Reply> Service::page_window(std::size_t total_rows,
                                                             const std::string& canonical_query,
                                                             const trunk::PageQuery& page_query) {
  const std::uint64_t digest = page_tokens_.query_digest(canonical_query);
  const auto size = static_cast<std::uint64_t>(page_query.page_size);
  const std::uint64_t total = total_rows;
  std::uint64_t offset = 0;
  if (!page_query.page_token.empty()) {
    auto opened = page_tokens_.open(page_query.page_token, digest);
    if (!opened || *opened >= std::max<std::uint64_t>(total, 1)) {
      return text_reply(500, "internal error: page_token was not issued for this query");
    }
    offset = *opened;
  }
  const std::uint64_t pages = (total + size - 1) / size;
  const std::uint64_t index = offset / size;
  auto token_at = [&](std::uint64_t at) { return page_tokens_.issue(digest, static_cast<std::uint32_t>(at)); };
  PageWindow window;
  window.begin = offset;
  window.end = std::min(total, offset + size);
  trunk::PageInfo& info = window.info;
  info.total_rows = static_cast<std::int64_t>(total);
  info.total_pages = static_cast<std::int64_t>(pages);
  info.page_index = static_cast<std::int64_t>(index);
  info.next_page_token = offset + size < total ? token_at(offset + size) : "";
  info.prev_page_token = offset > 0 ? token_at(offset - size) : "";
  // Decision: "" on the last page (like next_page_token: there is nowhere further to go).
  info.last_page_token = pages > 0 && index + 1 < pages ? token_at((pages - 1) * size) : "";
  return window;
}

Reply Service::page_reply(const RepoIndex& repo, const std::vector<std::uint32_t>& rows,
                          const std::string& canonical_query, const trunk::PageQuery& page_query,
                          bool with_failure_fields) {
  auto window = page_window(rows.size(), canonical_query, page_query);
  if (auto* error = std::get_if<Reply>(&window)) return std::move(*error);
  const auto& [info, offset, end] = std::get<PageWindow>(window);

  // The same bytes as trunk::to_json(TestPage).dump(): nlohmann writes an object's keys in sorted order
  // ("page" before "tests") and compact separators; each test is its cached dump (encoded_tests.hpp).
  Reply reply;
  std::string& body = reply.body;
  body.reserve(static_cast<std::size_t>(end - offset) * 1200 + 512);
  body += R"({"page":)";
  body += trunk::to_json(info).dump();
  body += R"(,"tests":[)";
  std::string scratch;
  for (std::uint64_t i = offset; i < end; ++i) {
    const std::uint32_t t = rows[static_cast<std::size_t>(i)];
    if (i != offset) body += ',';
    body += served_test_json(repo, t, with_failure_fields, scratch);
  }
  body += "]}";
  return reply;
}

std::string_view Service::served_test_json(const RepoIndex& repo, std::uint32_t t, bool with_failure_fields,
                                           std::string& scratch) {
  const auto repo_index = static_cast<std::size_t>(&repo - index_.data());
  const std::string_view cached =
      test_json_->get(repo_index, t, *repo.data, repo.facts[t], org_url_slug_, with_failure_fields, scratch);
  const bool tickets = any_ticket_linked_.load(std::memory_order_acquire);
  if (!tickets && !any_status_set_.load(std::memory_order_acquire) &&
      !any_quarantine_set_.load(std::memory_order_acquire) && !any_mute_set_.load(std::memory_order_acquire)) {
    return cached;
  }
  std::optional<std::string> ticket;
  if (tickets) {
    std::lock_guard lock(tickets_mutex_);
    const auto linked = tickets_.find(repo.data->tests[t].id);
    if (linked != tickets_.end()) ticket = linked->second;
  }
  const std::optional<ShownStatus> status =
      shown_status(repo, t, status_override(repo.data->tests[t].id), mutes_of(repo.data->tests[t].id));
  const std::optional<QuarantineOverride> quarantine = quarantine_override_of(repo.data->tests[t].id);
  if (!ticket && !status && !quarantine) return cached;
  // Rare (a test someone linked, whose status was set or muted, or whose quarantine was overridden): the cached text
  // is left as it is, and this test's JSON re-made around it.
  trunk::Json test = trunk::Json::parse(cached);
  if (quarantine) test["quarantined"] = quarantine->always;
  if (ticket) test["ticket"] = trunk::Json{{"html_url", ticket_url(*ticket)}};
  if (status) {
    test["status"] = trunk::Json{{"value", health_wire(status->health)},
                                 {"reason", std::string(status->reason)},
                                 {"timestamp", trunk::format_rfc3339(status->since)}};
  }
  scratch = test.dump();
  return scratch;
}

template <>
auto Service::answer(const trunk::ListFailingTestsRequest& request, const RepoIndex& repo) {
  const std::int64_t start = to_micros(request.start_time);
  const std::int64_t end = to_micros(request.end_time);
  const Rows rows = failing_rows(static_cast<std::size_t>(&repo - index_.data()), start, end);
  const std::string canonical = "failing\n" + request.repo.to_string() + "\n" + request.org_url_slug + "\n" +
                                std::to_string(start) + "\n" + std::to_string(end) + "\n" +
                                std::to_string(request.page_query.page_size);
  return page_reply(repo, *rows, canonical, request.page_query, true);
}

template <>
auto Service::answer(const trunk::ListUnhealthyTestsRequest& request, const RepoIndex& repo) {
  const bool flaky = request.status == trunk::HealthStatus::flaky;
  const std::string canonical = "unhealthy\n" + request.repo.to_string() + "\n" + request.org_url_slug + "\n" +
                                std::string(trunk::to_wire(request.status)) + "\n" +
                                std::to_string(request.page_query.page_size);
  if (any_status_set_.load(std::memory_order_acquire) ||
      any_mute_set_.load(std::memory_order_acquire)) {  // a status was set or a monitor muted: the rows as they stand now
    return page_reply(repo, unhealthy_rows(repo, flaky ? Health::flaky : Health::broken), canonical,
                      request.page_query, false);
  }
  return page_reply(repo, flaky ? repo.flaky : repo.broken, canonical, request.page_query, false);
}

template <>
auto Service::answer(const trunk::GetTestDetailsRequest& request, const RepoIndex& repo) {
  auto it = repo.by_id.find(lower(request.test_id));
  if (it == repo.by_id.end()) {
    return text_reply(404, "not found: test " + request.test_id + " in repository " + request.repo.to_string());
  }
  // trunk::to_json(TestDetails).dump() is {"test":<the test's dump>}: splice the cached one.
  std::string scratch;
  Reply reply;
  reply.body = R"({"test":)";
  reply.body += served_test_json(repo, it->second, true, scratch);
  reply.body += '}';
  return reply;
}

template <>
auto Service::answer(const trunk::UpdateQueueRequest& request, const RepoIndex&) {
  return queues_->update(request);
}

template <>
auto Service::answer(const trunk::GetQueueRequest& request, const RepoIndex&) {
  return queues_->get(request.repo, request.target_branch);
}

template <>
auto Service::answer(const trunk::CreateQueueRequest& request, const RepoIndex&) {
  return queues_->create(request);
}

template <>
auto Service::answer(const trunk::DeleteQueueRequest& request, const RepoIndex&) {
  return queues_->remove(request);
}

template <>
auto Service::answer(const trunk::SubmitPullRequestRequest& request, const RepoIndex&) {
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
                               return queue.submit(request, settings);
                             });
}

template <>
auto Service::answer(const trunk::CancelPullRequestRequest& request, const RepoIndex&) {
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
                               return queue.cancel(request.pr.number, settings);
                             });
}

template <>
auto Service::answer(const trunk::RestartTestsOnPullRequestRequest& request, const RepoIndex&) {
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
                               return queue.restart(request.pr.number, settings);
                             });
}

template <>
auto Service::answer(const trunk::SetImpactedTargetsRequest& request, const RepoIndex&) {
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
                               return queue.set_impacted_targets(request, settings);
                             });
}

template <>
auto Service::answer(const trunk::GetSubmittedPullRequestRequest& request, const RepoIndex&) {
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings&) {
                               return queue.submitted(request.pr.number);
                             });
}

template <>
auto Service::answer(const trunk::GetSubmittedPullRequestsRequest& request, const RepoIndex&) {
  // Each number as getSubmittedPullRequest answers it; one it would refuse with 404 goes to notFound instead.
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings&) {
                               trunk::SubmittedPullRequests out;
                               for (const trunk::PullRequestRef& pr : request.prs) {
                                 auto one = queue.submitted(pr.number);
                                 if (auto* found = std::get_if<trunk::SubmittedPullRequest>(&one)) {
                                   out.pull_requests.push_back(std::move(*found));
                                 } else {
                                   out.not_found.emplace_back().number = pr.number;
                                 }
                               }
                               return out;
                             });
}

template <>
auto Service::answer(const trunk::ListPullRequestsRequest& request, const RepoIndex&) {
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings&) { return queue.list(request); });
}

template <>
auto Service::answer(const trunk::GetMergeQueueTestingDetailsRequest& request, const RepoIndex&) {
  const auto source = queues_->statuses_source(request.repo, request.target_branch);
  return queues_->with_queue(request.repo, request.target_branch,
                             [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
                               return queue.run_details(request.test_run_id, settings, source);
                             });
}

template <>
auto Service::answer(const trunk::ListMergeQueueTestingResultsRequest& request, const RepoIndex&) {
  // The queue's finished runs, one entry per pull request each tested, newest first: the runs
  // getMergeQueueTestingDetails describes, by the same id. In-progress runs are left out (the page: "Testing still
  // in progress is not included"). until defaults to the queue's now; the service keeps 45 days, so what ended
  // earlier than that before until is not there to return (an empty answer, not an error). since after until
  // matches nothing.
  return queues_->with_queue(
      request.repo, request.target_branch, [&](MergeQueue& queue, const trunk::QueueSettings&) {
        const trunk::Timestamp until = request.until.value_or(queue.now());
        const trunk::Timestamp since = std::max(request.since, until - trunk::kTestingResultsWindow);
        std::vector<MergeQueue::RunView> runs = queue.runs();
        std::erase_if(runs, [&](const MergeQueue::RunView& run) {
          return run.status == trunk::TestingStatus::in_progress || run.updated_at < since || run.updated_at > until;
        });
        std::stable_sort(runs.begin(), runs.end(),
                         [](const auto& a, const auto& b) { return a.updated_at > b.updated_at; });
        std::vector<trunk::MergeQueueTestingResult> all;
        for (const MergeQueue::RunView& run : runs) {
          for (const auto& pr : run.tested) {
            trunk::MergeQueueTestingResult& r = all.emplace_back();
            r.test_run_id = run.id;
            r.pr_number = pr.number;
            r.ended_at = run.updated_at;
            r.testing_duration_ms =
                std::chrono::duration_cast<std::chrono::milliseconds>(run.updated_at - run.created_at).count();
            r.outcome = run.status == trunk::TestingStatus::succeeded ? trunk::TestingOutcome::passed
                        : run.status == trunk::TestingStatus::failed  ? trunk::TestingOutcome::failed
                                                                      : trunk::TestingOutcome::interrupted;
            r.is_bisection = run.bisection;
          }
        }
        trunk::MergeQueueTestingResults out;
        out.total = static_cast<std::int64_t>(all.size());
        // offset and take were checked (0 or more; 1..100) before the answer was asked for.
        const std::size_t begin = std::min(all.size(), static_cast<std::size_t>(request.offset.value_or(0)));
        const std::size_t end = std::min(all.size(), begin + static_cast<std::size_t>(request.take));
        out.results.assign(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(begin)),
                           std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(end)));
        return out;
      });
}

template <>
auto Service::answer(const trunk::StatusRequest&) {
  std::lock_guard lock(service_status_mutex_);
  if (service_status_) return *service_status_;
  // Every service up, in the description's words for that case (its overallStatusDescription is a constant).
  trunk::ServiceStatus up;
  up.overall_status.emplace();
  up.overall_status->type = "up";
  up.overall_status->color = "green";
  up.overall_status->overall_status_description = "All systems operational";
  for (const char* name : {"API", "Merge Queue", "Flaky Tests"}) {
    trunk::ComponentStatus& one = up.statuses.emplace_back();
    one.name = name;
    one.color = "green";
    one.status_description = "Operational";
  }
  return up;
}

void Service::set_service_status(std::optional<trunk::ServiceStatus> status) {
  std::lock_guard lock(service_status_mutex_);
  service_status_ = std::move(status);
}

template <>
auto Service::answer(const trunk::GetMergeQueueMetricsRequest& request) {
  // Without repo the metrics are those of every repository (Trunk's metrics guide: "omit both the repo and
  // repoHost parameters"); serve<Op> has checked a named one.
  Reply reply;
  reply.content_type = kMetricsContentType;
  reply.body = queues_->metrics(request.repo);
  return reply;
}

template <>
auto Service::answer(const trunk::LinkTicketToTestCaseRequest& request, const RepoIndex& repo) {
  const std::string id = lower(request.test_case_id);
  if (repo.by_id.count(id) == 0) {
    return text_reply(404, "not found: test " + request.test_case_id + " in repository " + request.repo.to_string());
  }
  link_ticket(id, request.external_ticket_id);
  return json_reply(trunk::to_json(trunk::Acknowledgement{}));
}

template <>
auto Service::answer(const trunk::ListQuarantinedTestsRequest& request, const RepoIndex& repo) {
  const std::string canonical = "quarantined\n" + request.repo.to_string() + "\n" + request.org_url_slug + "\n" +
                                std::to_string(request.page_query.page_size);
  const std::vector<std::uint32_t> rows = quarantined_rows(repo);
  auto window = page_window(rows.size(), canonical, request.page_query);
  if (auto* error = std::get_if<Reply>(&window)) return std::move(*error);
  const auto& [info, begin, end] = std::get<PageWindow>(window);
  trunk::QuarantinedTestPage page;
  page.page = info;
  for (auto i = begin; i < end; ++i) {
    const std::uint32_t t = rows[static_cast<std::size_t>(i)];
    const TestRecord& test = repo.data->tests[t];
    page.quarantined_tests.push_back(
        to_quarantined_test(test, effective_facts(repo, t), quarantine_override_of(test.id)));
  }
  return json_reply(trunk::to_json(page));
}

// ---- routing: after the answers, so that serve<Op> sees every specialisation of answer -----------------------

namespace {

/// What a request names, read from its members: the repository its answer is about (404 when the sandbox holds
/// no data for it), possibly absent (getMergeQueueMetrics: every repository), and the organization (404 when the
/// token belongs to another one). link-ticket-to-test-case names no organization, so none is checked.
template <typename Request>
concept NamesRepo = requires(const Request& r) {
  { r.repo } -> std::same_as<const trunk::Repo&>;
};
template <typename Request>
concept MayNameRepo = requires(const Request& r) {
  { r.repo } -> std::same_as<const std::optional<trunk::Repo>&>;
};
template <typename Request>
concept NamesOrg = requires(const Request& r) {
  { r.org_url_slug } -> std::same_as<const std::string&>;
};

// What an answer returns, made the reply: the reply itself; a model, as its JSON; an empty outcome, as the
// acknowledgement; a refusal, as its one-line error; the queue store's variants, as whichever they hold (the
// queue missing, or what the queue answered).
Reply reply_of(Reply reply) { return reply; }
Reply reply_of(const Refusal& refusal) { return text_reply(refusal.status, refusal.message); }
Reply reply_of(const std::optional<Refusal>& refused) {
  return refused ? reply_of(*refused) : json_reply(trunk::to_json(trunk::Acknowledgement{}));
}
template <typename... Outcomes>
Reply reply_of(const std::variant<Outcomes...>& outcome);
template <typename Model>
Reply reply_of(const Model& model) {
  return json_reply(trunk::to_json(model));
}
template <typename... Outcomes>
Reply reply_of(const std::variant<Outcomes...>& outcome) {
  return std::visit([](const auto& held) { return reply_of(held); }, outcome);
}

}  // namespace

template <typename Op>
Reply Service::serve(std::string_view body, std::string_view query) {
  using Request = typename Op::Request;
  Reply error;
  auto request = read_request<Request>(body, query, &error);
  if (!request) return error;
  if constexpr (NamesRepo<Request>) {
    const RepoIndex* repo = nullptr;
    if (auto reply = find_repo(request->repo, &repo)) return *reply;
    if constexpr (NamesOrg<Request>) {
      if (auto reply = check_org(request->org_url_slug)) return *reply;
    }
    return reply_of(answer(*request, *repo));
  } else {
    static_assert(!NamesOrg<Request>, "an organization is checked with the repository it holds");
    if constexpr (MayNameRepo<Request>) {
      const RepoIndex* repo = nullptr;
      if (request->repo) {
        if (auto reply = find_repo(*request->repo, &repo)) return *reply;
      }
    }
    return reply_of(answer(*request));
  }
}

namespace {
/// Whether a Content-Type names JSON: application/json or a +json type, any parameters (charset) aside.
bool is_json_media_type(std::string_view content_type) {
  std::string type(content_type.substr(0, content_type.find(';')));
  type.erase(std::remove_if(type.begin(), type.end(), [](unsigned char c) { return std::isspace(c) != 0; }), type.end());
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type == "application/json" || (type.rfind("application/", 0) == 0 && type.size() > 5 &&
                                        type.compare(type.size() - 5, 5, "+json") == 0);
}
}  // namespace

Service::~Service() = default;

void Service::enable_v2(std::string api_key, std::function<trunk::Timestamp()> clock, bool documented_rate_limits) {
  std::vector<trunk::Repo> repos;
  for (const RepoHistory& repo : history_.repos) repos.push_back(repo.repo);
  clock_ = clock;  // mutes begin and end by it (service_monitor_mutes.cpp)
  v2_ = std::make_unique<V2Service>(*queues_, *this, std::move(repos), std::move(api_key), std::move(clock),
                                    documented_rate_limits);
}

std::string Service::create_api_key(const std::vector<Permission>& permissions) {
  if (!v2_) throw trunk::Error("sandbox: v2 is not served");
  return v2_->create_api_key(permissions);
}

std::string Service::create_trunk_token() {
  if (!v2_) throw trunk::Error("sandbox: v2 is not served");
  return v2_->create_trunk_token();
}

Reply Service::handle(std::string_view method, std::string_view path, const std::optional<std::string>& token,
                      std::string_view body, std::string_view query, const std::optional<std::string>& content_type,
                      const std::optional<std::string>& authorization,
                      const std::optional<std::string>& trunk_token) {
  if (path == kOpenApiPath) return openapi_reply(method);
  if (v2_ && V2Service::serves(path)) return v2_->handle(method, path, authorization, body, query, trunk_token);
  using Serve = Reply (Service::*)(std::string_view, std::string_view);
  Serve operation = nullptr;
  std::string_view operation_method;
  bool needs_token = true;
  trunk::for_each_operation([&](auto candidate) {
    using Op = decltype(candidate);
    if constexpr (Op::credential != trunk::Credential::api_key) {  // v1's; v2_ serves the others
      if (path == Op::path) {
        operation = &Service::serve<Op>;
        operation_method = Op::method;
        needs_token = Op::credential != trunk::Credential::none;  // GET /v1/status: `security: []`
      }
    }
  });
  if (operation == nullptr) return text_reply(404, "not found: no operation at " + std::string(path));
  if (method != operation_method) return method_not_allowed(method, operation_method);
  if (needs_token) {
    if (auto refused = refuse_token(token, token_)) return std::move(*refused);
  }
  // The operations take JSON (docs/reference/service.md#base-address); a body declared as something else (a form,
  // multipart) is refused rather than guessed at. No Content-Type at all is read as JSON, as a hand-written
  // request usually means it.
  if (operation_method == "POST" && content_type && !is_json_media_type(*content_type)) {
    return text_reply(415, "unsupported media type: " + *content_type + " (send application/json)");
  }
  try {
    return (this->*operation)(body, query);
  } catch (const std::exception& e) {
    // Never let an exception reach the HTTP server, whose answer would not say what went wrong.
    return text_reply(500, std::string("internal error: ") + e.what());
  }
}

}  // namespace trunk::sandbox
