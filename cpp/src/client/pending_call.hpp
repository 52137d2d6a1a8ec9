#pragma once
// The std::future side of AsyncClient's callback calls: one promise, fulfilled by the completion callback.

#include <functional>
#include <future>
#include <memory>
#include <utility>

#include "trunk/async_client.hpp"

namespace trunk::detail {

/// A future and the callback that fulfils it (with the value, or the call's error).
template <typename T>
std::pair<std::future<T>, std::function<void(Result<T>)>> future_and_callback() {
  auto promise = std::make_shared<std::promise<T>>();
  std::future<T> future = promise->get_future();
  return {std::move(future), [promise](Result<T> result) {
            if (result.ok()) {
              promise->set_value(std::move(result).value());
            } else {
              promise->set_exception(result.error());
            }
          }};
}

}  // namespace trunk::detail
