#include "webhook_sender.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "system_random.hpp"
#include "trunk/error.hpp"
#include "trunk/version.hpp"
#include "trunk/webhook_events.hpp"

namespace trunk::sandbox {

std::string url_without_credentials(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const std::size_t authority = scheme_end + 3;
  const std::size_t authority_end = std::min(url.find_first_of("/?#", authority), url.size());
  const std::size_t at = url.substr(0, authority_end).rfind('@');
  if (at == std::string_view::npos || at < authority) return std::string(url);
  return std::string(url.substr(0, authority)) + "***" + std::string(url.substr(at));
}

namespace {

/// What Svix takes as an endpoint's key: 24 to 75 bytes (it makes 24).
constexpr std::size_t kMinSecretBytes = 24;
constexpr std::size_t kMaxSecretBytes = 75;

/// Random ids shaped as Svix's: a prefix and 27 base-62 characters.
std::string svix_id(std::string_view prefix, Random& random) {
  static constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string id(prefix);
  for (int i = 0; i < 27; ++i) id += kAlphabet[random.next() % 62];
  return id;
}

/// Svix's URL rule: an absolute http or https URL with a host and, if any, a port from 1 to 65535, no white space.
std::optional<std::string> url_problem(const std::string& url) {
  constexpr const char* kRule = "must be an http:// or https:// URL with a host (and a port from 1 to 65535)";
  if (!url.starts_with("http://") && !url.starts_with("https://")) return kRule;
  if (url.find_first_of(" \t\r\n") != std::string::npos) return "must not contain white space";
  CURLU* parsed = curl_url();
  if (parsed == nullptr) return kRule;
  const bool valid = curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK;
  char* host = nullptr;
  const bool has_host = valid && curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK && host && *host;
  curl_free(host);
  char* port = nullptr;
  const bool port_zero = valid && curl_url_get(parsed, CURLUPART_PORT, &port, 0) == CURLUE_OK && port &&
                         std::string_view(port) == "0";
  curl_free(port);
  curl_url_cleanup(parsed);
  if (!valid || !has_host || port_zero) return kRule;
  return std::nullopt;
}

bool known_event_type(std::string_view type) {
  const auto& wire = schema::Enum<trunk::WebhookEventType>::wire;
  return std::find(wire.begin(), wire.end(), type) != wire.end();
}

std::string known_event_types() {
  std::string list;
  for (const std::string_view type : schema::Enum<trunk::WebhookEventType>::wire) {
    list += (list.empty() ? "" : ", ") + std::string(type);
  }
  return list;
}

std::size_t ignore_body(char*, std::size_t size, std::size_t count, void*) { return size * count; }

struct CurlDeleter {
  void operator()(CURL* curl) const noexcept { curl_easy_cleanup(curl); }
};
struct HeaderListDeleter {
  void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};

}  // namespace

WebhookSender::WebhookSender(Clock clock, std::uint64_t seed)
    : clock_(std::move(clock)),
      // Svix's ids are unique: drawn from the kernel, not the seed, so that two sandboxes of one seed (two runs of a
      // test) never send the same svix-id for different events, and a Deduplicator kept across runs drops none.
      // The payloads stay a function of the seed.
      ids_(trunk::detail::system_random_u64()),
      jitter_dice_(mix64(seed + 0x6A697474ULL)),
      duplicate_dice_(mix64(seed + 0x64757065ULL)) {
  worker_ = std::thread([this] { run(); });
}

WebhookSender::~WebhookSender() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  idle_.notify_all();
  worker_.join();
}

