#include "test_servers.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace trunk::testing {

std::string RecordedRequest::header(const std::string& name) const {
  auto found = headers.find(name);  // httplib's Headers compare names case-insensitively
  return found == headers.end() ? std::string() : found->second;
}

HttpTestServer::HttpTestServer() {
  server_.set_tcp_nodelay(true);
  server_.set_keep_alive_max_count(100000);
  server_.new_task_queue = [] { return new httplib::ThreadPool(16); };
  // Every request, whatever its method, is recorded and goes to the one handler.
  const auto serve = [this](const httplib::Request& request, httplib::Response& response) {
    Handler handler;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back({request.method, request.path, request.body, request.headers, request.remote_port});
      handler = handler_;
    }
    if (handler) {
      handler(request, response);
    } else {
      response.status = 500;
      response.set_content("no handler configured", "text/plain");
    }
  };
  server_.Post(".*", serve);
  server_.Get(".*", serve);
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("test server could not bind 127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpTestServer::~HttpTestServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  released_.notify_all();
  server_.stop();
  thread_.join();
}

void HttpTestServer::set_handler(Handler handler) {
  std::lock_guard lock(mutex_);
  handler_ = std::move(handler);
}

void HttpTestServer::set_replies(std::vector<Reply> replies) {
  auto counter = std::make_shared<std::atomic<std::size_t>>(0);
  set_handler([replies = std::move(replies), counter](const httplib::Request&, httplib::Response& response) {
    const std::size_t index = std::min(counter->fetch_add(1), replies.size() - 1);
    const Reply& reply = replies[index];
    response.status = reply.status;
    for (const auto& [name, value] : reply.headers) response.set_header(name, value);
    response.set_content(reply.body, reply.content_type);
  });
}

std::vector<RecordedRequest> HttpTestServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t HttpTestServer::request_count() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}

std::set<int> HttpTestServer::client_ports() const {
  std::lock_guard lock(mutex_);
  std::set<int> ports;
  for (const auto& request : requests_) ports.insert(request.remote_port);
  return ports;
}

void HttpTestServer::hang(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  released_.wait_for(lock, limit, [this] { return stopping_; });
}

// ---- RawTestServer ----------------------------------------------------------------------------------------

RawTestServer::RawTestServer(std::vector<RawAction> script, std::string ok_body)
    : script_(std::move(script)), ok_body_(std::move(ok_body)) {
  if (script_.empty()) throw std::invalid_argument("RawTestServer needs at least one action");
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener_ < 0) throw std::runtime_error("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_, 16) != 0) {
    ::close(listener_);
    throw std::runtime_error("raw test server could not bind 127.0.0.1");
  }
  socklen_t length = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { run(); });
}

RawTestServer::~RawTestServer() {
  stopping_ = true;
  thread_.join();
  ::close(listener_);
}

void RawTestServer::run() {
  std::size_t connection_index = 0;
  while (!stopping_) {
    pollfd waiting{listener_, POLLIN, 0};
    if (::poll(&waiting, 1, 20) <= 0) continue;
    const int connection = ::accept(listener_, nullptr, nullptr);
    if (connection < 0) continue;
    const RawAction action = script_[std::min(connection_index, script_.size() - 1)];
    ++connection_index;
    serve(connection, action);
    ::close(connection);
  }
}

namespace {

bool send_all(int connection, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(connection, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

/// Reads one request (headers, then Content-Length bytes of body); false when the peer went away.
bool read_request(int connection, const std::atomic<bool>& stopping) {
  std::string data;
  std::size_t needed = std::string::npos;
  char buffer[4096];
  while (!stopping) {
    if (needed != std::string::npos && data.size() >= needed) return true;
    pollfd waiting{connection, POLLIN, 0};
    if (::poll(&waiting, 1, 20) <= 0) continue;
    const ssize_t n = ::recv(connection, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    data.append(buffer, static_cast<std::size_t>(n));
    const std::size_t header_end = data.find("\r\n\r\n");
    if (needed == std::string::npos && header_end != std::string::npos) {
      std::string headers = data.substr(0, header_end);
      std::transform(headers.begin(), headers.end(), headers.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      std::size_t body_length = 0;
      const std::size_t field = headers.find("content-length:");
      if (field != std::string::npos) body_length = std::stoul(headers.substr(field + 15));
      needed = header_end + 4 + body_length;
    }
  }
  return false;
}

}  // namespace

void RawTestServer::serve(int connection, RawAction action) {
  if (!read_request(connection, stopping_)) return;
  ++requests_seen_;
  switch (action) {
    case RawAction::drop:
      return;
    case RawAction::half_body: {
      const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                               std::to_string(ok_body_.size()) + "\r\nConnection: close\r\n\r\n";
      send_all(connection, head + ok_body_.substr(0, ok_body_.size() / 2));
      return;
    }
    case RawAction::ok: {
      const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                               std::to_string(ok_body_.size()) + "\r\nConnection: close\r\n\r\n";
      send_all(connection, head + ok_body_);
      return;
    }
  }
}

int closed_port() {
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(probe);  // never listened: connecting is refused
  return ntohs(address.sin_port);
}

}  // namespace trunk::testing
