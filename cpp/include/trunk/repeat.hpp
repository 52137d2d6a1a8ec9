#pragma once
// Whether sending a request twice can do harm: a property of its operation (operations.hpp), carried by every
// request the client sends, and the one input of the retry rule that differs between operations.

namespace trunk {

enum class Repeat {
  /// Reads, and writes whose second application changes nothing more (updateQueue, cancelPullRequest,
  /// deleteQueue): retried after any retryable failure.
  safe,
  /// Writes that may act twice (submitPullRequest, restartTestsOnPullRequest, createQueue,
  /// setImpactedTargets): retried only when the failed attempt provably never reached the service (could not
  /// connect; or 429 / 503, answered before processing). After a timeout, a connection lost after sending, a
  /// truncated answer or a 500/502/504, the write may have happened: the error goes to the caller, who can read
  /// the state back (docs/reference/service.md#retries).
  not_safe,
};

}  // namespace trunk