WebhookEndpoint WebhookSender::add(const WebhookEndpointOptions& options) {
  // Svix's rules for an endpoint (docs/webhooks.md#registering-endpoints): what it refuses, the sandbox refuses.
  std::vector<trunk::Violation> problems;
  if (const std::optional<std::string> rule = url_problem(options.url)) {
    problems.push_back({"url", "\"" + url_without_credentials(options.url) + "\"", *rule});
  }
  if (options.events && options.events->empty()) {
    problems.push_back({"events", "[]", "must name at least one event type; leave it out for every type"});
  }
  const std::vector<std::string> no_events;
  const std::vector<std::string>& events = options.events ? *options.events : no_events;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (!known_event_type(events[i])) {
      problems.push_back({"events[" + std::to_string(i) + "]", "\"" + events[i] + "\"",
                          "must be one of " + known_event_types()});
    }
  }
  std::optional<trunk::WebhookSecret> secret;
  if (options.secret) {
    bool fits = options.secret->starts_with("whsec_");
    if (fits) {
      try {
        secret.emplace(*options.secret);
        fits = secret->key_size() >= kMinSecretBytes && secret->key_size() <= kMaxSecretBytes;
      } catch (const trunk::WebhookVerificationError&) {
        fits = false;
      }
    }
    if (!fits) {
      secret.reset();
      // The secret's text is never echoed.
      problems.push_back({"secret", "<redacted>", "must be \"whsec_\" followed by the base64 of 24 to 75 bytes"});
    }
  }
  if (!problems.empty()) throw trunk::ValidationError(std::move(problems));
  std::lock_guard lock(mutex_);
  WebhookEndpoint endpoint{svix_id("ep_", ids_), options.url,
                           secret ? std::move(*secret) : trunk::WebhookSecret::generate(), events};
  endpoints_.emplace(endpoint.id, Registered{endpoint});
  return endpoint;
}

bool WebhookSender::remove(const std::string& id) {
  std::lock_guard lock(mutex_);
  if (endpoints_.erase(id) == 0) return false;
  std::erase_if(pending_, [&](const auto& entry) { return entry.second.endpoint_id == id; });
  idle_.notify_all();
  return true;
}

std::vector<WebhookEndpoint> WebhookSender::endpoints() const {
  std::lock_guard lock(mutex_);
  std::vector<WebhookEndpoint> out;
  for (const auto& [id, registered] : endpoints_) out.push_back(registered.endpoint);
  return out;
}

bool WebhookSender::has_endpoints() const {
  std::lock_guard lock(mutex_);
  return !endpoints_.empty();
}

std::vector<WebhookDelivery> WebhookSender::deliveries() const {
  std::lock_guard lock(mutex_);
  return {log_.begin(), log_.end()};
}

void WebhookSender::set_faults(const FaultOptions& faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

void WebhookSender::schedule(trunk::Timestamp due, Attempt attempt) {
  pending_.emplace(DueKey{due, sequence_++}, std::move(attempt));
}

void WebhookSender::publish(std::vector<OutgoingEvent>&& events) {
  if (events.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (OutgoingEvent& event : events) {
      auto message = std::make_shared<Message>(Message{svix_id("msg_", ids_), std::move(event.type),
                                                       std::move(event.body), event.pr_number});
      auto due = event.at + std::chrono::duration_cast<std::chrono::microseconds>(faults_.webhook_delay);
      if (faults_.webhook_jitter.count() > 0) {
        const auto jitter_us = std::chrono::duration_cast<std::chrono::microseconds>(faults_.webhook_jitter).count();
        due += std::chrono::microseconds(jitter_dice_.between(0, jitter_us));
      }
      if (!faults_.webhook_reorder) {
        trunk::Timestamp& last = last_due_[event.ordering_key];
        due = std::max(due, last);  // never before an earlier event of the same pull request
        last = due;
      }
      for (const auto& [id, registered] : endpoints_) {
        const auto& types = registered.endpoint.events;
        if (!types.empty() && std::find(types.begin(), types.end(), message->type) == types.end()) continue;
        schedule(due, Attempt{message, id, 1, false});
      }
    }
    // The order keys of pull requests long concluded are not needed: keep the map bounded.
    if (last_due_.size() > 200'000) last_due_.clear();
  }
  wake_.notify_all();
}

std::optional<trunk::Timestamp> WebhookSender::next_due() const {
  std::lock_guard lock(mutex_);
  if (pending_.empty()) return std::nullopt;
  return pending_.begin()->first.first;
}

bool WebhookSender::due_now(trunk::Timestamp now) const {
  return holds_ == 0 && !pending_.empty() && pending_.begin()->first.first <= now;
}

void WebhookSender::hold() {
  std::lock_guard lock(mutex_);
  ++holds_;
}

void WebhookSender::release() {
  {
    std::lock_guard lock(mutex_);
    --holds_;
  }
  wake_.notify_all();
}

void WebhookSender::flush() {
  wake_.notify_all();
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return stopping_ || (in_flight_ == 0 && !due_now(clock_())); });
}

