#pragma once
// A raw TCP connection to the sandbox, written and read byte for byte: for the HTTP framing tests, where a
// client library would hide exactly what is tested (which bytes go when, what the server does between them).

#include <map>
#include <optional>
#include <string>

namespace sandbox_test {

/// One HTTP answer as read off the socket.
struct RawReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

/// What reading an answer gave: an answer, a clean end of the connection before any byte, or neither in time.
struct ReadOutcome {
  std::optional<RawReply> reply;
  bool closed = false;     // EOF (or reset) before the first byte of an answer
  bool timed_out = false;  // the receive timeout passed: the server is waiting for something
};

/// Every receive gives up after `receive_timeout_seconds` (SO_RCVTIMEO): a hang guard, so a server that waits
/// for bytes never coming fails the test quickly.
class RawConnection {
 public:
  explicit RawConnection(int port, int receive_timeout_seconds = 2);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  /// False when the peer has already gone (the bytes could not be sent).
  bool send(const std::string& bytes);

  /// Reads one answer; `head_only` for the answer to HEAD (a Content-Length but no body). Interim (1xx)
  /// answers are returned like any other.
  ReadOutcome read_reply(bool head_only = false);

 private:
  int fill();

  int fd_;
  std::string pending_;
};

}  // namespace sandbox_test
