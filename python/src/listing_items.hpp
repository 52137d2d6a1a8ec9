#pragma once
// The item types of the listings of operations.hpp, for bindings that take "a listing's items" from Python
// (the async listings and the windowed history hold Python objects) and must find the C++ type behind them; and
// what a listing's page tells a progress bar, in one place for the sync and the async listings.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "trunk/operations.hpp"
#include "trunk/pager.hpp"

namespace trunk::python {

/// Calls f(std::type_identity<Item>{}) for the item type of every listing of operations.hpp (an item type
/// shared by several listings comes once per listing).
template <typename F>
void for_each_listing_item(F&& f) {
  for_each_operation([&](auto operation) {
    using Op = decltype(operation);
    if constexpr (requires { typename PageTraits<typename Op::Response>::Item; }) {
      f(std::type_identity<typename PageTraits<typename Op::Response>::Item>{});
    }
  });
}

/// Appends `items` to `list` as Python objects, moved out of their page (their strings and lists change owner, none
/// is copied). Needs the GIL.
template <class Item>
void append_moved(pybind11::list& list, std::span<Item> items) {
  for (Item& item : items) list.append(pybind11::cast(std::move(item)));
}

/// What a listing's page tells a progress bar, as its on_page(count, total_rows or None, last) takes it: its item
/// count, the listing's total_rows if the page says it, and whether it is the last page (is_last_page's rule).
/// Needs the GIL.
template <class Page>
pybind11::tuple page_facts(Page& page) {
  pybind11::object total = pybind11::none();
  if constexpr (requires { page.page.total_rows; }) {
    if (page.page.total_rows) total = pybind11::int_(*page.page.total_rows);
  }
  return pybind11::make_tuple(static_cast<std::int64_t>(PageTraits<Page>::items(page).size()), total,
                              is_last_page(page));
}

}  // namespace trunk::python
