#pragma once
// Real local servers for the client tests, bound to 127.0.0.1 port 0 and stopped by their destructors.
//  - HttpTestServer: cpp-httplib, records every request, answers through a replaceable handler.
//  - RawTestServer: a bare socket server for what httplib cannot do on purpose: drop a connection before
//    answering, or send half a body.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace trunk::testing {

struct RecordedRequest {
  std::string method;
  std::string path;
  std::string body;
  httplib::Headers headers;
  int remote_port = -1;

  std::string header(const std::string& name) const;
};

/// One scripted answer.
struct Reply {
  using HeaderList = std::vector<std::pair<std::string, std::string>>;
  Reply(int status_code, std::string response_body, std::string type = "application/json", HeaderList extra = {})
      : status(status_code), body(std::move(response_body)), content_type(std::move(type)), headers(std::move(extra)) {}

  int status;
  std::string body;
  std::string content_type;
  HeaderList headers;
};

class HttpTestServer {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

  HttpTestServer();
  ~HttpTestServer();
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  /// The handler runs on the server's worker threads until the server is destroyed (its destructor joins
  /// them), so declare the server *after* every local the handler captures by reference.
  void set_handler(Handler handler);
  /// Answers the n-th request with replies[n]; after the last one, repeats the last.
  void set_replies(std::vector<Reply> replies);

  std::vector<RecordedRequest> requests() const;
  std::size_t request_count() const;
  std::set<int> client_ports() const;

  /// For handlers that must hang (timeouts, cancellation): blocks until the server is being destroyed or
  /// `limit` passes, so the test never waits for it on teardown.
  void hang(std::chrono::milliseconds limit = std::chrono::seconds(30));

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable released_;
  bool stopping_ = false;
  Handler handler_;
  std::vector<RecordedRequest> requests_;
};

/// What the raw server does with one connection, after reading the request.
enum class RawAction {
  drop,       ///< close without answering
  half_body,  ///< status line + Content-Length: N, then N/2 bytes, then close
  ok,         ///< a complete 200 with the configured body, then close
};

class RawTestServer {
 public:
  /// Connection i gets script[i]; after the script, the last action repeats. ok_body is the 200 body.
  RawTestServer(std::vector<RawAction> script, std::string ok_body);
  ~RawTestServer();
  RawTestServer(const RawTestServer&) = delete;
  RawTestServer& operator=(const RawTestServer&) = delete;

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  /// Connections that sent a complete request.
  std::size_t requests_seen() const { return requests_seen_.load(); }

 private:
  void run();
  void serve(int connection, RawAction action);

  std::vector<RawAction> script_;
  std::string ok_body_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> requests_seen_{0};
  std::thread thread_;
};

/// A port on 127.0.0.1 where nothing listens (bound, then closed).
int closed_port();

}  // namespace trunk::testing
