#pragma once
// trunk::sandbox::SandboxOptions: how a Sandbox starts (address, data, clock, faults...), as option rows
// (trunk/option_rows.hpp) from which the Python keywords, both command lines and docs/sandbox.md's table are
// derived. Apart from sandbox.hpp so that a file that only reads options need not see the Sandbox class;
// sandbox.hpp includes it.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include "trunk/option_rows.hpp"
#include "trunk/sandbox/clock_mode.hpp"
#include "trunk/sandbox/fault_options.hpp"
#include "trunk/sandbox/run_duration.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

/// Threads the sandbox serves with unless told otherwise: one per core, at least 2 (a handler that waits briefly,
/// for the service's lock, must not stop the others) and at most 4 (more only adds switching: measured with
/// 256 connections at 20 ms latency on 2 cores, 4 threads took 1.36-1.38 of the ideal time, 2 threads 1.26-1.29).
inline int default_server_threads() {
  const unsigned cores = std::thread::hardware_concurrency();  // 0 when unknown
  return static_cast<int>(std::clamp(cores, 2U, 4U));
}

/// The server's threads: 1 to 1024; the default is the machine's (default_server_threads()).
inline constexpr options::OptionRule kServerThreads{.min = 1, .max = 1024, .computed_default = true};

// Option rows, as FaultOptions' (faults: its rows are taken in its place).
// now: the end of the generated history; nullopt = the wall clock at start() (trunk/sandbox/sandbox.hpp's header
// comment).
// threads: read, answer and write requests. Serving is event-driven: a connection holds no thread while it is
// idle, sends slowly or waits out injected latency, so a few threads serve any number of connections. The
// default is the machine's cores, from 2 to 4 (default_server_threads()).
// flaky_failure_rate, broken_pull_request_rate: nullopt = derived from each repository's history
// (src/failure_model.hpp).
// run_minutes, run_median_minutes, run_sigma: the merge queues' run durations (trunk/sandbox/run_duration.hpp):
// fixed when run_minutes is given, else lognormal (sandbox_run_duration() reads them).
#define TRUNK_SANDBOX_OPTIONS(X)                                                                                 \
  X(std::string, host, "host", {"127.0.0.1"}, options::kAnyValue, options::kNoVariables, "Address to bind.")     \
  X(int, port, "port", {0}, options::between(0, 65'535), options::kNoVariables, "Port; 0 = any free port.")    \
  X(std::uint64_t, seed, "seed", {42}, options::kNonNegative, options::kNoVariables,                             \
    "Seed of the data generator: the same seed and now, the same data.")                                        \
  X(int, tests, "tests", {2000}, options::between(0, 10'000'000), options::kNoVariables,                        \
    "Test cases generated across the repositories.")                                                             \
  X(std::string, token, "token", {}, options::kAnyValue, options::kNoVariables,                                 \
    "API token the sandbox accepts; none = a random one per start.")                                            \
  X(std::string, api_key, "api_key", {}, options::kAnyValue, options::kNoVariables,                             \
    "v2 API key the sandbox accepts (trunk_v2_...); none = a random one per start.")                            \
  X(std::string, org_url_slug, "org_url_slug", {"trunk-sandbox"}, options::with_flag(options::kAnyValue, "org"), \
    options::kNoVariables, "Organization URL slug it serves.")                                                   \
  X(std::optional<trunk::Timestamp>, now, "now", {}, options::kAnyValue, options::kNoVariables,                 \
    "End of the generated 30-day history; none = the wall clock at start.")                                     \
  X(std::string, state_file, "state_file", {}, options::kPath, options::kNoVariables,                           \
    "Keeps the merge queues and their settings in this file across restarts; none = in memory only.")          \
  X(std::string, data_file, "data_file", {}, options::kPath, options::kNoVariables,                             \
    "Serves the history in this JSON file (save_data's format) instead of generating one.")                     \
  X(int, threads, "threads", {default_server_threads()}, sandbox::kServerThreads, options::kNoVariables,                 \
    "Server threads; connections hold none while idle or waiting; none = the cores, from 2 to 4.")              \
  X(sandbox::FaultOptions, faults, "", {}, options::kAnyValue, options::kNoVariables, "Fault injection.")        \
  X(bool, record_requests, "record_requests", {true}, options::kAnyValue, options::kNoVariables,                \
    "Keep a log of the requests received (the last 10,000).")                                                    \
  X(bool, v2_rate_limits, "v2_rate_limits", {false}, options::kAnyValue, options::kNoVariables,                \
    "Apply v2's documented limits: 5 requests a second per API key to GET /v2/pull-requests*, 5 a second to "    \
    "the merge queue metrics; over them, 429 RATE_LIMITED with Retry-After.")                                     \
  X(sandbox::ClockMode, clock, "clock", {sandbox::ClockMode::real}, options::kAnyValue, options::kNoVariables,  \
    "Clock of the merge queues: the wall clock (real), or one that moves only when advanced (virtual).")         \
  X(std::optional<double>, flaky_failure_rate, "flaky_failure_rate", {}, options::kFraction,                   \
    options::kNoVariables, "Chance a merge queue test run fails on a flaky test; none = from the history.")     \
  X(std::optional<double>, broken_pull_request_rate, "broken_pull_request_rate", {},                            \
    options::with_flag(options::kFraction, "broken-rate"), options::kNoVariables,                               \
    "Chance a submitted pull request is genuinely broken (fails every run); none = from the history.")         \
  X(std::optional<double>, run_minutes, "run_minutes", {},                                                       \
    options::between(sandbox::kMinRunMinutes, sandbox::kMaxRunMinutes), options::kNoVariables,                  \
    "Every merge queue test run takes exactly this many minutes; none = lognormal (run_median_minutes, "        \
    "run_sigma). A queue's controls may replace it.")                                                            \
  X(double, run_median_minutes, "run_median_minutes", {sandbox::LognormalRunDuration{}.median_minutes},          \
    options::between(sandbox::kMinRunMinutes, sandbox::kMaxRunMinutes), options::kNoVariables,                  \
    "Median duration of a merge queue test run, in minutes (lognormal).")                                        \
  X(double, run_sigma, "run_sigma", {sandbox::LognormalRunDuration{}.sigma},                                     \
    options::between(0, sandbox::kMaxRunSigma), options::kNoVariables,                                          \
    "Spread (sigma of the logarithm) of the merge queue test runs' durations; 0 = always the median.")

struct SandboxOptions {
  TRUNK_OPTION_MEMBERS(TRUNK_SANDBOX_OPTIONS)
};

/// The distribution the run_* rows describe.
inline RunDuration sandbox_run_duration(const SandboxOptions& options) {
  if (options.run_minutes) return FixedRunDuration{*options.run_minutes};
  return LognormalRunDuration{options.run_median_minutes, options.run_sigma};
}

}  // namespace trunk::sandbox

namespace trunk {
TRUNK_DESCRIBE_OPTIONS(sandbox::SandboxOptions, TRUNK_SANDBOX_OPTIONS)
}  // namespace trunk
