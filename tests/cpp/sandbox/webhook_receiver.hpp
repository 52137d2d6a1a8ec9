#pragma once
// A local HTTP receiver of webhook deliveries for the sandbox tests: cpp-httplib on 127.0.0.1:0, recording
// every POST to /hook with its svix-* headers, answering what the test says (200 by default).

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "trunk/json_value.hpp"

namespace sandbox_test {

/// One POST a receiver got.
struct Received {
  std::string id, timestamp, signature, body, type, user_agent;
  std::int64_t pr_number = 0;
  std::string action;
};

/// A local HTTP receiver; answers what `status_for` says (200 by default). Stops in its destructor.
class Receiver {
 public:
  explicit Receiver(std::function<int(const Received&)> status_for = {}) : status_for_(std::move(status_for)) {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      Received r;
      r.id = req.get_header_value("svix-id");
      r.timestamp = req.get_header_value("svix-timestamp");
      r.signature = req.get_header_value("svix-signature");
      r.body = req.body;
      r.user_agent = req.get_header_value("User-Agent");
      const trunk::Json body = trunk::Json::parse(req.body, nullptr, false);
      if (body.is_object()) {
        r.type = body.value("type", "");
        r.pr_number = body.value("pr_number", std::int64_t{0});
        r.action = body.value("action", "");
      }
      const int status = status_for_ ? status_for_(r) : 200;
      {
        std::lock_guard lock(mutex_);
        received_.push_back(std::move(r));
      }
      res.status = status;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() does nothing before the accept loop runs: wait for it, so the destructor cannot hang.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<Received> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  std::function<int(const Received&)> status_for_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<Received> received_;
};

}  // namespace sandbox_test
