#pragma once
// Results and options of the client's bulk operations (Client::get_test_details_many).
//
// A bulk call validates every input first (one ValidationError listing every bad input; nothing is sent),
// then runs the requests concurrently through the client's one transfer engine (the same as for a single
// call): at most `concurrency` in flight over one libcurl multi handle, each on a kept-alive connection, each
// with the same retry policy as the single call (429/5xx and network failures retried with backoff,
// Retry-After honoured, overall deadline per input), spaced by ClientOptions::max_requests_per_second. One
// input failing does not stop the others: every input gets a BulkResult, in input order. Only cancellation
// (ClientOptions::interrupt_check) ends the whole call, with CancelledError.

#include <cstddef>
#include <exception>
#include <functional>
#include <optional>

#include "trunk/option_rows.hpp"

namespace trunk {

/// Most requests a bulk call keeps in flight at once.
inline constexpr std::size_t kMaxBulkConcurrency = 256;

// Option rows (option_rows.hpp): the Python keywords of the bulk calls, their check and stubs come from them.
#define TRUNK_BULK_OPTIONS(X)                                                                                        \
  X(std::size_t, concurrency, "concurrency", {8}, (options::OptionRule{.min = 1, .max = kMaxBulkConcurrency}),     \
    options::kNoVariables, "Requests in flight at once, over kept-alive connections.")

struct BulkOptions {
  /// concurrency: 1..kMaxBulkConcurrency (ValidationError naming "concurrency" otherwise).
  TRUNK_OPTION_MEMBERS(TRUNK_BULK_OPTIONS)
  /// Called each time an input ends (with its answer or its error, after retries): how many inputs have ended
  /// so far and how many there are, so a progress bar can follow a long call. Client calls it on the calling
  /// thread, AsyncClient on its engine thread; never after the call's result is delivered, and not for inputs
  /// ended by cancellation. Empty: nothing is called (and nothing counted). Must not throw. A callable: not a row.
  std::function<void(std::size_t ended, std::size_t total)> on_progress{};  // {}: no -Wextra warning for BulkOptions{8}
};
TRUNK_DESCRIBE_OPTIONS(BulkOptions, TRUNK_BULK_OPTIONS)

/// The outcome of one input of a bulk call: its value, or the trunk::Error that ended it after retries.
template <typename T>
struct BulkResult {
  std::optional<T> value;
  std::exception_ptr error;  ///< set exactly when value is empty

  bool ok() const noexcept { return value.has_value(); }
  /// The value; rethrows the error when there is none.
  const T& get() const {
    if (!value) std::rethrow_exception(error);
    return *value;
  }
};

}  // namespace trunk
