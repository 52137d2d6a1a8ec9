#pragma once
// The sandbox's HTTP/1.1 server: event-driven (Boost.Asio + Beast), so that serving scales with connections,
// not threads (issue 17). A connection holds no thread while it waits for its next request, for the rest of a
// body, for a write to drain, or for the latency the sandbox injects (`after` is a timer, not a sleep); a
// few threads run the event loop and the handler.
//
// Framing is Beast's parser (RFC 9112): every request is read whole — its body by Content-Length or chunked
// coding, none when it has neither — before the handler sees it, so no answer can leave a kept-alive
// connection out of step, whatever the method or the answer. A request that cannot be read (malformed
// request line or headers, an invalid or doubled length, an unknown transfer coding, a body over the limit)
// gets a one-line text answer saying `Connection: close`, and the connection ends after it with a lingering
// close (the client still reads the answer).
//
// Replaced cpp-httplib 0.11 (thread per connection, 32 threads: connection 33 waited for a free thread, and
// an answer given without reading the body desynchronised the connection).

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trunk::sandbox {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

/// One request, read whole.
struct HttpRequest {
  std::string method;  ///< as sent: any token, letter case kept
  std::string target;  ///< the request-target as sent
  std::string path;    ///< the target up to '?'
  std::string query;   ///< after '?' ("" when none)
  HeaderList headers;  ///< in the order received, names as sent
  std::string body;    ///< decoded from chunked coding when it was chunked

  /// The first header of that name (compared ignoring letter case), or nullopt.
  std::optional<std::string> header(std::string_view name) const;
};

/// How an answer reaches the client. The sandbox's faults use the last two.
enum class Delivery {
  whole,      ///< the answer, then the connection goes on (unless the request or the answer ends it)
  no_answer,  ///< the connection ends without a byte of answer
  half_body,  ///< the head declaring the whole body, the first half of the body, then the connection ends
};

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  HeaderList headers;  ///< besides Content-Type, Content-Length and Connection, which the server writes
  Delivery delivery = Delivery::whole;
};

class HttpConnection;

/// Answers one request, once, from any thread. Dropping it unanswered ends the connection without an answer.
class Responder {
 public:
  explicit Responder(std::shared_ptr<HttpConnection> connection) : connection_(std::move(connection)) {}
  Responder(Responder&&) noexcept = default;
  Responder& operator=(Responder&&) noexcept = default;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;
  ~Responder();

  void operator()(HttpAnswer answer);

 private:
  std::shared_ptr<HttpConnection> connection_;
};

/// The largest request body the sandbox reads (413 beyond, answered from Content-Length before reading it): 4 MiB.
/// Trunk's merge-action uploads up to 100,000 impacted targets for one pull request in its own tests, a 1.9 MB
/// body; twice that leaves room for longer target names, and a body of tens of megabytes is still refused unread.
inline constexpr std::size_t kMaxRequestBodyBytes = std::size_t{4} << 20;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  ///< 0 = any free port
  int threads = 4;  ///< event-loop threads; the handler runs on them
  std::size_t max_body_bytes = kMaxRequestBodyBytes;  ///< larger bodies get 413 and the connection ends
  std::size_t max_header_bytes = 16 << 10;  ///< request line + headers; larger gets 431 and the connection ends
  /// A kept-alive connection with no request for this long is closed (it costs no thread meanwhile).
  std::chrono::milliseconds idle_timeout{60000};
  /// A request started must arrive whole within this (slow or stalled clients are cut off), and an
  /// answer must be taken by the client within it.
  std::chrono::milliseconds io_timeout{5000};
};

class HttpServer {
 public:
  /// Called on a server thread with each request read whole; answers through the Responder, now or later.
  using Handler = std::function<void(HttpRequest&&, Responder)>;

  /// Binds and listens (trunk::Error when the address cannot be used); serving starts with start().
  HttpServer(HttpServerOptions options, Handler handler);
  /// Stops: no new connections, open ones closed, pending `after` work dropped; returns when the threads have
  /// ended, so from then on nothing of the handler runs. Idempotent; the destructor stops too.
  void stop();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Starts the threads that accept and serve (once; the handler may use `after` from then on).
  void start();

  int port() const noexcept;

  /// Runs `work` on a server thread once `delay` has passed, holding no thread meanwhile.
  void after(std::chrono::microseconds delay, std::function<void()> work);

  /// Connections open now (for tests and the load test's report).
  std::size_t open_connections() const noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace trunk::sandbox
