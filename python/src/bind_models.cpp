// The result models (and Repo) as immutable, dataclass-like Python classes over the C++ structs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "convert_time.hpp"
#include "dataclass_like.hpp"
#include "py_enums.hpp"
#include "trunk/models.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

void bind_repo(py::module_& m) {
  DataclassLike<Repo> repo(m, "Repo", "A repository: host (github.com, gitlab.com or self-hosted), owner, name.");
  repo.field("host", [](const Repo& r) { return r.host; })
      .field("owner", [](const Repo& r) { return r.owner; }, "GitLab owners may contain '/' (subgroups).")
      .field("name", [](const Repo& r) { return r.name; })
      .hashable();
  auto& cls = repo.finish();
  cls.def(py::init([](py::handle host, py::handle owner, py::handle name) {
            ArgCollector args;
            Repo result{args.text(host, "repo.host"), args.text(owner, "repo.owner"), args.text(name, "repo.name")};
            args.finish_and_check(result);
            return result;
          }),
          py::arg("host"), py::arg("owner"), py::arg("name"));
  cls.def_static("parse", [](py::handle text) {
    ArgCollector args;
    Repo result = args.repo(text, "repo");
    args.finish_and_check(result);
    return result;
  }, py::arg("text"), "Parses \"host/owner/name\"; the owner is everything between the first and last '/'.");
  cls.def("__str__", &Repo::to_string);
}

void bind_test_case_parts(py::module_& m) {
  DataclassLike<RepositoryRef>(m, "RepositoryRef", "The repository of a test case.")
      .field("html_url", [](const RepositoryRef& v) { return v.html_url; })
      .finish();
  DataclassLike<TicketRef>(m, "TicketRef", "The ticket linked to a test case.")
      .field("html_url", [](const TicketRef& v) { return v.html_url; })
      .finish();
  DataclassLike<TestStatus>(m, "TestStatus", "Health status of a test: reason (free text), timestamp, value.")
      .field("reason", [](const TestStatus& v) { return v.reason; })
      .field("timestamp", [](const TestStatus& v) { return v.timestamp; })
      .field("value", [](const TestStatus& v) { return v.value; }, "\"healthy\", \"flaky\" or \"broken\".")
      .finish();
  DataclassLike<FailureSummary>(m, "FailureSummary", "One of the most common failures of a test.")
      .field("summary", [](const FailureSummary& v) { return v.summary; })
      .field("occurrence_count", [](const FailureSummary& v) { return v.occurrence_count; })
      .field("last_occurrence", [](const FailureSummary& v) { return v.last_occurrence; })
      .finish();
}

void bind_test_case(py::module_& m) {
  DataclassLike<TestCase>(m, "TestCase", "A test case; every field under its wire name, None when absent.")
      .field("id", [](const TestCase& v) { return v.id; })
      .field("repository", [](const TestCase& v) { return v.repository; })
      .field("html_url", [](const TestCase& v) { return v.html_url; })
      .field("name", [](const TestCase& v) { return v.name; })
      .field("variant", [](const TestCase& v) { return v.variant; })
      .field("status", [](const TestCase& v) { return v.status; })
      .field("most_common_failures", [](const TestCase& v) { return v.most_common_failures; })
      .field("failure_rate_last_7d", [](const TestCase& v) { return v.failure_rate_last_7d; },
             "Fraction in [0, 1].")
      .field("failure_rate_last_24h", [](const TestCase& v) { return v.failure_rate_last_24h; },
             "Fraction in [0, 1].")
      .field("codeowners", [](const TestCase& v) { return v.codeowners; })
      .field("pull_requests_impacted_last_7d", [](const TestCase& v) { return v.pull_requests_impacted_last_7d; })
      .field("quarantined", [](const TestCase& v) { return v.quarantined; })
      .field("file_path", [](const TestCase& v) { return v.file_path; })
      .field("parent", [](const TestCase& v) { return v.parent; })
      .field("classname", [](const TestCase& v) { return v.classname; })
      .field("ticket", [](const TestCase& v) { return v.ticket; })
      .finish();
}

void bind_pages(py::module_& m) {
  DataclassLike<PageInfo>(m, "PageInfo", "Page information of a listing; page_index is 0-based.")
      .field("total_rows", [](const PageInfo& v) { return v.total_rows; })
      .field("total_pages", [](const PageInfo& v) { return v.total_pages; })
      .field("next_page_token", [](const PageInfo& v) { return v.next_page_token; }, "\"\" on the last page.")
      .field("prev_page_token", [](const PageInfo& v) { return v.prev_page_token; })
      .field("last_page_token", [](const PageInfo& v) { return v.last_page_token; })
      .field("page_index", [](const PageInfo& v) { return v.page_index; })
      .finish();
  DataclassLike<TestPage>(m, "TestPage", "One page of a listing: tests and page information.")
      .field("tests", [](const TestPage& v) { return v.tests; })
      .field("page", [](const TestPage& v) { return v.page; })
      .finish();
}

void bind_queue_settings(py::module_& m) {
  using Q = QueueSettings;
  DataclassLike<Q>(m, "QueueSettings",
                   "Merge queue settings after an update. Enum fields give the trunk_api enum member, or the raw "
                   "string for a value this library does not know.")
      .field("state", [](const Q& v) { return open_enum_to_python(v.state); })
      .field("branch", [](const Q& v) { return v.branch; })
      .field("concurrency", [](const Q& v) { return v.concurrency; })
      .field("testing_timeout_minutes", [](const Q& v) { return v.testing_timeout_minutes; })
      .field("mode", [](const Q& v) { return open_enum_to_python(v.mode); })
      .field("can_optimistically_merge", [](const Q& v) { return v.can_optimistically_merge; })
      .field("pending_failure_depth", [](const Q& v) { return v.pending_failure_depth; })
      .field("batch", [](const Q& v) { return v.batch; })
      .field("batching_max_wait_time_minutes", [](const Q& v) { return v.batching_max_wait_time_minutes; })
      .field("batching_min_size", [](const Q& v) { return v.batching_min_size; })
      .field("create_prs_for_testing_branches", [](const Q& v) { return v.create_prs_for_testing_branches; })
      .field("comments_enabled", [](const Q& v) { return v.comments_enabled; })
      .field("commands_enabled", [](const Q& v) { return v.commands_enabled; })
      .field("status_check_enabled", [](const Q& v) { return v.status_check_enabled; })
      .field("bisection_concurrency", [](const Q& v) { return v.bisection_concurrency; })
      .field("required_statuses", [](const Q& v) { return v.required_statuses; })
      .field("direct_merge_mode", [](const Q& v) { return open_enum_to_python(v.direct_merge_mode); })
      .field("optimization_mode", [](const Q& v) { return open_enum_to_python(v.optimization_mode); })
      .field("merge_method", [](const Q& v) { return open_enum_to_python(v.merge_method); })
      .finish();
}

}  // namespace

void bind_models(py::module_& m) {
  bind_repo(m);
  bind_test_case_parts(m);
  bind_test_case(m);
  bind_pages(m);
  bind_queue_settings(m);
}

}  // namespace trunk::python
