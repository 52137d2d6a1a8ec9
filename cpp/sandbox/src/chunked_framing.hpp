#pragma once
// Where a chunked request body ends (RFC 9112 7.1), found by watching its bytes go by. The connection
// (http_server.cpp) feeds it every body byte, whether cpp-httplib reads them or the connection discards
// them, so it knows when the next request starts even when nobody decoded the chunks.

#include <cstddef>
#include <cstdint>
#include <string>

namespace trunk::sandbox {

class ChunkedFraming {
 public:
  /// Looks at the next `n` bytes of the body; returns how many of them belong to it (fewer than `n` once the
  /// body ends or turns out malformed).
  std::size_t feed(const char* data, std::size_t n);

  bool done() const noexcept { return state_ == State::done; }
  /// Not chunked encoding: where the body ends is unknown, so the connection cannot go on.
  bool broken() const noexcept { return state_ == State::broken; }

 private:
  enum class State { size_line, data, data_end, trailer, done, broken };
  void end_of_line();

  State state_ = State::size_line;
  std::uint64_t remaining_ = 0;  // bytes of the current chunk's data still to come
  std::string line_;             // the size line or trailer line being read, without its CRLF
};

}  // namespace trunk::sandbox
