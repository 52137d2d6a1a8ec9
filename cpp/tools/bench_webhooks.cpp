// Verifications per second of one webhook delivery with a 2 KB body on one core (benchmarks/run.py, scenario 10;
// docs/performance.md): `trunk_bench_webhooks [seconds]` prints one JSON line. Signature check alone, and the
// whole verify_webhook (signature + typed event).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "trunk/webhook_signature.hpp"

namespace {

template <typename F>
double per_second(double seconds, F&& call) {
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  long long done = 0;
  auto now = start;
  while (now < until) {
    for (int i = 0; i < 1000; ++i) call();
    done += 1000;
    now = std::chrono::steady_clock::now();
  }
  return static_cast<double>(done) / std::chrono::duration<double>(now - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  // A test_case.quarantining_setting_changed event of 2048 bytes, every field a known one (the size comes from
  // the test's most common failures, as real ones carry); benchmarks/run.py builds the same body.
  std::string body =
      R"({"type":"test_case.quarantining_setting_changed","quarantine_setting_changed":{"actor":)"
      R"({"email":"dev@acme.io","full_name":"Dana Dev"},"previous_quarantining_setting":"UNSPECIFIED",)"
      R"("updated_quarantining_setting":"ALWAYS_QUARANTINE","reason":"blocks deploys",)"
      R"("timestamp":"2026-05-01T12:00:00Z"},"test_case":{"id":"c1d2e3f4-0000-4a4a-8b8b-123456789abc",)"
      R"("name":"logs in with SSO","quarantined":true,"variant":"","codeowners":["@acme/identity"],)"
      R"("html_url":"https://app.trunk.io/acme/flaky-tests/test/c1d2e3f4-0000-4a4a-8b8b-123456789abc",)"
      R"("repository":{"html_url":"https://github.com/acme/webapp"},"status":{"value":"flaky","reason":"",)"
      R"("timestamp":"2026-04-20T09:15:00Z"},"failure_rate_last_7d":0.12,"pull_requests_impacted_last_7d":3,)"
      R"("ticket":{"html_url":""},"most_common_failures":[{"occurrence_count":5,)"
      R"("last_occurrence":"2026-04-30T10:00:00Z","summary":")";
  const std::string tail = "\"}]}}";
  body += std::string(2048 - body.size() - tail.size(), 's') + tail;
  const trunk::WebhookSecret secret = trunk::WebhookSecret::generate();
  const auto now = std::chrono::system_clock::now();
  const auto unix_seconds = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const trunk::WebhookHeaders headers{"msg_2fNnE4WzqA", std::to_string(unix_seconds),
                                      trunk::sign_webhook(secret, "msg_2fNnE4WzqA", unix_seconds, body)};
  const double signature = per_second(seconds, [&] { trunk::verify_webhook_signature(secret, headers, body); });
  std::size_t sink = 0;
  const double whole = per_second(seconds, [&] { sink += trunk::verify_webhook(secret, headers, body).index(); });
  std::printf("{\"body_bytes\": %zu, \"signature_per_second\": %.0f, \"verify_per_second\": %.0f, \"sink\": %zu}\n",
              body.size(), signature, whole, sink);
  return 0;
}
