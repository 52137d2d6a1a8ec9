#pragma once
// A per-thread cancellation flag for work the caller no longer wants, such as a page prefetched by a pager
// that is destroyed before it is read (pager_prefetch.cpp). While a CancelScope is alive on a thread, the
// client's calls made from that thread treat `*flag == true` like ClientOptions::interrupt_check returning
// true: the transfer or the wait between retries stops within about 100 ms with CancelledError.

#include <atomic>

namespace trunk::detail {

class CancelScope {
 public:
  explicit CancelScope(const std::atomic<bool>* flag) noexcept;
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

/// True when a CancelScope of the calling thread has its flag set.
bool cancelled_by_scope() noexcept;

}  // namespace trunk::detail
