// TestPager's prefetching: the next page is requested on a background thread while the caller works on the
// current one (see "Prefetching" in trunk/pager.hpp).
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>

#include "trunk/error.hpp"
#include "trunk/pager.hpp"

namespace trunk {

namespace {
/// How often a caller waiting for a prefetched page checks its interrupt_check.
constexpr std::chrono::milliseconds kWaitSlice{100};
}  // namespace

/// At most one fetch in flight, on its own thread; the thread is joined before the page is handed out, before
/// the next fetch starts, and on destruction.
class TestPager::Prefetcher {
 public:
  explicit Prefetcher(std::function<bool()> interrupt_check) : interrupt_check_(std::move(interrupt_check)) {}
  ~Prefetcher() { abandon(); }
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  /// Starts fetching `token` with `fetch` (which must stay valid until the page is taken or abandoned).
  void start(FetchPage* fetch, std::string token) {
    abandon();
    token_ = token;
    stop_ = std::stop_source();
    ready_ = false;
    page_.reset();
    error_ = nullptr;
    worker_ = std::thread([this, fetch, token = std::move(token), stop = stop_.get_token()] {
      // Cancelled by abandon() through `stop`, which the fetch hands to the transfer engine with the request:
      // the transfer stops within ~100 ms.
      std::optional<TestPage> page;
      std::exception_ptr error;
      try {
        page = (*fetch)(token, stop);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      page_ = std::move(page);
      error_ = std::move(error);
      ready_ = true;
      done_.notify_all();
    });
  }

  /// True when a fetch of `token` was started and not yet taken.
  bool holds(const std::string& token) const { return worker_.joinable() && token_ == token; }

  /// Waits for the started fetch and returns its page (or rethrows its error).
  TestPage take() {
    {
      std::unique_lock lock(mutex_);
      while (!ready_) {
        done_.wait_for(lock, kWaitSlice);
        if (ready_) break;
        if (interrupt_check_ && interrupt_check_()) {
          lock.unlock();
          abandon();
          throw CancelledError("pagination: cancelled by the caller");
        }
      }
    }
    worker_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    TestPage page = std::move(*page_);
    page_.reset();
    return page;
  }

  /// Cancels a fetch in flight and joins its thread (nothing left running afterwards).
  void abandon() noexcept {
    if (!worker_.joinable()) return;
    stop_.request_stop();
    worker_.join();
    page_.reset();
    error_ = nullptr;
  }

 private:
  std::function<bool()> interrupt_check_;
  std::thread worker_;
  std::string token_;
  std::stop_source stop_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool ready_ = false;
  std::optional<TestPage> page_;
  std::exception_ptr error_;
};

void TestPager::PrefetcherDeleter::operator()(Prefetcher* prefetcher) const noexcept { delete prefetcher; }

TestPager::TestPager(FetchPage fetch, std::string first_page_token, PrefetchOptions prefetch)
    : TestPager(std::move(fetch), std::move(first_page_token)) {
  if (prefetch.enabled) prefetcher_.reset(new Prefetcher(std::move(prefetch.interrupt_check)));
}

// The fetch function a prefetch thread calls lives in fetch_, and a move would move it from under that thread:
// moving first abandons the prefetch (the page will simply be requested again by the new owner).
TestPager::TestPager(TestPager&& other) noexcept { *this = std::move(other); }

TestPager& TestPager::operator=(TestPager&& other) noexcept {
  if (this == &other) return *this;
  if (prefetcher_) prefetcher_->abandon();
  if (other.prefetcher_) other.prefetcher_->abandon();
  fetch_ = std::move(other.fetch_);
  prefetcher_ = std::move(other.prefetcher_);
  prefetch_budget_ = other.prefetch_budget_;
  tests_returned_ = other.tests_returned_;
  next_token_ = std::move(other.next_token_);
  tokens_seen_ = std::move(other.tokens_seen_);
  done_ = other.done_;
  pages_fetched_ = other.pages_fetched_;
  current_ = std::move(other.current_);
  position_ = other.position_;
  return *this;
}

TestPager::~TestPager() = default;  // the Prefetcher's destructor abandons and joins

TestPage TestPager::fetch_next(const std::string& token) {
  if (prefetcher_ && prefetcher_->holds(token)) return prefetcher_->take();
  return fetch_(token, std::stop_token{});  // asked for now: only the caller's interrupt check can stop it
}

void TestPager::start_prefetch() {
  if (!prefetcher_ || done_) return;
  if (prefetch_budget_ && tests_returned_ >= *prefetch_budget_) return;  // the caller wants no more
  prefetcher_->start(&fetch_, next_token_);
}

}  // namespace trunk
