#pragma once
// TestPager: lazy pagination over a listing (list-failing-tests or list-unhealthy-tests).
//
//   for (const trunk::TestCase& test : client.failing_tests(request)) { ... }   // every test of every page
//   auto pager = client.unhealthy_tests(request);
//   while (auto page = pager.next_page()) { ... }                              // page by page
//
// A pager is single use: it walks forward once, starting from request.page_query.page_token. It stops after
// the page whose next_page_token is "" (or absent), and throws PaginationError when the server hands back a
// token it already gave (or the one the walk started from), so a misbehaving server cannot loop it forever.
// Pages are fetched only when needed. Errors of a fetch (ApiError, TransportError...) propagate from
// next_page() or from the iterator's operator++ / begin().
//
// Lifetime: a pager made by a Client refers to that Client, which must outlive it. A pager is not
// thread-safe (the Client is): use one pager per thread.
//
// Prefetching (ClientOptions::prefetch_pages, on by default for the Client's pagers): as soon as a page is
// handed out, the next one is requested on a background thread, so the network wait overlaps the caller's
// work on the current page. Nothing changes in what the caller sees: pages come in order, the repeated-token
// check runs before the next page is requested, and an error of the prefetched page surfaces from the
// next_page() / operator++ that would have fetched it. A pager destroyed (or a walk abandoned) with a
// prefetch in flight cancels that transfer and joins its thread before the destructor returns (within
// about 100 ms); no thread outlives the pager. While waiting for a prefetched page, next_page() polls the
// interrupt check every 100 ms (CancelledError).

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <unordered_set>

#include "trunk/page.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"

namespace trunk {

class TestPager {
 public:
  /// Fetches the page that `page_token` names ("" = the first page). `stop` is requested when the pager no
  /// longer wants a page it prefetched; the fetch should then end soon (CancelledError).
  using FetchPage = std::function<TestPage(const std::string& page_token, std::stop_token stop)>;

  /// How a pager fetches ahead (see "Prefetching" above).
  struct PrefetchOptions {
    bool enabled = false;
    /// Polled every 100 ms while next_page() waits for a prefetched page; true -> CancelledError.
    std::function<bool()> interrupt_check;
  };

  /// Usually made by Client::failing_tests / Client::unhealthy_tests.
  TestPager(FetchPage fetch, std::string first_page_token);
  TestPager(FetchPage fetch, std::string first_page_token, PrefetchOptions prefetch);
  /// Cancels and joins a prefetch in flight.
  ~TestPager();

  TestPager(TestPager&&) noexcept;
  TestPager& operator=(TestPager&&) noexcept;
  TestPager(const TestPager&) = delete;
  TestPager& operator=(const TestPager&) = delete;

  /// Fetches and returns the next page; nullopt once the last page has been returned.
  std::optional<TestPage> next_page();

  /// The caller will read at most `max_tests` tests in all: once the pages returned hold that many, no further
  /// page is prefetched (so a walk cut short by a limit costs no extra request).
  void limit_prefetch(std::size_t max_tests) noexcept { prefetch_budget_ = max_tests; }

  /// True once the last page has been fetched (next_page() would return nullopt).
  bool done() const noexcept { return done_; }
  /// Number of pages fetched so far.
  std::size_t pages_fetched() const noexcept { return pages_fetched_; }

  /// Input iterator over every TestCase of every remaining page. Dereferencing gives a reference into the
  /// current page, valid until the iterator is incremented.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::input_iterator_tag;
    using value_type = TestCase;
    using difference_type = std::ptrdiff_t;
    using reference = const TestCase&;
    using pointer = const TestCase*;

    iterator() = default;
    reference operator*() const;
    pointer operator->() const { return &**this; }
    iterator& operator++();
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept {
      return it.pager_ == nullptr;
    }

   private:
    friend class TestPager;
    explicit iterator(TestPager* pager) : pager_(pager) {}
    TestPager* pager_ = nullptr;  // nullptr = at the end
  };

  /// Fetches the first page when needed. Call once: the pager is single use.
  iterator begin();
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  /// Makes the current page hold at least one unread test, fetching (and skipping empty) pages as needed;
  /// false when the listing is exhausted.
  bool fill_current();

  /// fetch_(token), or the page a prefetch already requested for `token` (pager_prefetch.cpp).
  TestPage fetch_next(const std::string& token);
  /// With prefetching on and pages left, requests the page next_token_ names in the background.
  void start_prefetch();

  class Prefetcher;
  struct PrefetcherDeleter {
    void operator()(Prefetcher* prefetcher) const noexcept;
  };

  FetchPage fetch_;
  std::unique_ptr<Prefetcher, PrefetcherDeleter> prefetcher_;  // null when prefetching is off
  std::optional<std::size_t> prefetch_budget_;  // see limit_prefetch()
  std::size_t tests_returned_ = 0;               // tests in the pages next_page() returned
  std::string next_token_;
  std::unordered_set<std::string> tokens_seen_;
  bool done_ = false;
  std::size_t pages_fetched_ = 0;
  TestPage current_;
  std::size_t position_ = 0;  // index of the next unread test in current_.tests
};

}  // namespace trunk
