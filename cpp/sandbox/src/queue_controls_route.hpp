#pragma once
// The sandbox's control routes for staging exact situations in a merge queue (docs/sandbox.md, "Staging exact
// situations"), beside /sandbox/advance and /sandbox/webhooks (control.hpp) and checked in the same order (405
// with Allow, 401, 400 naming field, value and rule; 404 for a queue that does not exist):
//   GET  /sandbox/queues/controls?repo=H/O/N&branch=B                       ->  the queue's controls and scripts
//   PUT  /sandbox/queues/controls?repo=H/O/N&branch=B  {controls}           ->  the same, after replacing them
//   POST /sandbox/queues/pull-requests/{number}/script?repo=H/O/N&branch=B {script}  ->  the same, after it
// The queue is named in the query, not the path, because an owner (GitLab subgroups) and a branch may hold '/'.
// branch defaults to main. Bodies (absent or null fields: the sandbox's value):
//   controls: {"run_duration": {"kind": "fixed", "minutes": M} | {"kind": "lognormal", "median_minutes"?: M,
//              "sigma"?: S} | {"kind": "empirical", "minutes": [M, ...]}, "flaky_run_rate": R,
//              "broken_pull_request_rate": R}
//   script:   {"broken": true|false, "next_run": "fail"|"pass", "next_run_minutes": M}

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "service.hpp"
#include "trunk/repo.hpp"
#include "trunk/sandbox/pull_request_script.hpp"
#include "trunk/sandbox/queue_controls.hpp"

namespace trunk::sandbox {

inline constexpr std::string_view kQueueControlsPrefix = "/sandbox/queues/";

/// What the routes do, as the Sandbox's own methods do it (they throw ValidationError, UnknownQueue).
struct QueueControlOperations {
  std::function<QueueControls(const trunk::Repo&, const std::string&)> controls;
  std::function<void(const trunk::Repo&, const std::string&, const QueueControls&)> set_controls;
  std::function<void(const trunk::Repo&, const std::string&, std::int64_t, const PullRequestScript&)> script;
  std::function<std::map<std::int64_t, PullRequestScript>(const trunk::Repo&, const std::string&)> scripts;
};

Reply answer_queue_controls(std::string_view method, std::string_view path, std::string_view query,
                            const std::optional<std::string>& token, std::string_view expected_token,
                            std::string_view body, const QueueControlOperations& operations);

}  // namespace trunk::sandbox
