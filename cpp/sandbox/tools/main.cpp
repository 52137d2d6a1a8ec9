// trunk-sandbox: serves the sandbox until SIGINT or SIGTERM, then exits 0.
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <pthread.h>

#include "command_line.hpp"
#include "trunk/error.hpp"
#include "trunk/sandbox/sandbox.hpp"

int main(int argc, char** argv) {
  using namespace trunk::sandbox;
  cli::CommandLine line;
  try {
    line = cli::parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "trunk-sandbox: " << e.what() << "\n";
    return 2;
  }
  if (line.help) {
    std::cout << cli::usage();
    return 0;
  }
  // Block the stop signals before any thread starts, so every worker inherits the mask and the main thread
  // alone receives them through sigwait. A client going away must not kill the server either.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  try {
    Sandbox sandbox(line.options);
    sandbox.start();
    if (!line.save_data.empty()) sandbox.save_data(line.save_data);
    // The token is printed because it is the sandbox's own throwaway token, needed to talk to it.
    std::cout << "trunk-sandbox listening on " << sandbox.url() << "\n"
              << "token: " << sandbox.token() << "\n"
              << "org_url_slug: " << sandbox.org_url_slug() << "\n";
    for (const auto& repo : sandbox.repos()) std::cout << "repo: " << repo.to_string() << "\n";
    // Each endpoint's secret is printed for the same reason: its owner verifies deliveries with it.
    for (const std::string& url : line.webhooks) {
      std::optional<WebhookEndpoint> endpoint;
      try {
        endpoint.emplace(sandbox.add_webhook({url, std::nullopt, {}}));
      } catch (const trunk::ValidationError& e) {
        std::cerr << "trunk-sandbox: --webhook: " << e.what() << "\n";  // a bad flag, as for the others
        return 2;
      }
      std::cout << "webhook: " << endpoint->id << " " << endpoint->url << " secret " << endpoint->secret.reveal() << "\n";
    }
    // The environment of every client, in the publisher's spelling (the address with the version, the token
    // under both names its tools read), ready for `eval "$(grep '^export TRUNK_' out)"`.
    std::cout << "export TRUNK_BASE_URL=" << sandbox.url() << "/v1\n"
              << "export TRUNK_API_TOKEN=" << sandbox.token() << "\n"
              << "export TRUNK_API_KEY=" << sandbox.token() << "\n"
              // v2's API key, on its own line: TRUNK_API_KEY above holds the v1 token the Terraform provider reads.
              << "api key (v2): " << sandbox.api_key() << "\n";
    std::cout.flush();
    int received = 0;
    sigwait(&stop_signals, &received);
    std::cout << "trunk-sandbox: stopping (signal " << received << ")\n";
    sandbox.stop();
  } catch (const std::exception& e) {
    std::cerr << "trunk-sandbox: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
