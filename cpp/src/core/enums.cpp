#include "trunk/enums.hpp"

#include <array>
#include <cstddef>

namespace trunk {

namespace {

// One table per enumeration, indexed by the enumerator's value (declaration order in enums.hpp).
constexpr std::array<std::string_view, 4> kQueueState = {"running", "paused", "draining", "switching_modes"};
constexpr std::array<std::string_view, 2> kQueueMode = {"single", "parallel"};
constexpr std::array<std::string_view, 2> kDirectMergeMode = {"off", "always"};
constexpr std::array<std::string_view, 2> kOptimizationMode = {"off", "bisection_skip_redundant_tests"};
constexpr std::array<std::string_view, 3> kMergeMethod = {"merge_commit", "squash", "rebase"};
constexpr std::array<std::string_view, 2> kHealthStatus = {"FLAKY", "BROKEN"};

/// "" for a value outside the table (only reachable through a cast), so callers can report it.
template <typename E, std::size_t N>
std::string_view lookup(const std::array<std::string_view, N>& table, E value) noexcept {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? table[index] : std::string_view{};
}

template <typename E, std::size_t N>
std::optional<E> find(const std::array<std::string_view, N>& table, std::string_view text) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i] == text) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_wire(QueueState v) noexcept { return lookup(kQueueState, v); }
std::string_view to_wire(QueueMode v) noexcept { return lookup(kQueueMode, v); }
std::string_view to_wire(DirectMergeMode v) noexcept { return lookup(kDirectMergeMode, v); }
std::string_view to_wire(OptimizationMode v) noexcept { return lookup(kOptimizationMode, v); }
std::string_view to_wire(MergeMethod v) noexcept { return lookup(kMergeMethod, v); }
std::string_view to_wire(HealthStatus v) noexcept { return lookup(kHealthStatus, v); }

template <>
std::optional<QueueState> enum_from_wire<QueueState>(std::string_view text) noexcept {
  return find<QueueState>(kQueueState, text);
}
template <>
std::optional<QueueMode> enum_from_wire<QueueMode>(std::string_view text) noexcept {
  return find<QueueMode>(kQueueMode, text);
}
template <>
std::optional<DirectMergeMode> enum_from_wire<DirectMergeMode>(std::string_view text) noexcept {
  return find<DirectMergeMode>(kDirectMergeMode, text);
}
template <>
std::optional<OptimizationMode> enum_from_wire<OptimizationMode>(std::string_view text) noexcept {
  return find<OptimizationMode>(kOptimizationMode, text);
}
template <>
std::optional<MergeMethod> enum_from_wire<MergeMethod>(std::string_view text) noexcept {
  return find<MergeMethod>(kMergeMethod, text);
}
template <>
std::optional<HealthStatus> enum_from_wire<HealthStatus>(std::string_view text) noexcept {
  return find<HealthStatus>(kHealthStatus, text);
}

template <>
std::span<const std::string_view> enum_wire_values<QueueState>() noexcept {
  return kQueueState;
}
template <>
std::span<const std::string_view> enum_wire_values<QueueMode>() noexcept {
  return kQueueMode;
}
template <>
std::span<const std::string_view> enum_wire_values<DirectMergeMode>() noexcept {
  return kDirectMergeMode;
}
template <>
std::span<const std::string_view> enum_wire_values<OptimizationMode>() noexcept {
  return kOptimizationMode;
}
template <>
std::span<const std::string_view> enum_wire_values<MergeMethod>() noexcept {
  return kMergeMethod;
}
template <>
std::span<const std::string_view> enum_wire_values<HealthStatus>() noexcept {
  return kHealthStatus;
}

}  // namespace trunk
