// Sequential round trips per second of Client::get_test_details against a local cpp-httplib server
// (127.0.0.1, port 0, TCP_NODELAY, keep-alive), i.e. the client's own per-call overhead plus loopback.
//
// Usage: trunk_bench_roundtrip [calls=5000]

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "trunk/client.hpp"

namespace {

/// The answer served: {"test": <the full test case of the fixtures>}, every field of a test case.
std::string details_json() {
  std::ifstream file(TRUNK_SOURCE_DIR "/tests/fixtures/test_case_full.json");
  std::stringstream text;
  text << file.rdbuf();
  if (text.str().empty()) {
    std::fprintf(stderr, "cannot read tests/fixtures/test_case_full.json under %s\n", TRUNK_SOURCE_DIR);
    std::exit(2);
  }
  return "{\"test\":" + text.str() + "}";
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 5000;
  if (calls <= 0) {
    std::fprintf(stderr, "usage: %s [calls>0]\n", argv[0]);
    return 2;
  }

  httplib::Server server;
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(1000000);
  const std::string body = details_json();
  server.Post("/v1/flaky-tests/get-test-details", [&body](const httplib::Request&, httplib::Response& response) {
    // With charset the type is not one httplib compresses: the benchmark measures the client, not brotli.
    response.set_content(body, "application/json; charset=utf-8");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) {
    std::fprintf(stderr, "could not bind 127.0.0.1\n");
    return 1;
  }
  std::thread server_thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  int status = 0;
  try {
    trunk::ClientOptions options;
    options.base_url = "http://127.0.0.1:" + std::to_string(port);
    options.token = "bench-token";
    trunk::Client client(std::move(options));
    trunk::GetTestDetailsRequest request;
    request.repo = trunk::Repo{"github.com", "trunk-io", "trunk"};
    request.org_url_slug = "trunk";
    request.test_id = "0b9a4b2e-6f7b-4c5d-9e2f-1a2b3c4d5e6f";

    for (int i = 0; i < 200; ++i) (void)client.get_test_details(request);  // warm-up: connection, caches
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i) (void)client.get_test_details(request);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%ld sequential get_test_details round trips in %.3f s: %.0f round trips/s (%.1f us each)\n", calls,
                seconds, static_cast<double>(calls) / seconds, seconds * 1e6 / static_cast<double>(calls));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "benchmark failed: %s\n", error.what());
    status = 1;
  }
  server.stop();
  server_thread.join();
  return status;
}
