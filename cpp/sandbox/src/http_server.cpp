#include "http_server.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <exception>
#include <thread>

#include "trunk/error.hpp"

namespace trunk::sandbox {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

/// How long a closing connection keeps reading what the client still sends (see HttpConnection::linger).
constexpr std::chrono::milliseconds kLingerTime{1000};
/// What the first read of a request asks for: its first bytes, awaited for as long as the connection may idle.
constexpr std::size_t kFirstReadBytes = 4096;

/// Beast's string_view (Boost's) as text.
std::string text(beast::string_view view) { return std::string(view.data(), view.size()); }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

/// The one-line text answer to a request that could not be read, and whether the connection can go on after it
/// (only when the request's framing was understood; otherwise where the next request starts is unknown).
HttpAnswer unreadable(const beast::error_code& error) {
  HttpAnswer answer;
  if (error == http::error::body_limit) {
    answer.status = 413;
    answer.body = "payload too large: the body is over the sandbox's limit\n";
  } else if (error == http::error::header_limit) {
    answer.status = 431;
    answer.body = "request header fields too large: the request line and headers are over the sandbox's limit\n";
  } else {
    answer.status = 400;
    answer.body = "bad request: the request could not be read (" + error.message() + ")\n";
  }
  return answer;
}

/// What a request's Transfer-Encoding says of its body (RFC 9112 6.1, 6.3).
enum class Codings {
  none,                      // no Transfer-Encoding: Content-Length or no body
  chunked,                   // exactly chunked
  chunked_with_unsupported,  // chunked last, after a coding this server does not decode (e.g. "gzip, chunked")
  length_unknown,            // the final coding is not chunked: where the body ends cannot be known
};

Codings transfer_codings(const http::request_header<>& head, std::string* unsupported) {
  std::vector<std::string> codings;
  const auto [first, last] = head.equal_range(http::field::transfer_encoding);
  for (auto field = first; field != last; ++field) {
    const std::string value = text(field->value());
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t comma = std::min(value.find(',', start), value.size());
      std::string coding = value.substr(start, comma - start);
      coding.erase(0, coding.find_first_not_of(" \t"));
      coding.erase(coding.find_last_not_of(" \t") + 1);
      coding = coding.substr(0, coding.find(';'));  // transfer parameters
      std::transform(coding.begin(), coding.end(), coding.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (!coding.empty()) codings.push_back(coding);
      start = comma + 1;
    }
  }
  if (codings.empty()) return Codings::none;
  if (codings.back() != "chunked") return Codings::length_unknown;
  for (std::size_t i = 0; i + 1 < codings.size(); ++i) {
    if (codings[i] == "chunked") return Codings::length_unknown;  // chunked twice (RFC 9112 6.1: must not)
    *unsupported = codings[i];
    return Codings::chunked_with_unsupported;
  }
  return Codings::chunked;
}

}  // namespace

std::optional<std::string> HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (equals_ignoring_case(key, name)) return value;
  }
  return std::nullopt;
}

struct HttpServer::Impl {
  // Declared before the io_context: connections and timers destroyed with it still read these.
  HttpServerOptions options;
  Handler handler;
  std::atomic<std::size_t> open_connections{0};
  std::atomic<bool> stopping{false};
  int port = 0;

  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::vector<std::thread> threads;

  void accept();
};