void WebhookSender::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const trunk::Timestamp now = clock_();
    if (!due_now(now)) {
      idle_.notify_all();
      if (pending_.empty()) {
        wake_.wait(lock);
      } else {
        // A real clock reaches the next attempt by itself; a virtual one when advance() wakes this thread.
        const auto until_due = pending_.begin()->first.first - now;
        wake_.wait_for(lock, std::min<std::chrono::microseconds>(until_due, std::chrono::milliseconds(250)));
      }
      continue;
    }
    auto first = pending_.begin();
    Attempt attempt = std::move(first->second);
    pending_.erase(first);
    const auto endpoint = endpoints_.find(attempt.endpoint_id);
    if (endpoint == endpoints_.end()) continue;  // removed meanwhile
    const WebhookEndpoint target = endpoint->second.endpoint;
    ++in_flight_;
    lock.unlock();
    WebhookDelivery record = send(attempt, target);
    lock.lock();
    --in_flight_;
    const trunk::Timestamp after = clock_();
    if (record.succeeded()) {
      if (!attempt.duplicate && faults_.webhook_duplicate_rate > 0 && duplicate_dice_.chance(faults_.webhook_duplicate_rate)) {
        schedule(after, Attempt{attempt.message, attempt.endpoint_id, attempt.number + 1, true});
      }
    } else if (attempt.number < kMaxAttempts) {
      const auto due = after + std::chrono::duration_cast<std::chrono::microseconds>(kRetryDelays[attempt.number - 1]);
      record.next_attempt = due;
      schedule(due, Attempt{attempt.message, attempt.endpoint_id, attempt.number + 1, attempt.duplicate});
    }
    log_.push_back(std::move(record));
    while (log_.size() > kMaxDeliveryLog) log_.pop_front();
    idle_.notify_all();
  }
  idle_.notify_all();
}

WebhookDelivery WebhookSender::send(const Attempt& attempt, const WebhookEndpoint& endpoint) {
  // One connection per endpoint, kept alive between deliveries (only this thread sends).
  thread_local std::map<std::string, std::unique_ptr<CURL, CurlDeleter>> connections;
  auto& curl = connections[endpoint.id];
  if (!curl) curl.reset(curl_easy_init());

  const Message& message = *attempt.message;
  WebhookDelivery record;
  record.endpoint_id = endpoint.id;
  record.message_id = message.id;
  record.event_type = message.type;
  record.pr_number = message.pr_number;
  record.attempt = attempt.number;
  record.duplicate = attempt.duplicate;
  record.at = clock_();
  if (!curl) {
    record.error = "could not create a connection";
    return record;
  }
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  const std::string signature = trunk::sign_webhook(endpoint.secret, message.id, seconds, message.body);
  std::unique_ptr<curl_slist, HeaderListDeleter> headers;
  for (const std::string& header :
       {std::string("Content-Type: application/json"), "svix-id: " + message.id,
        "svix-timestamp: " + std::to_string(seconds), "svix-signature: " + signature,
        std::string("User-Agent: trunk-sandbox-webhooks/") + trunk::kVersion}) {
    curl_slist* grown = curl_slist_append(headers.get(), header.c_str());
    if (grown == nullptr) {
      record.error = "out of memory";
      return record;
    }
    static_cast<void>(headers.release());
    headers.reset(grown);
  }
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, endpoint.url.c_str());
  curl_easy_setopt(handle, CURLOPT_POST, 1L);
  curl_easy_setopt(handle, CURLOPT_POSTFIELDS, message.body.data());
  curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(message.body.size()));
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &ignore_body);
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(std::chrono::milliseconds(kDeliveryTimeout).count()));
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect is a failure, as for Svix
  curl_easy_setopt(handle, CURLOPT_PROXY, "");          // a local receiver is reached directly
  const auto started = std::chrono::steady_clock::now();
  const CURLcode result = curl_easy_perform(handle);
  record.latency = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, nullptr);
  if (result != CURLE_OK) {
    record.error = curl_easy_strerror(result);
    curl.reset();  // a fresh connection for the next attempt
    return record;
  }
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  record.status = static_cast<int>(status);
  return record;
}

}  // namespace trunk::sandbox
