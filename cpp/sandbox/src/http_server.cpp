#include "http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "chunked_framing.hpp"

namespace trunk::sandbox {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// The methods Server::parse_request_line of cpp-httplib 0.11 accepts; it answers an empty 400 to any other.
constexpr std::array<std::string_view, 10> kParsedMethods = {"GET",     "HEAD",    "POST",  "PUT",   "DELETE",
                                                             "CONNECT", "OPTIONS", "TRACE", "PATCH", "PRI"};
/// The methods Server::routing dispatches to handlers (it answers an empty 400 to TRACE, CONNECT and PRI).
constexpr std::array<std::string_view, 7> kRoutedMethods = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"};
/// What an unknown method is shown to httplib's parser as: one it accepts, reads no body for and does not
/// route. The request's real method is put back as soon as the headers are parsed (Connection::head_read).
constexpr std::string_view kStandInMethod = "TRACE";

/// httplib refuses a request line over 8 KiB; past that there is no method worth looking at.
constexpr std::size_t kMaxRequestLineBytes = 8192 + 64;
/// An unread body longer than this is not worth reading to throw away: the connection closes instead.
constexpr std::uint64_t kMaxDiscardBytes = 1 << 20;
/// How long a closing connection keeps reading what the client still sends (see Connection::close).
constexpr milliseconds kLingerTime{1000};
/// Between requests, how often the connection looks whether the server is stopping.
constexpr milliseconds kIdlePoll{50};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& set, std::string_view value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

/// RFC 9110 5.6.2: a method is a token.
bool is_token(std::string_view text) {
  static constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || kSymbols.find(c) != std::string_view::npos;
  });
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

/// RFC 9112 6.3: Content-Length is 1*DIGIT.
bool parse_length(const std::string& text, std::uint64_t* length) {
  if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  *length = std::stoull(text);
  return true;
}

