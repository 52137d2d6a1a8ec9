#include "raw_connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace sandbox_test {

RawConnection::RawConnection(int port, int receive_timeout_seconds) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  if (fd_ < 0) throw std::runtime_error("socket failed");
  timeval timeout{};
  timeout.tv_sec = receive_timeout_seconds;
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd_);
    throw std::runtime_error("connect failed");
  }
}

RawConnection::~RawConnection() { ::close(fd_); }

bool RawConnection::send(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

ReadOutcome RawConnection::read_reply(bool head_only) {
  ReadOutcome outcome;
  std::size_t end = std::string::npos;
  while ((end = pending_.find("\r\n\r\n")) == std::string::npos) {
    const int got = fill();
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
      outcome.closed = pending_.empty();
      return outcome;
    }
    if (got < 0) {
      outcome.timed_out = true;
      return outcome;
    }
  }
  RawReply reply;
  const std::string head = pending_.substr(0, end);
  pending_.erase(0, end + 4);
  std::size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12) throw std::runtime_error("not an HTTP answer: " + status_line);
  reply.status = std::atoi(status_line.c_str() + 9);
  while (line_end != std::string::npos) {
    const std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line = head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    reply.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
  }
  const std::size_t length = head_only ? 0 : std::stoul(reply.header("content-length").empty() ? "0" : reply.header("content-length"));
  while (pending_.size() < length) {
    if (fill() <= 0) {
      outcome.timed_out = true;  // a short body is no answer either
      return outcome;
    }
  }
  reply.body = pending_.substr(0, length);
  pending_.erase(0, length);
  outcome.reply = std::move(reply);
  return outcome;
}

int RawConnection::fill() {
  char buffer[16384];
  const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
  if (n > 0) pending_.append(buffer, static_cast<std::size_t>(n));
  return static_cast<int>(n);
}

}  // namespace sandbox_test
