#pragma once
// The item types of the listings of operations.hpp, for bindings that take "a listing's items" from Python
// (the async listings and the windowed history hold Python objects) and must find the C++ type behind them.

#include <type_traits>

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

}  // namespace trunk::python
