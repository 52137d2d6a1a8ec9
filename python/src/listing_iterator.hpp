#pragma once
// ListingIterator<Page>: the Python face of trunk::Pager<Page>, one template for every listing; bind_pager.cpp
// binds it once per listing under that listing's name (TestIterator for the test listings).
//
// The pager is the listing's one cursor (trunk/pager.hpp): it owns max_results, the rest of a half-read page, the
// counts and the progress hook, so this class only adds what Python needs - the GIL released around every read,
// a lock for threads sharing the iterator, and a reference to the Client. The async listings (bind_async.cpp)
// wrap the same pager, so sync and async cannot disagree.
//
// Lazy: nothing is fetched until the first item is asked for. An iterator as Python's protocol has it: iter()
// gives the iterator itself, and iterating, .pages, to_list() and to_pandas() each continue where the previous
// one stopped (`first = next(it)` then `for t in it:` sees the rest), so a finished listing yields nothing more,
// as a generator does. Every fetch runs with the GIL released; Ctrl-C ends it.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "interrupt.hpp"
#include "listing_items.hpp"
#include "trunk/client.hpp"
#include "trunk/pager.hpp"

namespace trunk::python {

template <class Page>
class ListingIterator {
 public:
  using Traits = PageTraits<Page>;
  using Item = typename Traits::Item;

  /// `query`: the call that made it, as its repr shows it (iter_failing_tests(repo=..., ...)); never the token,
  /// which no request holds. `pager` has its max_results and progress hook already (apply_listing_keywords).
  ListingIterator(std::shared_ptr<Client> client, Pager<Page> pager, std::string query)
      : client_(std::move(client)), pager_(std::move(pager)), query_(std::move(query)) {}

  /// Drops the pager with the GIL released (release_pager_without_gil).
  ~ListingIterator() { release_pager_without_gil(pager_); }
  ListingIterator(const ListingIterator&) = delete;
  ListingIterator& operator=(const ListingIterator&) = delete;

  /// Marks the iterator as started (its repr says so); starting again continues where it is.
  void start() noexcept { started_ = true; }
  bool started() const noexcept { return started_; }
  /// What has been fetched and given out so far, read without fetching or locking (a notebook displays it while
  /// another thread may be paging).
  ListingCounts counts() const noexcept { return pager_.counts(); }
  const std::string& query() const noexcept { return query_; }

  /// The next item, or nullopt at the end (or once max_results items were given). Releases the GIL to fetch.
  std::optional<Item> next_item() {
    // Fast path, GIL held: the page in hand still has an item. try_lock, never lock: a thread that holds mutex_
    // may be fetching without the GIL and need it back, so waiting here with the GIL could deadlock.
    if (mutex_.try_lock()) {
      std::lock_guard lock(mutex_, std::adopt_lock);
      if (pager_.unread() > 0) return pager_.take_item();
      if (pager_.finished()) return std::nullopt;
    }
    // Slow path: a page must be fetched (or another thread is fetching); wait without the GIL.
    return call_without_gil([&] {
      std::lock_guard lock(mutex_);
      return pager_.take_item();
    });
  }

  /// The next page (the rest of a half-read one first), cut at max_results; nullopt at the end.
  std::optional<Page> next_page() {
    return call_without_gil([&] {
      std::lock_guard lock(mutex_);
      return pager_.next_page();
    });
  }

  /// Hands every remaining item to sink(std::span<Item>) a page at a time, with the GIL released (Pager::drain).
  template <typename Sink>
  void drain_pages(Sink&& sink) {
    call_without_gil([&] {
      std::lock_guard lock(mutex_);
      pager_.drain(sink);
    });
  }

  /// Every remaining item as a Python list. Each page's items become Python objects as the page is read (the GIL
  /// taken once per page), so they are made while the next page is on its way, not all after the last one.
  pybind11::list drain_to_list() {
    pybind11::list all;
    drain_pages([&](std::span<Item> page) {
      pybind11::gil_scoped_acquire gil;
      append_moved(all, page);
    });
    return all;
  }

  /// Every remaining item.
  std::vector<Item> drain() {
    std::vector<Item> all;
    drain_pages([&](std::span<Item> page) {
      if (all.empty()) all.reserve(expected_remaining(page.size()));
      all.insert(all.end(), std::make_move_iterator(page.begin()), std::make_move_iterator(page.end()));
    });
    return all;
  }

 private:
  /// How many items a drain that starts with a page of `first_page` items should expect: the total less what was
  /// given out before, within max_results. Only a hint for reserving, so bounded: a total that is wrong must not
  /// make a huge allocation.
  std::size_t expected_remaining(std::size_t first_page) const {
    constexpr std::size_t kMostReserved = std::size_t{1} << 20;
    const ListingCounts counts = pager_.counts();
    std::size_t expected = first_page;
    if (counts.total && *counts.total > 0 && static_cast<std::size_t>(*counts.total) > counts.given) {
      expected = static_cast<std::size_t>(*counts.total) - counts.given;
    }
    if (const auto budget = pager_.max_results(); budget && *budget > counts.given) {
      expected = std::min(expected, *budget - counts.given);
    }
    return std::clamp(expected, first_page, std::max(kMostReserved, first_page));
  }

  std::shared_ptr<Client> client_;  // the pager refers to it: keep it alive
  Pager<Page> pager_;
  std::string query_;
  bool started_ = false;
  std::mutex mutex_;  // two Python threads sharing one iterator must not walk the pager at once
};

/// The test listings' iterator, bound as _core.TestIterator.
using TestIterator = ListingIterator<TestPage>;

}  // namespace trunk::python
