#pragma once
// The sandbox's webhook sender: the endpoints registered, the messages waiting to be delivered, and one thread
// that delivers them as Svix does (docs/webhooks.md, "The sandbox sends them"):
//  - every event gets a message id (msg_...), the same on every attempt; each attempt is signed afresh with
//    the endpoint's secret and the wall clock's time (svix-timestamp is what receivers check against their
//    own clock, so it cannot be the sandbox clock);
//  - an answer 200-299 within kDeliveryTimeout delivers it; anything else (another status, a refused
//    connection, a timeout) is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h of the sandbox clock:
//    8 attempts in all, then the message is given up for that endpoint;
//  - an attempt is due when its time on the sandbox clock has come: with a virtual clock, advance() moves
//    time step by step to each due attempt and waits (flush) until what is due has been sent, so a test sees
//    every delivery of the period it advanced over, in order;
//  - deliveries of one pull request keep their order (FaultOptions' delay and jitter included) unless the
//    webhook_reorder fault lets its jitter reorder them; different pull requests' may interleave when jitter is
//    set.
// publish() only queues (the merge queues call it while holding their lock); the sending happens on the
// sender's own thread, holding no lock of the sandbox, so a receiver may call the sandbox's API while it
// handles a delivery.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "random.hpp"
#include "trunk/sandbox/fault_options.hpp"
#include "trunk/sandbox/webhook_delivery.hpp"
#include "trunk/sandbox/webhook_endpoints.hpp"
#include "webhook_payloads.hpp"

namespace trunk::sandbox {

/// How long an endpoint may take to answer (Svix's hosted service: 15 s).
inline constexpr std::chrono::seconds kDeliveryTimeout{15};
/// Svix's retry schedule: the wait after each failed attempt (attempt 1 is immediate).
inline constexpr std::chrono::seconds kRetryDelays[] = {std::chrono::seconds(5),    std::chrono::minutes(5),
                                                        std::chrono::minutes(30),   std::chrono::hours(2),
                                                        std::chrono::hours(5),      std::chrono::hours(10),
                                                        std::chrono::hours(10)};
inline constexpr int kMaxAttempts = static_cast<int>(std::size(kRetryDelays)) + 1;
/// The delivery log keeps the last this many attempts.
inline constexpr std::size_t kMaxDeliveryLog = 100'000;

class WebhookSender {
 public:
  using Clock = std::function<trunk::Timestamp()>;

  /// `clock`: the sandbox clock; `seed` makes message ids and the duplicate dice reproducible.
  WebhookSender(Clock clock, std::uint64_t seed);
  ~WebhookSender();  ///< stops the thread; what is still pending is dropped
  WebhookSender(const WebhookSender&) = delete;
  WebhookSender& operator=(const WebhookSender&) = delete;

  /// Validates and registers; throws trunk::ValidationError naming url, secret or events.
  WebhookEndpoint add(const WebhookEndpointOptions& options);
  bool remove(const std::string& id);
  std::vector<WebhookEndpoint> endpoints() const;
  /// Whether any endpoint is registered (so the queues can skip building events nobody receives).
  bool has_endpoints() const;
  std::vector<WebhookDelivery> deliveries() const;
  void set_faults(const FaultOptions& faults);

  /// Queues the events for every endpoint subscribed to their types. Cheap; never sends.
  void publish(std::vector<OutgoingEvent>&& events);
  /// The sandbox time of the earliest pending attempt, if any.
  std::optional<trunk::Timestamp> next_due() const;
  /// Waits until nothing due at the clock's now is left unsent (the clock may just have moved).
  void flush();
  /// While held, nothing is sent: advance() holds the sender while the queues publish a step's events, so
  /// they go out in the order they happened (whatever the queue they came from) and the dice fall the same
  /// way on every run. Requests' own events (a submission over HTTP) go out at once, the sender not held.
  void hold();
  void release();
  /// hold() for a scope.
  class Hold {
   public:
    explicit Hold(WebhookSender& sender) : sender_(sender) { sender_.hold(); }
    ~Hold() { sender_.release(); }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    WebhookSender& sender_;
  };

 private:
  struct Message {
    std::string id, type, body;
    std::int64_t pr_number = 0;
  };
  struct Attempt {
    std::shared_ptr<const Message> message;
    std::string endpoint_id;
    int number = 1;
    bool duplicate = false;
  };
  struct Registered {
    WebhookEndpoint endpoint;
  };
  using DueKey = std::pair<trunk::Timestamp, std::uint64_t>;  // (due on the sandbox clock, sequence)

  void run();
  bool due_now(trunk::Timestamp now) const;  // caller holds mutex_; false while held
  /// Sends one attempt (no lock held) and returns its record.
  WebhookDelivery send(const Attempt& attempt, const WebhookEndpoint& endpoint);
  void schedule(trunk::Timestamp due, Attempt attempt);  // caller holds mutex_

  Clock clock_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;  // the worker: something was published, the clock moved, or stop
  std::condition_variable idle_;  // flush(): an attempt finished
  std::map<std::string, Registered> endpoints_;
  std::map<DueKey, Attempt> pending_;
  std::map<std::string, trunk::Timestamp> last_due_;  // per ordering key: keeps one pull request's order
  std::deque<WebhookDelivery> log_;
  FaultOptions faults_;
  Random ids_;
  Random jitter_dice_;     // drawn as events are published
  Random duplicate_dice_;  // drawn as deliveries succeed: apart, so one fault's draws never shift the other's
  std::uint64_t sequence_ = 0;
  int in_flight_ = 0;
  int holds_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace trunk::sandbox
