#include "command_line.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>

#include "trunk/error.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox::cli {

namespace {

template <typename T>
T number(const std::string& flag, const std::string& text, T lo, T hi) {
  T value{};
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < lo || value > hi) {
    throw std::invalid_argument(flag + ": \"" + text + "\" must be a number between " + std::to_string(lo) +
                                " and " + std::to_string(hi));
  }
  return value;
}

double real(const std::string& flag, const std::string& text, double lo, double hi) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(value >= lo && value <= hi)) {
    char range[96];
    std::snprintf(range, sizeof range, "between %g and %g", lo, hi);
    throw std::invalid_argument(flag + ": \"" + text + "\" must be a number " + range);
  }
  return value;
}

}  // namespace

std::string usage() {
  return "usage: trunk-sandbox [options]\n"
         "A local implementation of the Trunk v1 flaky-test and merge-queue API, with generated data.\n"
         "\n"
         "  --host HOST              address to bind (default 127.0.0.1)\n"
         "  --port N                 port, 0 = any free port (default 0)\n"
         "  --seed N                 data generator seed (default 42)\n"
         "  --tests N                test cases across the repositories (default 2000)\n"
         "  --token TEXT             API token to accept (default: random, printed at start)\n"
         "  --org SLUG               organization URL slug (default trunk-sandbox)\n"
         "  --now RFC3339            end of the generated history (default: now)\n"
         "  --state-file PATH        keep the merge queues and their settings in PATH across restarts\n"
         "  --data-file PATH         serve the history in PATH instead of generating one\n"
         "  --save-data PATH         write the served history to PATH (data-file format)\n"
         "  --virtual-clock          the merge queues' clock starts at --now and moves only on\n"
         "                           POST /sandbox/advance (default: the wall clock)\n"
         "  --flaky-failure-rate F   chance a queue test run fails on a flaky test (default: from the history)\n"
         "  --broken-rate F          chance a submitted pull request is broken (default: from the history)\n"
         "  --threads N              server threads; connections hold none while idle or waiting (default: cores, 2-4)\n"
         "  --latency-ms N           added to every response\n"
         "  --jitter-ms N            plus a uniform random 0..N ms\n"
         "  --error-rate F           fraction of requests answered 503\n"
         "  --rate-limit RPS         requests per second per organization, then 429 + Retry-After\n"
         "  --drop-rate F            fraction of connections closed without an answer\n"
         "  --truncate-rate F        fraction of responses with a body cut short\n"
         "  --drop-after-rate F      fraction of requests processed, then closed without an answer\n"
         "  --rate-limited-rate F    fraction of requests answered 429, whatever the load\n"
         "  --rate-limited-retry-after S  Retry-After of those 429s, in seconds (default 1)\n"
         "  --fault-seed N           seed of the fault dice (default 1)\n"
         "  --webhook URL            send every webhook event to URL (repeatable); its secret is printed\n"
         "  --webhook-duplicate-rate F  fraction of webhook messages delivered twice (same svix-id)\n"
         "  --webhook-delay-ms N     webhook messages sent N ms (sandbox clock) after their event\n"
         "  --webhook-jitter-ms N    plus a uniform random 0..N ms (one pull request's keep their order)\n"
         "  --help                   this text\n"
         "\n"
         "Stops cleanly on SIGINT or SIGTERM.\n";
}

CommandLine parse(const std::vector<std::string>& args) {
  CommandLine line;
  SandboxOptions& o = line.options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--help" || flag == "-h") {
      line.help = true;
      continue;
    }
    if (flag == "--virtual-clock") {
      o.clock = ClockMode::virtual_time;
      continue;
    }
    if (i + 1 >= args.size()) {
      throw std::invalid_argument(flag.rfind("--", 0) == 0 ? flag + ": missing value" : "unexpected argument: " + flag);
    }
    const std::string& value = args[++i];
    if (flag == "--host") o.host = value;
    else if (flag == "--port") o.port = number<int>(flag, value, 0, 65535);
    else if (flag == "--seed") o.seed = number<std::uint64_t>(flag, value, 0, UINT64_MAX);
    else if (flag == "--tests") o.tests = number<int>(flag, value, 0, 10'000'000);
    else if (flag == "--token") o.token = value;
    else if (flag == "--org") o.org_url_slug = value;
    else if (flag == "--now") {
      std::string problem;
      auto now = trunk::try_parse_rfc3339(value, &problem);
      if (!now) throw std::invalid_argument("--now: \"" + value + "\" is not an RFC 3339 timestamp: " + problem);
      o.now = *now;
    } else if (flag == "--state-file") o.state_file = value;
    else if (flag == "--data-file") o.data_file = value;
    else if (flag == "--save-data") line.save_data = value;
    else if (flag == "--threads") o.threads = number<int>(flag, value, 1, 1024);
    else if (flag == "--latency-ms") o.faults.latency = std::chrono::milliseconds(number<long>(flag, value, 0, 600'000));
    else if (flag == "--jitter-ms") o.faults.jitter = std::chrono::milliseconds(number<long>(flag, value, 0, 600'000));
    else if (flag == "--error-rate") o.faults.error_rate = real(flag, value, 0, 1);
    else if (flag == "--rate-limit") o.faults.rate_limit_rps = real(flag, value, 0, 1e9);
    else if (flag == "--drop-rate") o.faults.drop_rate = real(flag, value, 0, 1);
    else if (flag == "--truncate-rate") o.faults.truncate_rate = real(flag, value, 0, 1);
    else if (flag == "--drop-after-rate") o.faults.drop_after_rate = real(flag, value, 0, 1);
    else if (flag == "--flaky-failure-rate") o.flaky_failure_rate = real(flag, value, 0, 1);
    else if (flag == "--broken-rate") o.broken_pull_request_rate = real(flag, value, 0, 1);
    else if (flag == "--rate-limited-rate") o.faults.rate_limited_rate = real(flag, value, 0, 1);
    else if (flag == "--rate-limited-retry-after") o.faults.rate_limited_retry_after_seconds = number<int>(flag, value, 0, 86'400);
    else if (flag == "--fault-seed") o.faults.seed = number<std::uint64_t>(flag, value, 0, UINT64_MAX);
    else if (flag == "--webhook") line.webhooks.push_back(value);
    else if (flag == "--webhook-duplicate-rate") o.faults.webhook_duplicate_rate = real(flag, value, 0, 1);
    else if (flag == "--webhook-delay-ms") o.faults.webhook_delay = std::chrono::milliseconds(number<long>(flag, value, 0, 86'400'000));
    else if (flag == "--webhook-jitter-ms") o.faults.webhook_jitter = std::chrono::milliseconds(number<long>(flag, value, 0, 86'400'000));
    else throw std::invalid_argument("unknown option: " + flag + " (see --help)");
  }
  return line;
}

}  // namespace trunk::sandbox::cli
