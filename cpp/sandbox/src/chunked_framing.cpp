#include "chunked_framing.hpp"

#include <algorithm>

namespace trunk::sandbox {

namespace {
// A chunk-size line is hex digits and optional extensions; a long line is an attack or garbage, not framing.
constexpr std::size_t kMaxLineBytes = 4096;
constexpr std::size_t kMaxSizeDigits = 15;  // below 2^60: no overflow of the byte count
}  // namespace

std::size_t ChunkedFraming::feed(const char* data, std::size_t n) {
  std::size_t i = 0;
  while (i < n && state_ != State::done && state_ != State::broken) {
    if (state_ == State::data) {
      const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, n - i));
      i += take;
      remaining_ -= take;
      if (remaining_ == 0) state_ = State::data_end;
      continue;
    }
    const char c = data[i++];
    if (c != '\n') {
      if (line_.size() >= kMaxLineBytes) state_ = State::broken;
      line_ += c;
      continue;
    }
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    end_of_line();
    line_.clear();
  }
  return i;
}

void ChunkedFraming::end_of_line() {
  switch (state_) {
    case State::size_line: {
      const std::size_t digits = std::min(line_.find_first_not_of("0123456789abcdefABCDEF"), line_.size());
      const bool extension_or_end = digits == line_.size() || line_[digits] == ';' || line_[digits] == ' ' ||
                                    line_[digits] == '\t';
      if (digits == 0 || digits > kMaxSizeDigits || !extension_or_end) {
        state_ = State::broken;
        return;
      }
      remaining_ = std::stoull(line_.substr(0, digits), nullptr, 16);
      state_ = remaining_ == 0 ? State::trailer : State::data;
      return;
    }
    case State::data_end:  // the CRLF after a chunk's data, nothing else
      state_ = line_.empty() ? State::size_line : State::broken;
      return;
    case State::trailer:  // trailer fields are skipped; the empty line ends the body
      if (line_.empty()) state_ = State::done;
      return;
    default:
      return;
  }
}

}  // namespace trunk::sandbox
