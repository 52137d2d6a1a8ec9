#pragma once
// trunk::sandbox::WebhookDelivery: one attempt to deliver a webhook message, as the sandbox logs it
// (Sandbox::webhook_deliveries). Apart from sandbox.hpp so that the webhook sender sees it without the Sandbox
// class; sandbox.hpp includes it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "trunk/time.hpp"

namespace trunk::sandbox {

/// One attempt to deliver one message to one endpoint (Sandbox::webhook_deliveries).
struct WebhookDelivery {
  std::string endpoint_id;
  std::string message_id;  ///< the svix-id: the same on every attempt of a message
  std::string event_type;
  std::int64_t pr_number = 0;  ///< the pull request of a merge queue event; 0 for other events
  int attempt = 1;             ///< 1 for the first try; retries count up; a duplicate counts on too
  int status = 0;              ///< the HTTP status answered; 0 when none came (refused, timed out)
  std::string error;           ///< why it failed without a status ("" otherwise)
  trunk::Timestamp at;         ///< the sandbox clock when it was sent
  std::chrono::microseconds latency{0};  ///< wall time from sending to the answer
  bool duplicate = false;      ///< an extra copy sent by FaultOptions::webhook_duplicate_rate
  std::optional<trunk::Timestamp> next_attempt;  ///< when the retry is due; nullopt: delivered, or given up
  bool succeeded() const noexcept { return status >= 200 && status < 300; }
};

}  // namespace trunk::sandbox
