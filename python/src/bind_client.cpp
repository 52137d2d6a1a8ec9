// _core.Client: the four operations of the service, with Python arguments converted in C++ and the GIL
// released around every network call. The public facade (trunk_api/client.py) wraps it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "interrupt.hpp"
#include "py_client.hpp"
#include "listing_iterator.hpp"
#include "trunk/client.hpp"
#include "trunk/validation.hpp"

namespace py = pybind11;

namespace trunk::python {

ListFailingTestsRequest build_list_failing_tests(py::handle repo, py::handle org_url_slug, py::handle start_time,
                                                 py::handle end_time, py::handle page_size, py::handle page_token) {
  ArgCollector args;
  ListFailingTestsRequest request;
  request.repo = args.repo(repo);
  request.org_url_slug = args.text(org_url_slug, "org_url_slug");
  request.start_time = args.timestamp(start_time, "start_time");
  request.end_time = args.timestamp(end_time, "end_time");
  request.page_query.page_size = args.integer(page_size, "page_query.page_size");
  request.page_query.page_token = args.text(page_token, "page_query.page_token");
  args.finish(request);
  return request;
}

ListUnhealthyTestsRequest build_list_unhealthy_tests(py::handle repo, py::handle org_url_slug, py::handle status,
                                                     py::handle page_size, py::handle page_token) {
  ArgCollector args;
  ListUnhealthyTestsRequest request;
  request.repo = args.repo(repo);
  request.org_url_slug = args.text(org_url_slug, "org_url_slug");
  request.status = args.enumeration<HealthStatus>(status, "status");
  request.page_query.page_size = args.integer(page_size, "page_query.page_size");
  request.page_query.page_token = args.text(page_token, "page_query.page_token");
  args.finish(request);
  return request;
}

std::optional<std::int64_t> convert_max_results(py::handle max_results) {
  if (max_results.is_none()) return std::nullopt;
  ArgCollector args;
  const std::int64_t limit = args.integer(max_results, "max_results");
  args.throw_if_failed();
  if (limit < 0) throw ValidationError({Violation{"max_results", std::to_string(limit), "must be >= 0 or None"}});
  return limit;
}

namespace {

GetTestDetailsRequest build_get_test_details(py::handle repo, py::handle org_url_slug, py::handle test_id) {
  ArgCollector args;
  GetTestDetailsRequest request;
  request.repo = args.repo(repo);
  request.org_url_slug = args.text(org_url_slug, "org_url_slug");
  request.test_id = args.text(test_id, "test_id");
  args.finish(request);
  return request;
}

/// Python keyword (snake_case) -> how to store it in the request, named by its camelCase wire field.
UpdateQueueRequest build_update_queue(py::handle repo, py::handle target_branch, const py::kwargs& fields) {
  ArgCollector args;
  UpdateQueueRequest request;
  request.repo = args.repo(repo);
  request.target_branch = args.text(target_branch, "targetBranch");
  for (auto item : fields) {
    const std::string key = py::str(item.first).cast<std::string>();
    const py::handle value = item.second;
    if (value.is_none()) continue;  // None means "not sent"
    auto& r = request;
    if (key == "state") r.state = args.enumeration<QueueState>(value, "state");
    else if (key == "concurrency") r.concurrency = args.integer(value, "concurrency");
    else if (key == "bisection_concurrency") r.bisection_concurrency = args.integer(value, "bisectionConcurrency");
    else if (key == "testing_timeout_minutes") r.testing_timeout_minutes = args.integer(value, "testingTimeoutMinutes");
    else if (key == "pending_failure_depth") r.pending_failure_depth = args.integer(value, "pendingFailureDepth");
    else if (key == "can_optimistically_merge") r.can_optimistically_merge = args.boolean(value, "canOptimisticallyMerge");
    else if (key == "batch") r.batch = args.boolean(value, "batch");
    else if (key == "batching_max_wait_time_minutes") r.batching_max_wait_time_minutes = args.integer(value, "batchingMaxWaitTimeMinutes");
    else if (key == "batching_min_size") r.batching_min_size = args.integer(value, "batchingMinSize");
    else if (key == "mode") r.mode = args.enumeration<QueueMode>(value, "mode");
    else if (key == "comments_enabled") r.comments_enabled = args.boolean(value, "commentsEnabled");
    else if (key == "commands_enabled") r.commands_enabled = args.boolean(value, "commandsEnabled");
    else if (key == "create_prs_for_testing_branches") r.create_prs_for_testing_branches = args.boolean(value, "createPrsForTestingBranches");
    else if (key == "direct_merge_mode") r.direct_merge_mode = args.enumeration<DirectMergeMode>(value, "directMergeMode");
    else if (key == "optimization_mode") r.optimization_mode = args.enumeration<OptimizationMode>(value, "optimizationMode");
    else if (key == "merge_method") r.merge_method = args.enumeration<MergeMethod>(value, "mergeMethod");
    else if (key == "status_check_enabled") r.status_check_enabled = args.boolean(value, "statusCheckEnabled");
    else if (key == "required_statuses") r.required_statuses = args.text_list(value, "requiredStatuses");
    else if (key == "delete_required_statuses") r.delete_required_statuses = args.boolean(value, "deleteRequiredStatuses");
    else throw py::type_error("update_queue() got an unexpected keyword argument '" + key + "'");
  }
  args.finish(request);
  return request;
}

ClientOptions build_options(const py::object& token, const py::object& base_url, py::handle timeout,
                            py::handle max_retries, const py::object& user_agent, py::handle connect_timeout,
                            py::handle overall_deadline, py::handle verify_tls, const py::object& ca_bundle,
                            py::handle allow_insecure_http, py::handle max_requests_per_second,
                            const py::object& log, py::handle prefetch_pages) {
  ArgCollector args;
  ClientOptions options;
  // The token is converted without ever being rendered: a wrong type is reported by type name only.
  const char* token_data = nullptr;
  Py_ssize_t token_size = 0;
  if (!token.is_none()) {
    if (!PyUnicode_Check(token.ptr())) {
      throw ValidationError({Violation{"token", "<value of type " +
                                                    py::str(py::type::handle_of(token).attr("__name__")).cast<std::string>() + ">",
                                       "must be a string"}});
    }
    // A view of the str's own UTF-8 (the caller's object), not a copy.
    token_data = PyUnicode_AsUTF8AndSize(token.ptr(), &token_size);
    if (token_data == nullptr) {
      PyErr_Clear();
      throw ValidationError({Violation{"token", "<redacted>", "must be valid UTF-8 text"}});
    }
  }
  if (!base_url.is_none()) options.base_url = args.text(base_url, "base_url");
  options.timeout = args.seconds(timeout, "timeout", 0, false);
  options.connect_timeout = args.seconds(connect_timeout, "connect_timeout", 0, false);
  options.retry.overall_deadline = args.seconds(overall_deadline, "overall_deadline", 0, true);
  const std::int64_t retries = args.integer(max_retries, "max_retries");
  if (args.ok() && (retries < 0 || retries > 100)) {
    throw ValidationError({Violation{"max_retries", std::to_string(retries), "must be between 0 and 100"}});
  }
  options.retry.max_retries = static_cast<int>(retries);
  if (!user_agent.is_none()) options.user_agent_suffix = args.text(user_agent, "user_agent");
  options.verify_tls = args.boolean(verify_tls, "verify_tls");
  if (!ca_bundle.is_none()) options.ca_bundle = args.text(ca_bundle, "ca_bundle");
  options.allow_insecure_http = args.boolean(allow_insecure_http, "allow_insecure_http");
  options.max_requests_per_second = args.number(max_requests_per_second, "max_requests_per_second");
  if (args.ok() && options.max_requests_per_second < 0) {
    throw ValidationError({Violation{"max_requests_per_second", describe(max_requests_per_second),
                                     "must be >= 0 (0 = no limit)"}});
  }
  options.prefetch_pages = args.boolean(prefetch_pages, "prefetch_pages");
  args.throw_if_failed();
  if (!log.is_none()) options.log = python_log_callback(log);
  options.interrupt_check = &python_interrupt_check;
  // Last, once nothing can throw any more: the one copy is built in place, and the Client wipes it after
  // moving it into its secret memory (see make_client).
  if (token_data != nullptr) options.token.emplace(token_data, static_cast<std::size_t>(token_size));
  return options;
}

/// A Client from `options`, whose token copy (ours) is wiped whatever happens: Client wipes what it is given,
/// and this wipes what a move leaves behind in `options` (a short string keeps its bytes in the object).
std::shared_ptr<Client> make_client(ClientOptions&& options) {
  struct WipeOnExit {
    std::optional<std::string>& token;
    ~WipeOnExit() {
      if (token) {
        ::explicit_bzero(token->data(), token->capacity());
        token.reset();
      }
    }
  } wipe_on_exit{options.token};
  return std::make_shared<Client>(std::move(options));
}

}  // namespace

void bind_client(py::module_& m) {
  py::class_<PyClient>(m, "Client", "Private: use trunk_api.Client.")
      .def(py::init([](const py::object& token, const py::object& base_url, py::handle timeout, py::handle max_retries,
                       const py::object& user_agent, py::handle connect_timeout, py::handle overall_deadline,
                       py::handle verify_tls, const py::object& ca_bundle, py::handle allow_insecure_http,
                       py::handle max_requests_per_second, const py::object& log, py::handle prefetch_pages) {
             ClientOptions options =
                 build_options(token, base_url, timeout, max_retries, user_agent, connect_timeout, overall_deadline,
                               verify_tls, ca_bundle, allow_insecure_http, max_requests_per_second, log,
                               prefetch_pages);
             return PyClient{make_client(std::move(options))};
           }),
           py::kw_only(), py::arg("token") = py::none(), py::arg("base_url") = py::none(), py::arg("timeout") = 30.0,
           py::arg("max_retries") = 3, py::arg("user_agent") = py::none(), py::arg("connect_timeout") = 10.0,
           py::arg("overall_deadline") = 120.0, py::arg("verify_tls") = true, py::arg("ca_bundle") = py::none(),
           py::arg("allow_insecure_http") = false, py::arg("max_requests_per_second") = 0.0,
           py::arg("log") = py::none(), py::arg("prefetch_pages") = true)
      .def_property_readonly("base_url", [](const PyClient& self) { return self.client->base_url(); })
      .def("list_failing_tests",
           [](PyClient& self, py::handle repo, py::handle org_url_slug, py::handle start_time, py::handle end_time,
              py::handle page_size, py::handle page_token) {
             auto request = build_list_failing_tests(repo, org_url_slug, start_time, end_time, page_size, page_token);
             return call_without_gil([&] { return self.client->list_failing_tests(request); });
           },
           py::arg("repo"), py::arg("org_url_slug"), py::arg("start_time"), py::arg("end_time"), py::kw_only(),
           py::arg("page_size") = 100, py::arg("page_token") = "")
      .def("list_unhealthy_tests",
           [](PyClient& self, py::handle repo, py::handle org_url_slug, py::handle status, py::handle page_size,
              py::handle page_token) {
             auto request = build_list_unhealthy_tests(repo, org_url_slug, status, page_size, page_token);
             return call_without_gil([&] { return self.client->list_unhealthy_tests(request); });
           },
           py::arg("repo"), py::arg("org_url_slug"), py::arg("status"), py::kw_only(), py::arg("page_size") = 100,
           py::arg("page_token") = "")
      .def("get_test_details",
           [](PyClient& self, py::handle repo, py::handle org_url_slug, py::handle test_id) {
             auto request = build_get_test_details(repo, org_url_slug, test_id);
             return call_without_gil([&] { return self.client->get_test_details(request).test; });
           },
           py::arg("repo"), py::arg("org_url_slug"), py::arg("test_id"))
      .def("update_queue",
           [](PyClient& self, py::handle repo, py::handle target_branch, const py::kwargs& fields) {
             auto request = build_update_queue(repo, target_branch, fields);
             return call_without_gil([&] { return self.client->update_queue(request); });
           },
           py::arg("repo"), py::arg("target_branch"))
      .def("iter_failing_tests",
           [](PyClient& self, py::handle repo, py::handle org_url_slug, py::handle start_time, py::handle end_time,
              py::handle page_size, py::handle max_results) {
             auto request = build_list_failing_tests(repo, org_url_slug, start_time, end_time, page_size, py::str(""));
             auto limit = convert_max_results(max_results);
             TestPager pager = self.client->failing_tests(std::move(request));
             if (limit) pager.limit_prefetch(static_cast<std::size_t>(*limit));  // no page past max_results
             return std::make_shared<TestIterator>(self.client, std::move(pager), limit);
           },
           py::arg("repo"), py::arg("org_url_slug"), py::arg("start_time"), py::arg("end_time"), py::kw_only(),
           py::arg("page_size") = 100, py::arg("max_results") = py::none())
      .def("iter_unhealthy_tests",
           [](PyClient& self, py::handle repo, py::handle org_url_slug, py::handle status, py::handle page_size,
              py::handle max_results) {
             auto request = build_list_unhealthy_tests(repo, org_url_slug, status, page_size, py::str(""));
             auto limit = convert_max_results(max_results);
             TestPager pager = self.client->unhealthy_tests(std::move(request));
             if (limit) pager.limit_prefetch(static_cast<std::size_t>(*limit));  // no page past max_results
             return std::make_shared<TestIterator>(self.client, std::move(pager), limit);
           },
           py::arg("repo"), py::arg("org_url_slug"), py::arg("status"), py::kw_only(), py::arg("page_size") = 100,
           py::arg("max_results") = py::none());
}

}  // namespace trunk::python
