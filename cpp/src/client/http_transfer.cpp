#include "http_transfer.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "secret_memory.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

constexpr int kPollIntervalMs = 100;

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

extern "C" size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  const std::size_t bytes = size * count;
  std::string& body = state->result.body;
  if (body.size() + bytes > state->max_response_bytes) {
    state->result.too_large = true;
    return 0;  // any count other than `bytes` makes libcurl abort with CURLE_WRITE_ERROR
  }
  try {
    if (body.capacity() < body.size() + bytes) {
      // Grown by hand rather than by append: std::string would free the old block unwiped, and a body
      // may echo the API token.
      std::string grown;
      grown.reserve(std::max(body.size() + bytes, 2 * body.capacity()));
      grown.append(body);
      wipe(body);
      body.swap(grown);
    }
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
    } else if (iequals_prefix(line, "retry-after:")) {
      state->result.retry_after = std::string(trim(line.substr(std::string_view("retry-after:").size())));
    }
  } catch (...) {
    return 0;
  }
  return bytes;
}

/// Detaches the easy handle from the multi handle however the attempt ends.
class MultiAttachment {
 public:
  MultiAttachment(CURLM* multi, CURL* easy) : multi_(multi), easy_(easy) {
    const CURLMcode code = curl_multi_add_handle(multi_, easy_);
    if (code != CURLM_OK) throw TransportError(std::string("libcurl: ") + curl_multi_strerror(code));
  }
  ~MultiAttachment() { curl_multi_remove_handle(multi_, easy_); }
  MultiAttachment(const MultiAttachment&) = delete;
  MultiAttachment& operator=(const MultiAttachment&) = delete;

 private:
  CURLM* multi_;
  CURL* easy_;
};

}  // namespace

PreparedTransfer::PreparedTransfer(CURL* easy, const TransferRequest& request) : easy_(easy) {
  state_.max_response_bytes = request.max_response_bytes;
  state_.interrupt_check = request.interrupt_check;
  curl_easy_setopt(easy, CURLOPT_URL, request.url->c_str());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body->data());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body->size()));
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

TransferResult perform_transfer(PooledConnection& connection, const TransferRequest& request) {
  CURL* easy = connection.easy.get();
  PreparedTransfer transfer(easy, request);
  CURLcode final_code = CURLE_OK;
  bool cancelled = false;
  {
    MultiAttachment attachment(connection.multi.get(), easy);
    CURLM* multi = connection.multi.get();
    bool finished = false;
    while (!finished) {
      int running = 0;
      CURLMcode code = curl_multi_perform(multi, &running);
      if (code != CURLM_OK) throw TransportError(std::string("libcurl: ") + curl_multi_strerror(code));
      int queued = 0;
      while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
        if (message->msg == CURLMSG_DONE && message->easy_handle == easy) {
          final_code = message->data.result;
          finished = true;
        }
      }
      if (finished) break;
      // Interrupts are checked here, between polls (at most kPollIntervalMs apart), and never by aborting
      // from a progress callback: libcurl 7.88 loses a small allocation when a transfer is aborted that way
      // at an unlucky moment (LeakSanitizer caught it in the interrupt tests); removing the handle does not.
      if (transfer.interrupted()) {
        cancelled = true;
        final_code = CURLE_ABORTED_BY_CALLBACK;
        break;  // removing the handle mid-transfer closes its connection
      }
      code = curl_multi_poll(multi, nullptr, 0, kPollIntervalMs, nullptr);
      if (code != CURLM_OK) throw TransportError(std::string("libcurl: ") + curl_multi_strerror(code));
    }
  }
  TransferResult result = transfer.finish(final_code);
  if (cancelled) {
    result.cancelled = true;
    result.code = CURLE_ABORTED_BY_CALLBACK;
  }
  return result;
}

}  // namespace trunk::detail
