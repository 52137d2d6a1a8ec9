#pragma once
// The enumerations of interface.md, with their exact wire strings.
// to_wire(E) gives the wire string; enum_from_wire<E>(text) gives the value or nullopt when unknown.

#include <optional>
#include <span>
#include <string_view>

namespace trunk {

/// Merge queue state. The request accepts running, paused, draining; switching_modes is response-only.
enum class QueueState { running, paused, draining, switching_modes };
enum class QueueMode { single, parallel };
enum class DirectMergeMode { off, always };
enum class OptimizationMode { off, bisection_skip_redundant_tests };
enum class MergeMethod { merge_commit, squash, rebase };
/// Filter of list-unhealthy-tests; wire strings are upper case ("FLAKY", "BROKEN").
enum class HealthStatus { flaky, broken };

std::string_view to_wire(QueueState v) noexcept;
std::string_view to_wire(QueueMode v) noexcept;
std::string_view to_wire(DirectMergeMode v) noexcept;
std::string_view to_wire(OptimizationMode v) noexcept;
std::string_view to_wire(MergeMethod v) noexcept;
std::string_view to_wire(HealthStatus v) noexcept;

/// Exact (case-sensitive) match of a wire string; nullopt when the text is not a value of E.
template <typename E>
std::optional<E> enum_from_wire(std::string_view text) noexcept;

template <>
std::optional<QueueState> enum_from_wire<QueueState>(std::string_view text) noexcept;
template <>
std::optional<QueueMode> enum_from_wire<QueueMode>(std::string_view text) noexcept;
template <>
std::optional<DirectMergeMode> enum_from_wire<DirectMergeMode>(std::string_view text) noexcept;
template <>
std::optional<OptimizationMode> enum_from_wire<OptimizationMode>(std::string_view text) noexcept;
template <>
std::optional<MergeMethod> enum_from_wire<MergeMethod>(std::string_view text) noexcept;
template <>
std::optional<HealthStatus> enum_from_wire<HealthStatus>(std::string_view text) noexcept;

/// Every wire string of E, in declaration order (for error messages and bindings).
template <typename E>
std::span<const std::string_view> enum_wire_values() noexcept;

template <>
std::span<const std::string_view> enum_wire_values<QueueState>() noexcept;
template <>
std::span<const std::string_view> enum_wire_values<QueueMode>() noexcept;
template <>
std::span<const std::string_view> enum_wire_values<DirectMergeMode>() noexcept;
template <>
std::span<const std::string_view> enum_wire_values<OptimizationMode>() noexcept;
template <>
std::span<const std::string_view> enum_wire_values<MergeMethod>() noexcept;
template <>
std::span<const std::string_view> enum_wire_values<HealthStatus>() noexcept;

}  // namespace trunk