/// The numeric address and port of a socket address, as inet_ntop writes it (sandbox.cpp finds a connection's
/// descriptor by comparing with the same text).
void endpoint_text(const sockaddr_storage& address, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

/// How the body of the current request ends (RFC 9112 6.3).
enum class Framing {
  none,     // neither Content-Length nor Transfer-Encoding: no body
  length,   // Content-Length
  chunked,  // Transfer-Encoding: chunked
  unknown,  // anything else (invalid or repeated Content-Length, another coding, both headers): not followed
};

/// One client connection, as the httplib::Stream every request on it is read from. The buffer lives as long
/// as the connection, so bytes read ahead (the next pipelined request) are kept; during a body, reads stop
/// where the framing says the body ends, so httplib can never read into the next request, and a body
/// httplib did not read is discarded after the answer (finish_request).
class Connection final : public httplib::Stream {
 public:
  Connection(int socket, milliseconds read_timeout, milliseconds write_timeout)
      : socket_(socket), read_timeout_(read_timeout), write_timeout_(write_timeout) {}

  bool is_readable() const override { return offset_ < buffer_.size() || wait(POLLIN, read_timeout_); }
  bool is_writable() const override { return wait(POLLOUT, write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (in_body_) {
      if (framing_ == Framing::none || framing_ == Framing::unknown) return 0;  // no body: "end of stream"
      if (framing_ == Framing::length) size = static_cast<size_t>(std::min<std::uint64_t>(size, body_left_));
      if (framing_ == Framing::chunked && (chunks_.done() || chunks_.broken())) return 0;
      if (size == 0) return 0;
    }
    if (offset_ == buffer_.size()) {
      const ssize_t got = fill();
      if (got <= 0) return got;
    }
    std::size_t n = std::min(size, buffer_.size() - offset_);
    if (in_body_ && framing_ == Framing::chunked) n = chunks_.feed(buffer_.data() + offset_, n);
    std::memcpy(ptr, buffer_.data() + offset_, n);
    offset_ += n;
    if (in_body_ && framing_ == Framing::length) body_left_ -= n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!wait(POLLOUT, write_timeout_)) return -1;
    return ::send(socket_, ptr, size, MSG_NOSIGNAL);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { endpoint(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { endpoint(::getsockname, ip, port); }
  socket_t socket() const override { return socket_; }

  /// Waits until the next request starts (bytes already buffered, or arriving). False when the client stayed
  /// silent for `idle` or the server is stopping (`listener` no longer valid).
  bool wait_for_request(milliseconds idle, const std::atomic<socket_t>& listener) const {
    if (offset_ < buffer_.size()) return true;
    const auto deadline = Clock::now() + idle;
    while (listener != INVALID_SOCKET) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      if (wait(POLLIN, std::min(left, kIdlePoll))) return true;
    }
    return false;
  }

  /// Before httplib parses the next request: an unknown method is shown to its parser as kStandInMethod, so
  /// that the request reaches the sandbox's pre-routing handler instead of an empty 400 that leaves the
  /// headers unread.
  void begin_request() {
    in_body_ = head_read_ = false;
    framing_ = Framing::none;
    body_left_ = 0;
    chunks_ = ChunkedFraming{};
    original_method_.clear();
    std::size_t end = std::string::npos;
    while ((end = buffer_.find('\n', offset_)) == std::string::npos && buffer_.size() - offset_ < kMaxRequestLineBytes) {
      if (fill() <= 0) return;  // httplib meets the same end or timeout and gives up on the connection
    }
    if (end == std::string::npos) return;
    const std::size_t space = buffer_.find(' ', offset_);
    if (space == std::string::npos || space > end) return;
    const std::string_view method(buffer_.data() + offset_, space - offset_);
    if (one_of(kParsedMethods, method) || !is_token(method)) return;
    original_method_ = std::string(method);
    buffer_.replace(offset_, method.size(), kStandInMethod);
  }

  /// httplib's setup_request hook: the request line and headers are read, the body (if any) is next.
  void head_read(httplib::Request& req) {
    head_read_ = in_body_ = true;
    if (!original_method_.empty()) req.method = original_method_;
    const auto lengths = req.headers.count("Content-Length");
    const auto codings = req.headers.count("Transfer-Encoding");
    if (codings > 0) {
      // Both headers at once is how requests are smuggled (RFC 9112 6.1): not followed.
      const bool chunked = codings == 1 && lengths == 0 && equals_ignoring_case(req.get_header_value("Transfer-Encoding"), "chunked");
      framing_ = chunked ? Framing::chunked : Framing::unknown;
    } else if (lengths == 0) {
      framing_ = Framing::none;
    } else {
      framing_ = lengths == 1 && parse_length(req.get_header_value("Content-Length"), &body_left_) ? Framing::length
                                                                                                   : Framing::unknown;
    }
  }

  /// Whether the connection can take another request after the answer being written (which then says
  /// `Connection: close` when not). Reading the rest of the body can still fail later (the client never
  /// sends it): then the connection closes without having said so.
  bool can_go_on() const {
    if (!head_read_) return false;  // httplib refused the request line or headers: where it ends is unknown
    switch (framing_) {
      case Framing::none: return true;
      case Framing::length: return body_left_ <= kMaxDiscardBytes;
      case Framing::chunked: return !chunks_.broken();
      case Framing::unknown: return false;
    }
    return false;
  }

  /// After the answer: reads and drops what is left of the request's body, so the next request starts at
  /// its first byte. False when the connection cannot go on.
  bool finish_request() {
    if (!can_go_on()) return false;
    std::array<char, 16384> scratch;
    std::uint64_t discarded = 0;
    while (!(framing_ == Framing::none || (framing_ == Framing::length && body_left_ == 0) ||
             (framing_ == Framing::chunked && chunks_.done()))) {
      const ssize_t n = read(scratch.data(), scratch.size());
      if (n <= 0) return false;
      discarded += static_cast<std::uint64_t>(n);
      if (discarded > kMaxDiscardBytes) return false;
    }
    in_body_ = false;
    return true;
  }

  /// Ends the connection after an answer. Closing a socket with unread bytes from the client makes the
  /// kernel send a reset, and a reset may destroy the answer before the client has read it: so first end
  /// the sending side (the client sees the answer, then the end), then read and drop what still comes for
  /// a short while.
  void close_after_answer() {
    ::shutdown(socket_, SHUT_WR);
    const auto deadline = Clock::now() + kLingerTime;
    std::array<char, 16384> scratch;
    for (;;) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || !wait(POLLIN, left)) break;
      if (::recv(socket_, scratch.data(), scratch.size(), 0) <= 0) break;
    }
    ::close(socket_);
  }

  void close_now() {
    ::shutdown(socket_, SHUT_RDWR);
    ::close(socket_);
  }

 private:
  /// Appends what the socket has (waiting up to the read timeout): > 0 bytes, 0 at its end, -1 on timeout.
  ssize_t fill() {
    if (offset_ == buffer_.size()) {
      buffer_.clear();
      offset_ = 0;
    } else if (offset_ > 0) {
      buffer_.erase(0, offset_);
      offset_ = 0;
    }
    if (!wait(POLLIN, read_timeout_)) return -1;
    std::array<char, 16384> chunk;
    const ssize_t n = ::recv(socket_, chunk.data(), chunk.size(), 0);
    if (n > 0) buffer_.append(chunk.data(), static_cast<std::size_t>(n));
    return n;
  }

  bool wait(short events, milliseconds timeout) const {
    pollfd entry{socket_, events, 0};
    for (;;) {
      const int ready = ::poll(&entry, 1, static_cast<int>(timeout.count()));
      if (ready < 0 && errno == EINTR) continue;
      return ready > 0;
    }
  }

  template <typename Query>
  void endpoint(Query query, std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (query(socket_, reinterpret_cast<sockaddr*>(&address), &length) == 0) endpoint_text(address, ip, port);
  }

  int socket_;
  milliseconds read_timeout_, write_timeout_;
  std::string buffer_;
  std::size_t offset_ = 0;  // first byte of buffer_ not yet handed out

  // The current request.
  std::string original_method_;  // set when begin_request showed httplib kStandInMethod instead
  bool head_read_ = false;
  bool in_body_ = false;
  Framing framing_ = Framing::none;
  std::uint64_t body_left_ = 0;  // Framing::length: bytes of the body not yet read
  ChunkedFraming chunks_;
};

/// The connection whose request this thread is answering: the post-routing hook gets only the request and
/// the answer, and each connection is served on one thread from its first request to its close.
thread_local Connection* current_connection = nullptr;

milliseconds to_milliseconds(time_t seconds, time_t microseconds) {
  return milliseconds(static_cast<std::int64_t>(seconds) * 1000 + static_cast<std::int64_t>(microseconds) / 1000);
}

}  // namespace

