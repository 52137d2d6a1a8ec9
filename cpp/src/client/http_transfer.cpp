#include "http_transfer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>
#include <string_view>

#include "core/decode_body.hpp"
#include "secret_memory.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

/// The most on_header reserves for a body on the strength of its Content-Length alone.
constexpr std::size_t kMostReservedAhead = std::size_t{16} << 20;

bool iequals_prefix(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

/// Makes room for `wanted` bytes in `body`, growing by hand rather than by append: std::string would free the old
/// block unwiped, and a body may echo the API token.
void reserve_wiped(std::string& body, std::size_t wanted) {
  if (body.capacity() >= wanted) return;
  std::string grown;
  grown.reserve(wanted);
  grown.append(body);
  wipe(body);
  body.swap(grown);
}

extern "C" size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  const std::size_t bytes = size * count;
  std::string& body = state->result.body;
  if (body.size() + bytes > state->max_response_bytes) {
    state->result.too_large = true;
    return 0;  // any count other than `bytes` makes libcurl abort with CURLE_WRITE_ERROR
  }
  try {
    // kDecodePadding spare bytes at the end let the decoder read the body in place (decode_body.hpp).
    const std::size_t needed = body.size() + bytes + kDecodePadding;
    if (body.capacity() < needed) reserve_wiped(body, std::max(needed, 2 * body.capacity()));
    body.append(data, bytes);
  } catch (...) {
    return 0;
  }
  return bytes;
}

extern "C" size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  const std::size_t bytes = size * count;
  const std::string_view line(data, bytes);
  try {
    // A new status line starts a new response (an interim 1xx, say): forget the previous one's headers.
    if (iequals_prefix(line, "HTTP/")) {
      state->result.retry_after.reset();
      state->result.request_id.clear();
    } else if (iequals_prefix(line, "retry-after:")) {
      state->result.retry_after = std::string(trim(line.substr(std::string_view("retry-after:").size())));
    } else if (iequals_prefix(line, "x-request-id:")) {
      state->result.request_id = std::string(trim(line.substr(std::string_view("x-request-id:").size())));
    } else if (iequals_prefix(line, "content-length:")) {
      // The whole body in one block, not 16 KiB at a time doubled (with a copy and a wipe at each step). Only
      // a hint: a length over the limit reserves nothing (on_body refuses the body when it gets there), and at
      // most kMostReservedAhead is taken on a server's word before the bytes arrive. A compressed body's
      // length is less than what on_body will get; it grows from there.
      const std::string_view digits = trim(line.substr(std::string_view("content-length:").size()));
      std::size_t length = 0;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
      if (error == std::errc() && end == digits.data() + digits.size() && length <= state->max_response_bytes) {
        reserve_wiped(state->result.body, std::min(length, kMostReservedAhead) + kDecodePadding);
      }
    }
  } catch (...) {
    return 0;
  }
  return bytes;
}

}  // namespace

PreparedTransfer::PreparedTransfer(CURL* easy, const TransferRequest& request) : easy_(easy) {
  state_.max_response_bytes = request.max_response_bytes;
  curl_easy_setopt(easy, CURLOPT_URL, request.url->c_str());
  // The handle is reused across requests of either method: every attempt sets its own.
  if (request.body != nullptr) {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body->data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body->size()));
  } else {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  }
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.custom_method);
  if (request.headers != nullptr) {
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, const_cast<curl_slist*>(request.headers));
  }
  curl_easy_setopt(easy, CURLOPT_FRESH_CONNECT, request.fresh_connection ? 1L : 0L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<long long>(0, request.timeout.count())));
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer_);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &state_);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &state_);
}

PreparedTransfer::~PreparedTransfer() {
  // The pooled handle outlives this object: it must not keep pointers to it.
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, nullptr);
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, nullptr);
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, nullptr);
  curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, nullptr);
}

TransferResult PreparedTransfer::finish(CURLcode code) {
  TransferResult& result = state_.result;
  result.code = code;
  long status = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  result.status = status;
  result.error_detail = error_buffer_;
  return std::move(result);
}

}  // namespace trunk::detail
