// trunk-sandbox's command line is made from the option rows (sandbox_options.hpp): every row has its flag, one
// bound per option (the same as the Python keywords'), and a value past a bound is refused naming the flag, the
// value and the rule. The program itself (exit codes, --help) is binary_test.cpp's.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "trunk/option_text.hpp"

namespace sandbox_test {
namespace {

using trunk::sandbox::ClockMode;
using trunk::sandbox::SandboxOptions;
using trunk::sandbox::cli::parse;

std::string refusal(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted: " << args.at(0) << " " << args.at(1);
  return "";
}

TEST(CommandLine, EveryRowHasItsFlagInTheHelp) {
  const std::string help = trunk::sandbox::cli::usage();
  std::vector<std::string> flags;
  SandboxOptions defaults;
  auto collect = [&](const auto& self, const auto& rows_of) -> void {
    using T = std::remove_cvref_t<decltype(rows_of)>;
    trunk::options::for_each_option<T>([&](const auto& row) {
      using M = typename std::remove_cvref_t<decltype(row)>::member_type;
      if constexpr (trunk::options::DescribedOptions<M>) {
        self(self, rows_of.*row.member);
      } else {
        flags.push_back("--" + trunk::options::flag_of(row.name, row.rule));
        EXPECT_NE(help.find(std::string(row.doc)), std::string::npos) << row.name;
      }
    });
  };
  collect(collect, defaults);
  EXPECT_EQ(flags.size(), 33U);  // 19 sandbox options (run_minutes, run_median_minutes, run_sigma the last) and 14 fault settings
  for (const std::string& flag : flags) {
    const std::string bare = flag.substr(2);
    EXPECT_TRUE(help.find(flag) != std::string::npos || help.find("--[no-]" + bare) != std::string::npos) << flag;
  }
  // The spellings users already type are kept.
  for (const char* kept : {"--org SLUG", "--broken-rate F", "--rate-limited-retry-after N", "--latency-ms MS",
                           "--webhook-delay-ms MS", "--virtual-clock", "--save-data PATH", "--webhook URL"}) {
    EXPECT_NE(help.find(kept), std::string::npos) << kept;
  }
}

TEST(CommandLine, FlagsReachTheirMembers) {
  const auto line = parse({"--host", "0.0.0.0", "--port", "8080", "--seed", "18446744073709551615", "--tests", "7",
                           "--org", "acme", "--now", "2026-11-20T12:00:00Z", "--threads", "3", "--latency-ms", "20",
                           "--rate-limit", "2.5", "--fault-seed", "9", "--webhook-delay-ms", "1500",
                           "--broken-rate", "0.25", "--clock", "virtual", "--no-record-requests",
                           "--rate-limited-retry-after", "7", "--webhook", "http://127.0.0.1:9/hook"});
  const SandboxOptions& o = line.options;
  EXPECT_EQ(o.host, "0.0.0.0");
  EXPECT_EQ(o.port, 8080);
  EXPECT_EQ(o.seed, 18446744073709551615ULL);
  EXPECT_EQ(o.tests, 7);
  EXPECT_EQ(o.org_url_slug, "acme");
  EXPECT_EQ(trunk::format_rfc3339(o.now.value()), "2026-11-20T12:00:00Z");
  EXPECT_EQ(o.threads, 3);
  EXPECT_EQ(o.faults.latency, std::chrono::milliseconds(20));
  EXPECT_EQ(o.faults.rate_limit_rps, 2.5);
  EXPECT_EQ(o.faults.seed, 9U);
  EXPECT_EQ(o.faults.webhook_delay, std::chrono::milliseconds(1500));
  EXPECT_EQ(o.faults.rate_limited_retry_after_seconds, 7);
  EXPECT_EQ(o.broken_pull_request_rate, 0.25);
  EXPECT_EQ(o.clock, ClockMode::virtual_time);
  EXPECT_FALSE(o.record_requests);
  EXPECT_EQ(line.webhooks, std::vector<std::string>{"http://127.0.0.1:9/hook"});
  EXPECT_EQ(parse({"--virtual-clock"}).options.clock, ClockMode::virtual_time);
}

// One bound per option, the more permissive of the two command lines' before the rows (latency: 600000 here,
// 3600000 in Python; the same in both now).
TEST(CommandLine, ValuesAtTheBoundAreAcceptedAndOnePastRefusedNamingFlagValueAndRule) {
  EXPECT_EQ(parse({"--latency-ms", "3600000"}).options.faults.latency, std::chrono::milliseconds(3'600'000));
  EXPECT_EQ(parse({"--jitter-ms", "3600000"}).options.faults.jitter, std::chrono::milliseconds(3'600'000));
  EXPECT_EQ(parse({"--webhook-delay-ms", "86400000"}).options.faults.webhook_delay,
            std::chrono::milliseconds(86'400'000));
  EXPECT_EQ(parse({"--webhook-jitter-ms", "86400000"}).options.faults.webhook_jitter,
            std::chrono::milliseconds(86'400'000));
  EXPECT_EQ(parse({"--latency-ms", "0"}).options.faults.latency, std::chrono::milliseconds(0));
  EXPECT_EQ(parse({"--port", "65535"}).options.port, 65535);
  EXPECT_EQ(parse({"--threads", "1024"}).options.threads, 1024);
  EXPECT_EQ(parse({"--threads", "1"}).options.threads, 1);
  EXPECT_EQ(parse({"--tests", "10000000"}).options.tests, 10'000'000);
  EXPECT_EQ(parse({"--error-rate", "1"}).options.faults.error_rate, 1.0);
  EXPECT_EQ(parse({"--rate-limited-retry-after", "86400"}).options.faults.rate_limited_retry_after_seconds, 86'400);

  EXPECT_EQ(refusal({"--latency-ms", "3600001"}),
            "--latency-ms: \"3600001\" must be an integer between 0 and 3600000 milliseconds");
  EXPECT_EQ(refusal({"--latency-ms", "-1"}),
            "--latency-ms: \"-1\" must be an integer between 0 and 3600000 milliseconds");
  EXPECT_EQ(refusal({"--jitter-ms", "3600001"}),
            "--jitter-ms: \"3600001\" must be an integer between 0 and 3600000 milliseconds");
  EXPECT_EQ(refusal({"--webhook-delay-ms", "86400001"}),
            "--webhook-delay-ms: \"86400001\" must be an integer between 0 and 86400000 milliseconds");
  EXPECT_EQ(refusal({"--webhook-jitter-ms", "86400001"}),
            "--webhook-jitter-ms: \"86400001\" must be an integer between 0 and 86400000 milliseconds");
  EXPECT_EQ(refusal({"--port", "65536"}), "--port: \"65536\" must be an integer between 0 and 65535");
  EXPECT_EQ(refusal({"--threads", "1025"}), "--threads: \"1025\" must be an integer between 1 and 1024");
  EXPECT_EQ(refusal({"--threads", "0"}), "--threads: \"0\" must be an integer between 1 and 1024");
  EXPECT_EQ(refusal({"--tests", "10000001"}), "--tests: \"10000001\" must be an integer between 0 and 10000000");
  EXPECT_EQ(refusal({"--error-rate", "1.001"}), "--error-rate: \"1.001\" must be a number >= 0 and <= 1");
  EXPECT_EQ(refusal({"--rate-limit", "-0.5"}), "--rate-limit: \"-0.5\" must be a number >= 0");
  EXPECT_EQ(refusal({"--rate-limit", "inf"}), "--rate-limit: \"inf\" must be a number >= 0");
  EXPECT_EQ(refusal({"--rate-limited-retry-after", "86401"}),
            "--rate-limited-retry-after: \"86401\" must be an integer between 0 and 86400");
  EXPECT_EQ(refusal({"--clock", "wall"}), "--clock: \"wall\" must be \"real\" or \"virtual\"");
  EXPECT_EQ(refusal({"--seed", "18446744073709551616"}),
            "--seed: \"18446744073709551616\" must be an integer >= 0 (at most 18446744073709551615)");
  EXPECT_EQ(refusal({"--latency-ms", "2.5"}),
            "--latency-ms: \"2.5\" must be an integer between 0 and 3600000 milliseconds");
  EXPECT_EQ(refusal({"--tests"}), "--tests: missing value");
  EXPECT_EQ(refusal({"--bogus", "1"}), "unknown option: --bogus (see --help)");
}

// A C++ caller who fills SandboxOptions directly meets the same rules at start() (option_text.hpp's check).
TEST(CommandLine, TheRowsCheckAStructFilledInCpp) {
  trunk::sandbox::FaultOptions faults;
  faults.latency = std::chrono::milliseconds(3'600'001);
  faults.error_rate = 2;
  std::vector<trunk::Violation> problems;
  trunk::options::check(faults, problems);
  ASSERT_EQ(problems.size(), 2U);
  EXPECT_EQ(problems[0], (trunk::Violation{"latency", "3600001", "must be between 0 and 3600000 milliseconds"}));
  EXPECT_EQ(problems[1], (trunk::Violation{"error_rate", "2", "must be >= 0 and <= 1"}));
  SandboxOptions options;
  options.faults.latency = std::chrono::milliseconds(3'600'000);
  problems.clear();
  trunk::options::check(options, problems);
  EXPECT_TRUE(problems.empty());
}

}  // namespace
}  // namespace sandbox_test
