#pragma once
// TestIterator: the Python face of trunk::TestPager (paging stays in C++).
//
// Lazy: nothing is fetched until the first item is asked for. Single use: iterating, .pages, to_list() and
// to_pandas() each consume it, and a second start raises ValueError("Iterator has already started"), as
// google-api-core's iterators do, so a silently empty second loop cannot hide a bug. max_results stops after
// that many tests without fetching another page. Every fetch runs with the GIL released; Ctrl-C ends it.
// The iterator owns a reference to its Client, so the Client lives as long as any iterator over it.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "trunk/client.hpp"
#include "trunk/pager.hpp"

namespace trunk::python {

class TestIterator {
 public:
  TestIterator(std::shared_ptr<Client> client, TestPager pager, std::optional<std::int64_t> max_results);
  /// Drops the pager with the GIL released: its prefetch thread may be waiting for the GIL (to log) and must
  /// be joined (test_iterator_lifetime.cpp).
  ~TestIterator();
  TestIterator(const TestIterator&) = delete;
  TestIterator& operator=(const TestIterator&) = delete;

  /// Marks the iterator as started; throws pybind11::value_error when it already was.
  void start();
  bool started() const noexcept { return started_; }

  /// The next test, or nullopt at the end (or once max_results tests were given). Releases the GIL to fetch.
  std::optional<TestCase> next_test();
  /// The next page, cut short when it would go past max_results; nullopt at the end.
  std::optional<TestPage> next_page();
  /// Every remaining test.
  std::vector<TestCase> drain();

 private:
  bool limit_reached() const noexcept { return max_results_ && yielded_ >= *max_results_; }
  /// Fetches pages until one holds an unread test; false at the end. Caller holds mutex_.
  bool fill_current();

  std::shared_ptr<Client> client_;  // the pager refers to it: keep it alive
  TestPager pager_;
  std::optional<std::int64_t> max_results_;
  std::int64_t yielded_ = 0;
  bool started_ = false;
  TestPage current_;
  std::size_t position_ = 0;
  std::mutex mutex_;  // two Python threads sharing one iterator must not walk the pager at once
};

}  // namespace trunk::python