/// One client connection: a chain of asynchronous steps on its own strand — read a request (first bytes, head,
/// body), hand it to the handler, write the answer, read the next — so it holds a thread only while a step runs.
class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(tcp::socket socket, HttpServer::Impl& server) : stream_(std::move(socket)), server_(server) {
    ++server_.open_connections;
  }
  ~HttpConnection() { --server_.open_connections; }

  void start() { read_first_bytes(); }

  /// From any thread: the answer to the request being handled.
  void answer(HttpAnswer answer) {
    asio::post(stream_.get_executor(), [self = shared_from_this(), answer = std::move(answer)]() mutable {
      self->write(std::move(answer));
    });
  }

  /// The handler let go of its Responder without answering: end the connection (never leave it waiting).
  void abandon() {
    if (server_.stopping) return;  // the io_context is going away; it closes the socket itself
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->close_now(); });
  }

 private:
  using Response = http::response<http::string_body>;

  /// Between requests: waits (up to the idle timeout, costing no thread) for the first bytes of the next one,
  /// unless they were already read with the previous request (pipelining).
  void read_first_bytes() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.options.max_header_bytes));
    parser_->body_limit(server_.options.max_body_bytes);
    if (buffer_.size() > 0) {
      read_head();
      return;
    }
    stream_.expires_after(server_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            [self = shared_from_this()](const beast::error_code& error, std::size_t n) {
                              if (error) return self->close_now();  // idle timeout, or the client closed
                              self->buffer_.commit(n);
                              self->read_head();
                            });
  }

  /// The rest of the request line and headers, within the I/O timeout.
  void read_head() {
    stream_.expires_after(server_.options.io_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](const beast::error_code& error, std::size_t) {
                              self->on_head(error);
                            });
  }

  void on_head(const beast::error_code& error) {
    if (error) return refuse(error);
    const auto& head = parser_->get();
    unsupported_coding_.clear();
    switch (transfer_codings(head, &unsupported_coding_)) {
      case Codings::none:
      case Codings::chunked:
        break;
      case Codings::length_unknown:
        // RFC 9112 6.3 (4): a request whose final transfer coding is not chunked has no knowable end: 400, and
        // the connection ends (what follows cannot be told from a next request).
        keep_alive_ = false;
        head_request_ = false;
        version_ = 11;
        return write({400, "text/plain; charset=utf-8",
                      "bad request: the body's length is unknown (Transfer-Encoding must end in chunked)\n", {}});
      case Codings::chunked_with_unsupported:
        break;  // the end is known: read the body (the connection stays in step), then answer 501 in handle()
    }
    // RFC 9110 10.1.1: a client waiting for "100 Continue" before sending its body gets it, unless the body
    // is already here (then the client has stopped waiting anyway).
    const auto expect = head.find(http::field::expect);
    if (!parser_->is_done() && expect != head.end() && equals_ignoring_case(text(expect->value()), "100-continue") &&
        head.version() == 11) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = shared_from_this()](const beast::error_code& write_error, std::size_t) {
                          if (write_error) return self->close_now();
                          self->read_body();
                        });
      return;
    }
    read_body();
  }

  /// The body (none when the request has neither Content-Length nor chunked coding: RFC 9112 6.3).
  void read_body() {
    stream_.expires_after(server_.options.io_timeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](const beast::error_code& error, std::size_t) {
      if (error) return self->refuse(error);
      self->handle();
    });
  }

  /// A request that could not be read whole: a one-line answer saying the connection ends, when the client is
  /// still there to read it.
  void refuse(const beast::error_code& error) {
    if (error == beast::error::timeout || error == http::error::end_of_stream || error == http::error::partial_message ||
        error == asio::error::eof || error == asio::error::connection_reset || error == asio::error::operation_aborted) {
      return close_now();
    }
    keep_alive_ = false;
    head_request_ = false;
    write(unreadable(error));
  }

  void handle() {
    http::request<http::string_body> message = parser_->release();
    parser_.reset();
    keep_alive_ = message.keep_alive();
    head_request_ = message.method() == http::verb::head;
    version_ = message.version();
    stream_.expires_never();  // the handler may take its time (injected latency); no thread waits meanwhile
    if (!unsupported_coding_.empty()) {
      // RFC 9112 6.1: a transfer coding the server does not understand is answered 501; the body was read to its
      // chunked end, so the connection goes on in step.
      write({501, "text/plain; charset=utf-8",
             "not implemented: transfer coding " + unsupported_coding_ + " (only chunked is understood)\n", {}});
      return;
    }
    if (version_ == 11 && message.find(http::field::host) == message.end()) {
      // RFC 9112 3.2: a server must answer 400 to an HTTP/1.1 request without Host.
      write({400, "text/plain; charset=utf-8", "bad request: an HTTP/1.1 request needs a Host header\n", {}});
      return;
    }

    HttpRequest request;
    request.method = text(message.method_string());
    request.target = text(message.target());
    const std::size_t mark = request.target.find('?');
    request.path = request.target.substr(0, mark);
    if (mark != std::string::npos) request.query = request.target.substr(mark + 1);
    for (const auto& field : message) request.headers.emplace_back(text(field.name_string()), text(field.value()));
    request.body = std::move(message.body());
    try {
      server_.handler(std::move(request), Responder(shared_from_this()));
    } catch (const std::exception&) {
      write({500, "text/plain; charset=utf-8", "internal error: the sandbox could not answer this request\n", {}});
    }
  }

  void write(HttpAnswer answer) {
    if (answer.delivery == Delivery::no_answer) return close_now();
    auto response = std::make_shared<Response>();
    response->version(version_);
    response->result(static_cast<unsigned>(answer.status));
    if (!answer.content_type.empty()) response->set(http::field::content_type, answer.content_type);
    for (const auto& [name, value] : answer.headers) response->insert(name, value);
    const std::size_t length = answer.body.size();
    if (!head_request_) {
      response->body() = std::move(answer.body);
      // A broken answer: the head declares the whole body, half of it follows, then the connection ends.
      if (answer.delivery == Delivery::half_body) response->body().resize(length / 2);
    }
    response->content_length(length);
    const bool go_on = keep_alive_ && answer.delivery == Delivery::whole;
    if (answer.delivery == Delivery::whole) response->keep_alive(go_on);
    stream_.expires_after(server_.options.io_timeout);
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response, go_on, delivery = answer.delivery](
                          const beast::error_code& error, std::size_t) {
                        if (error || delivery == Delivery::half_body) return self->close_now();
                        if (go_on) return self->read_first_bytes();
                        self->linger();
                      });
  }

  /// Ends the connection after an answer that said so. Closing a socket with unread bytes from the client
  /// makes the kernel send a reset, which may destroy the answer before the client has read it: so first end
  /// the sending side (the client sees the answer, then the end), then read and drop what still comes for a
  /// short while.
  void linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTime);
    drain();
  }

  void drain() {
    stream_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](const beast::error_code& error, std::size_t) {
      if (error) return self->close_now();
      self->drain();
    });
  }

  void close_now() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::array<char, 4096> scratch_{};
  // The request being answered.
  std::string unsupported_coding_;  // a transfer coding before the final chunked that the server cannot undo
  bool keep_alive_ = true;
  bool head_request_ = false;
  unsigned version_ = 11;
};