InStepServer::InStepServer() {
  // Runs after httplib has prepared the answer's headers and before it writes them: the last moment to
  // tell the client that this connection ends after this answer.
  set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (current_connection == nullptr || current_connection->can_go_on()) return;
    res.headers.erase("Keep-Alive");
    if (res.get_header_value("Connection") != "close") res.set_header("Connection", "close");
  });
}

bool InStepServer::has_routes_for(const std::string& method) { return one_of(kRoutedMethods, method); }

bool InStepServer::process_and_close_socket(socket_t sock) {
  Connection connection(sock, to_milliseconds(read_timeout_sec_, read_timeout_usec_),
                        to_milliseconds(write_timeout_sec_, write_timeout_usec_));
  const milliseconds idle = to_milliseconds(keep_alive_timeout_sec_, 0);
  bool answered = false;  // the last request got an answer and the connection did not get back in step
  bool ok = false;
  for (std::size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    if (!connection.wait_for_request(idle, svr_sock_)) break;
    connection.begin_request();
    bool client_closes = false;
    current_connection = &connection;
    ok = process_request(connection, left == 1, client_closes,
                         [&connection](httplib::Request& req) { connection.head_read(req); });
    current_connection = nullptr;
    answered = ok;
    if (!ok || client_closes || !connection.finish_request()) break;
    answered = false;
  }
  if (answered) {
    connection.close_after_answer();
  } else {
    connection.close_now();
  }
  return ok;
}

}  // namespace trunk::sandbox
