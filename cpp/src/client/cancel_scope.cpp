#include "cancel_scope.hpp"

namespace trunk::detail {

namespace {
thread_local const std::atomic<bool>* current_flag = nullptr;
}  // namespace

CancelScope::CancelScope(const std::atomic<bool>* flag) noexcept : previous_(current_flag) { current_flag = flag; }
CancelScope::~CancelScope() { current_flag = previous_; }

bool cancelled_by_scope() noexcept {
  return current_flag != nullptr && current_flag->load(std::memory_order_relaxed);
}

}  // namespace trunk::detail