Responder::~Responder() {
  if (connection_) connection_->abandon();
}

void Responder::operator()(HttpAnswer answer) {
  if (!connection_) return;  // answered already
  std::shared_ptr<HttpConnection> connection = std::move(connection_);
  connection->answer(std::move(answer));
}

void HttpServer::Impl::accept() {
  // Each connection gets its own strand: its steps never run at once, on whichever thread is free.
  acceptor.async_accept(asio::make_strand(io), [this](const beast::error_code& error, tcp::socket socket) {
    if (error == asio::error::operation_aborted) return;  // stopping
    if (!error) {
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<HttpConnection>(std::move(socket), *this)->start();
    }
    accept();  // also after an error (e.g. out of descriptors for a moment): keep serving the others
  });
}

HttpServer::HttpServer(HttpServerOptions options, Handler handler) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = std::move(options);
  s.handler = std::move(handler);
  try {
    tcp::resolver resolver(s.io);
    const auto endpoints = resolver.resolve(s.options.host, std::to_string(s.options.port),
                                            tcp::resolver::numeric_service | tcp::resolver::passive);
    const tcp::endpoint endpoint = endpoints.begin()->endpoint();
    s.acceptor.open(endpoint.protocol());
    s.acceptor.set_option(tcp::acceptor::reuse_address(true));
    s.acceptor.bind(endpoint);
    s.acceptor.listen(asio::socket_base::max_listen_connections);
    s.port = s.acceptor.local_endpoint().port();
  } catch (const std::exception& e) {
    throw trunk::Error("sandbox: cannot listen on " + s.options.host + ":" + std::to_string(s.options.port) + " (" +
                       e.what() + ")");
  }
}

void HttpServer::start() {
  Impl& s = *impl_;
  if (!s.threads.empty()) return;
  s.accept();
  const int threads = std::max(1, s.options.threads);
  for (int i = 0; i < threads; ++i) s.threads.emplace_back([&s] { s.io.run(); });
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::stop() {
  Impl& s = *impl_;
  if (s.stopping.exchange(true)) return;
  // The threads first: the acceptor is not safe to close while a thread may be starting the next accept.
  // What is still pending (accepts, reads, timers) is destroyed with the io_context, closing its sockets.
  s.io.stop();
  for (std::thread& thread : s.threads) thread.join();
  beast::error_code ignored;
  s.acceptor.close(ignored);
}

int HttpServer::port() const noexcept { return impl_->port; }

void HttpServer::after(std::chrono::microseconds delay, std::function<void()> work) {
  auto timer = std::make_shared<asio::steady_timer>(impl_->io, delay);
  timer->async_wait([timer, work = std::move(work)](const beast::error_code& error) {
    if (!error) work();
  });
}

std::size_t HttpServer::open_connections() const noexcept { return impl_->open_connections; }

}  // namespace trunk::sandbox
